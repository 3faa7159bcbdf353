"""`written LAB SUBMISSIONS_DIR`: one lab's written half, for grading by hand.

For each question of the lab's REPORT.md: the rubric (solutions/, the instructors'
tree), then every student's answer, or that there is none or it is too short.
Markdown on stdout, or in --out; --marks writes the empty sheet of marks that
`gradebook --written` reads (neither is ever overwritten). Exit status: 0 written; 2
usage error (an unknown lab, a folder that is not there, an existing --out).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from grader.classroom.written_answers import REPORT_NAME, marks_sheet, rubric_view
from grader.command import Command
from grader.core.discovery import lab_dirs, repo_root, require_known_labs
from grader.core.errors import EXIT_OK, GraderUsageError


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("lab", help="the lab, e.g. lab1")
    parser.add_argument(
        "submissions", type=Path, help="folder with one subfolder per student, like skeletons/"
    )
    parser.add_argument("--out", type=Path, metavar="FILE", help="default: stdout")
    parser.add_argument(
        "--marks",
        type=Path,
        metavar="CSV",
        help="also write the empty marks sheet (folder,lab,question,mark: full, half or "
        "none) that gradebook --written reads",
    )


def _run(args: argparse.Namespace) -> int:
    repo = repo_root()
    dirs = lab_dirs(repo)
    require_known_labs([args.lab], dirs)
    folder = dirs[args.lab]
    if not args.submissions.is_dir():
        raise GraderUsageError(f"{args.submissions} is not a folder of student folders")
    for given in (args.out, args.marks):
        if given is not None and given.exists():
            raise GraderUsageError(f"{given} exists: give another name (nothing is overwritten)")
    students = {
        s.name: s / folder.name / REPORT_NAME
        for s in sorted(args.submissions.iterdir())
        if s.is_dir() and not s.name.startswith(".")
    }
    template = repo / "skeletons" / folder.name / REPORT_NAME
    text = rubric_view(template, repo / "solutions" / folder.name / REPORT_NAME, students)
    if args.marks is not None:
        with open(args.marks, "x", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(marks_sheet(args.lab, template, list(students)))
    if args.out is None:
        print(text)
    else:
        with open(args.out, "x", encoding="utf-8") as handle:
            handle.write(text + "\n")
    return EXIT_OK


COMMAND = Command(
    "written",
    "one lab's REPORT.md answers of a class, each question with its rubric, to grade by hand",
    _add_arguments,
    _run,
)
