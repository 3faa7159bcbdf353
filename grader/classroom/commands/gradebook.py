"""`gradebook --class-report REPORT --roster roster.csv`: the CSV an LMS imports.

REPORT is a `batch` report folder (its class.csv). With `--collected`
(CLASS_DIR/collected.json from `collect`), each student's days late cost
`penalty_per_day` of the total each. Writes REPORT/gradebook.csv (or --out).
Exit status: 0 written; 2 usage error (a missing or malformed file, an output file
that already exists).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from grader.classroom.class_table import CSV_NAME
from grader.classroom.gradebook import (
    GRADEBOOK_NAME,
    gradebook_rows,
    read_class_table,
    read_collected,
    read_roster,
    unrostered,
)
from grader.classroom.written_answers import read_marks, written_policy
from grader.command import Command
from grader.core.discovery import repo_root
from grader.core.errors import EXIT_OK, GraderUsageError
from grader.options import add_class_report_argument


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_class_report_argument(parser)
    parser.add_argument(
        "--roster", type=Path, required=True, metavar="CSV", help="folder,student_id[,name]"
    )
    parser.add_argument(
        "--collected", type=Path, metavar="JSON", help="collect's collected.json (days late)"
    )
    parser.add_argument(
        "--written",
        type=Path,
        metavar="CSV",
        help="the marks of the REPORT.md answers (grader written --marks, filled in): a "
        "written column, each lab's lab.json written.points times its mean mark",
    )
    parser.add_argument(
        "--out", type=Path, metavar="CSV", help="default: REPORT/gradebook.csv (never overwritten)"
    )


def _run(args: argparse.Namespace) -> int:
    roster = read_roster(args.roster)
    labs, table = read_class_table(args.class_report / CSV_NAME)
    collected, penalty = read_collected(args.collected)
    out = args.out or args.class_report / GRADEBOOK_NAME
    if out.exists():
        raise GraderUsageError(f"{out} exists: give another --out (nothing is overwritten)")
    written = read_marks(args.written, *written_policy(repo_root())) if args.written else None
    rows = gradebook_rows(roster, labs, table, collected, penalty, written)
    with open(out, "x", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    for folder in unrostered(roster, table):
        print(f"grader: warning: {folder} was graded but is not on the roster", file=sys.stderr)
    print(f"grader: gradebook of {len(rows) - 1} students in {out}")
    return EXIT_OK


COMMAND = Command(
    "gradebook",
    "the LMS gradebook CSV: roster, per-lab scores, days late and the late penalty",
    _add_arguments,
    _run,
)
