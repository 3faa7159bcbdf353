"""`written LAB SUBMISSIONS_DIR`: one lab's written half, for grading by hand.

For each question of the lab's REPORT.md: the rubric (solutions/, the instructors'
tree), then every student's answer, or that there is none or it is too short.
Markdown on stdout, or in --out; --marks writes the empty sheet of marks that
`gradebook --written` reads (neither is ever overwritten). Exit status: 0 written; 2
usage error (an unknown lab, a folder that is not there, an --out or --marks that
exists or cannot be written: then neither is written).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import TextIO

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
    students = {
        s.name: s / folder.name / REPORT_NAME
        for s in sorted(args.submissions.iterdir())
        if s.is_dir() and not s.name.startswith(".")
    }
    template = repo / "skeletons" / folder.name / REPORT_NAME
    text = rubric_view(template, repo / "solutions" / folder.name / REPORT_NAME, students)
    wanted = {"--marks": args.marks, "--out": args.out}
    files = _create_new({option: path for option, path in wanted.items() if path is not None})
    if "--marks" in files:
        with files["--marks"] as handle:
            csv.writer(handle).writerows(marks_sheet(args.lab, template, list(students)))
    if "--out" in files:
        with files["--out"] as handle:
            handle.write(text + "\n")
    else:
        print(text)
    return EXIT_OK


def _create_new(paths: dict[str, Path]) -> dict[str, TextIO]:
    """Every file new (never over one), or none: a usage error names the option of the
    first that cannot be made, and those made before it are removed."""
    files: dict[str, TextIO] = {}
    try:
        for option, path in paths.items():
            try:
                files[option] = open(path, "x", encoding="utf-8", newline="")
            except FileExistsError:
                raise GraderUsageError(
                    f"{option} {path} exists: give another name (nothing is overwritten)"
                ) from None
            except OSError as exc:
                raise GraderUsageError(
                    f"{option} {path}: cannot write it: {exc.strerror or exc}"
                ) from exc
    except GraderUsageError:
        for option, handle in files.items():
            handle.close()
            paths[option].unlink()
        raise
    return files


COMMAND = Command(
    "written",
    "one lab's REPORT.md answers of a class, each question with its rubric, to grade by hand",
    _add_arguments,
    _run,
)
