"""`repeat`: grade the same build N times and check every verdict is the same each time.

    python3 -m grader repeat --build BUILD [--labs lab1,lab3] [--times 10] [--report FILE]

A timing threshold set inside the noise shows up here as a test that passes in
some runs and fails in others. Prints a table of every test whose verdict
changed (with the runs' reasons) and exits 1 when there is one; 0 when every
verdict was identical in every run; 3 when there was no GPU.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from grader.cli import Command
from grader.commands.grade import add_jobs_argument, read_secret
from grader.discovery import parse_lab_list
from grader.errors import EXIT_FAILED, EXIT_NO_GPU, EXIT_OK, GraderUsageError
from grader.model import Outcome, Status
from grader.session import GradingSession


@dataclass(frozen=True)
class Change:
    """A test whose verdict was not the same in every run."""

    name: str
    statuses: tuple[Status, ...]  # one per run, in order
    reason: str  # the first failure reason seen

    @property
    def counts(self) -> str:
        """'passed x9, failed x1'."""
        tally = Counter(s.value for s in self.statuses)
        return ", ".join(f"{status} x{count}" for status, count in tally.items())


def changes(runs: Sequence[Mapping[str, Outcome]]) -> list[Change]:
    """The tests whose status differs between runs (a test missing from a run differs too)."""
    names: list[str] = []
    for run in runs:
        names += [name for name in run if name not in names]
    found = []
    for name in names:
        outcomes = [run.get(name) for run in runs]
        statuses = tuple(o.status if o is not None else Status.ERROR for o in outcomes)
        if len(set(statuses)) > 1:
            reason = next((o.reason for o in outcomes
                           if o is not None and o.status is not Status.PASSED and o.reason),
                          "not run in every run")
            found.append(Change(name, statuses, reason.splitlines()[0] if reason else ""))
    return found


def table(found: Sequence[Change], times: int) -> str:
    """test | verdicts over the runs | first reason: only the tests that changed."""
    if not found:
        return f"Every verdict was identical in all {times} runs."
    lines = [f"{len(found)} test(s) changed verdict over {times} runs:", "",
             "| test | verdicts | runs (P passed, F failed, S skipped, E error) | reason |",
             "| --- | --- | --- | --- |"]
    for change in found:
        runs = "".join(s.value[0].upper() for s in change.statuses)
        cells = (change.name, change.counts, runs, change.reason)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--build", type=Path, required=True, metavar="BUILD",
                        help="an already built CMake build directory")
    parser.add_argument("--labs", metavar="LABS",
                        help="comma-separated labs, e.g. lab1,lab3 (default: every lab built)")
    parser.add_argument("--times", type=int, default=10, metavar="N",
                        help="how many gradings (default: %(default)s)")
    parser.add_argument("--timeout-scale", type=float, default=1.0, metavar="X",
                        help="multiply every test's TIMEOUT by X (default: 1)")
    parser.add_argument("--secret-file", type=Path, metavar="PATH",
                        help="grade on hidden data (default: $LAB_SECRET_SEED, if set)")
    parser.add_argument("--report", type=Path, metavar="FILE",
                        help="also write the table to FILE (Markdown)")
    add_jobs_argument(parser)


def _run(args: argparse.Namespace) -> int:
    if args.times < 2:
        raise GraderUsageError(f"--times must be at least 2, got {args.times}")
    labs = parse_lab_list(args.labs) if args.labs else None
    secret = read_secret(args.secret_file)
    runs: list[dict[str, Outcome]] = []
    for number in range(1, args.times + 1):
        session = GradingSession.open(args.build, labs=labs, timeout_scale=args.timeout_scale,
                                      secret=secret, jobs=args.jobs)
        session.run_all()
        tally = Counter(o.status.value for o in session.outcomes.values())
        print(f"grader: run {number}/{args.times}: "
              + ", ".join(f"{count} {status}" for status, count in sorted(tally.items())),
              flush=True)
        runs.append(dict(session.outcomes))
    found = changes(runs)
    text = table(found, args.times)
    print(text)
    if args.report is not None:
        args.report.write_text(text + "\n", encoding="utf-8")
    if found:
        return EXIT_FAILED
    if all(o.status is Status.SKIPPED for run in runs for o in run.values()):
        return EXIT_NO_GPU
    return EXIT_OK


COMMAND = Command("repeat", "grade a build N times and report every test whose verdict "
                  "changed", _add_arguments, _run)
