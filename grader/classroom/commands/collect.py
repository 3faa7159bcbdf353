"""`collect REPOS_DIR --policy deadline.json --out CLASS_DIR`: what each student handed in.

For every student repository in REPOS_DIR (one git clone per student, named by
the student), the last commit dated before the student's due time plus the late
window is written, its `--path` folder only (default `skeletons`, the layout
`export` gives students), to CLASS_DIR/<student>/, ready for `batch`. The commits,
their dates and the days late go to CLASS_DIR/collected.json, which `gradebook`
reads. Exit status: 0 collected (students without a commit, or without --path in it,
listed); 2 usage error (CLASS_DIR exists and is not empty, a bad policy file, a --path
that no repository has at the commit it hands in: then nothing is written).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from dataclasses import asdict
from pathlib import Path

from grader.classroom.deadline import collect_one, load_policy
from grader.command import Command
from grader.core.errors import EXIT_OK, GraderUsageError

COLLECTED_NAME = "collected.json"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "repos", type=Path, metavar="REPOS_DIR", help="one git clone per student, named by student"
    )
    parser.add_argument(
        "--policy", type=Path, required=True, metavar="FILE", help="the deadline policy (JSON)"
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="CLASS_DIR", help="a new or empty folder"
    )
    parser.add_argument(
        "--path",
        default="skeletons",
        metavar="P",
        help="the folder of each repository that holds the labs (default: %(default)s)",
    )


def _run(args: argparse.Namespace) -> int:
    policy = load_policy(args.policy)
    if not args.repos.is_dir():
        raise GraderUsageError(f"{args.repos}: no such folder")
    if args.out.exists() and (not args.out.is_dir() or any(args.out.iterdir())):
        raise GraderUsageError(f"--out {args.out}: exists and is not an empty folder")
    if Path(args.path).is_absolute() or ".." in Path(args.path).parts:
        raise GraderUsageError(f"--path {args.path}: must be a folder inside the repositories")
    repos = sorted(p for p in args.repos.iterdir() if p.is_dir())
    results = [collect_one(repo.name, repo, policy, args.out, args.path) for repo in repos]
    graded = [(repo, r.commit) for repo, r in zip(repos, results) if r.commit]
    if graded and not any(_holds(repo, commit, args.path) for repo, commit in graded):
        # Nothing was extracted, so CLASS_DIR is as it was: a misspelt --path, not a class.
        raise GraderUsageError(
            f"--path {args.path}: no repository in {args.repos} has it at the commit it "
            "hands in (export gives students skeletons/)"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    doc = {
        "due": policy.due.isoformat(),
        "late_days": policy.late_days,
        "penalty_per_day": policy.penalty_per_day,
        "students": [asdict(r) for r in results],
    }
    (args.out / COLLECTED_NAME).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    for r in results:
        state = r.problem or f"{r.commit[:12]} {r.date}" + (
            f", {r.days_late} day(s) late" if r.days_late else ""
        )
        print(f"grader: {r.student}: {state}")
    print(
        f"grader: {sum(not r.problem for r in results)} of {len(results)} collected in {args.out}"
    )
    return EXIT_OK


def _holds(repo: Path, commit: str, path: str) -> bool:
    """Whether `path` is in the tree of `commit`."""
    rev = f"{commit}:{Path(path).as_posix()}"
    found = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", rev], capture_output=True, check=False
    )
    return found.returncode == 0


COMMAND = Command(
    "collect",
    "each student's last commit before the due time (extensions, late window) into a class folder",
    _add_arguments,
    _run,
)
