"""`leaderboard --class-report REPORT`: the class's best measured figures, per figure.

Reads the students of REPORT/class.csv (a `batch` report) and each one's
results.json; writes REPORT/leaderboard.md, leaderboard.json and, with matplotlib,
leaderboard.png. `--anonymise` replaces names with pseudonyms keyed by `--salt`
(default: a fresh random one, printed nowhere). Exit status: 0 written; 2 usage
error (no class table).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys

from grader.classroom.class_leaderboard import markdown, plot, pseudonym, ranked, read_figures
from grader.classroom.class_table import CSV_NAME
from grader.classroom.gradebook import read_class_table
from grader.command import Command
from grader.core.errors import EXIT_OK, GraderUsageError
from grader.options import add_class_report_argument


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_class_report_argument(parser)
    parser.add_argument("--top", type=int, default=10, metavar="N", help="rows per figure")
    parser.add_argument("--anonymise", action="store_true", help="pseudonyms instead of names")
    parser.add_argument("--salt", metavar="S", help="the pseudonyms' key (default: random)")


def _run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise GraderUsageError(f"--top must be at least 1, got {args.top}")
    if args.salt is not None and not args.anonymise:
        raise GraderUsageError("--salt goes with --anonymise")
    _, table = read_class_table(args.class_report / CSV_NAME)
    students = sorted(table)
    salt = args.salt or secrets.token_hex(16)
    names = {s: pseudonym(s, salt) for s in students} if args.anonymise else {}
    board = ranked(read_figures(args.class_report, students), args.top, names)
    out = args.class_report
    (out / "leaderboard.md").write_text(markdown(board), encoding="utf-8")
    (out / "leaderboard.json").write_text(json.dumps(board, indent=1) + "\n", encoding="utf-8")
    problem = plot(board, out / "leaderboard.png")
    if problem:
        print(f"grader: warning: {problem}", file=sys.stderr)
    print(f"grader: leaderboard of {len(board)} figures in {out / 'leaderboard.md'}")
    return EXIT_OK


COMMAND = Command(
    "leaderboard",
    "the class's best measured figures (Markdown, JSON, PNG), optionally anonymised",
    _add_arguments,
    _run,
)
