"""`repeat`: grade the same build N times and check every verdict is the same each time.

    python3 -m grader repeat --build BUILD [--labs lab1,lab3] [--times 10] [--report FILE]
                             [--record FILE]

A timing threshold set inside the noise shows up here as a test that passes in
some runs and fails in others. Prints a table of every test whose verdict
changed (with the runs' reasons) and exits 1 when there is one; 0 when every
verdict was identical in every run; 3 when there was no GPU.

`--record FILE` appends each run's verdicts to FILE (one JSON line per run) and
compares all the runs FILE holds: ten gradings can be spread over several
sessions of a machine that is lent for less time than they take.

`--calibrate` (a build of the reference solutions only) also writes each graded
lab's calibration.json from the figures its timing tests measured: what the bars
were set from, on this GPU (grader/tools/calibration.py). Then
`python3 scripts/readme_bars.py` rewrites the READMEs' tables.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.command import Command
from grader.core.build import configured_impl
from grader.core.discovery import lab_dirs, repo_root
from grader.core.errors import EXIT_FAILED, EXIT_NO_GPU, EXIT_OK, GraderUsageError
from grader.core.lab_file import read_lab_file
from grader.core.model import Outcome, Status
from grader.core.reports import markdown_table, tally
from grader.core.session import GradingSession
from grader.options import (
    add_build_argument,
    add_jobs_argument,
    add_labs_argument,
    add_report_file_argument,
    add_secret_argument,
    add_timeout_scale_argument,
    read_secret,
)
from grader.tools import calibration


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
            reason = next(
                (
                    o.reason
                    for o in outcomes
                    if o is not None and o.status is not Status.PASSED and o.reason
                ),
                "not run in every run",
            )
            found.append(Change(name, statuses, reason.splitlines()[0] if reason else ""))
    return found


def table(found: Sequence[Change], times: int) -> str:
    """test | verdicts over the runs | first reason: only the tests that changed."""
    if not found:
        return f"Every verdict was identical in all {times} runs."
    head = ("test", "verdicts", "runs (P passed, F failed, S skipped, E error)", "reason")
    cells = [
        (c.name, c.counts, "".join(s.value[0].upper() for s in c.statuses), c.reason) for c in found
    ]
    lines = [f"{len(found)} test(s) changed verdict over {times} runs:", ""]
    return "\n".join(lines + markdown_table(head, cells))


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    add_build_argument(parser, "an already built CMake build directory")
    add_labs_argument(parser, "every lab built")
    parser.add_argument(
        "--times",
        type=int,
        default=10,
        metavar="N",
        help="how many gradings (default: %(default)s)",
    )
    add_timeout_scale_argument(parser)
    add_secret_argument(parser, "grade on hidden data (default: $LAB_SECRET_SEED, if set)")
    add_report_file_argument(parser)
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="append each run's verdicts to FILE and compare every run it holds",
    )
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="write each lab's calibration.json from the figures measured (a build of "
        "the reference solutions only)",
    )
    add_jobs_argument(parser)


def load_record(path: Path | None) -> list[dict[str, Outcome]]:
    """The runs an earlier `--record FILE` kept; none when FILE does not exist yet."""
    if path is None or not path.exists():
        return []
    runs, number = [], 0
    try:
        # `number` is for the except clause below: the line that broke.
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):  # noqa: B007
            if line.strip():
                doc = json.loads(line)["verdicts"]
                runs.append(
                    {
                        name: Outcome(Status(status), reason)
                        for name, (status, reason) in doc.items()
                    }
                )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise GraderUsageError(
            f"--record {path}: line {number} is not a run this command wrote ({exc})"
        ) from exc
    return runs


def append_record(path: Path, outcomes: Mapping[str, Outcome], gpu: str) -> None:
    """One JSON line: the GPU and each test's status and first reason line."""
    verdicts = {
        name: [o.status.value, o.reason.splitlines()[0] if o.reason else ""]
        for name, o in outcomes.items()
    }
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps({"gpu": gpu, "verdicts": verdicts}) + "\n")


def _bars() -> dict[str, tuple[Path, dict[str, float]]]:
    """Each lab's folder and its lab.json bars (name -> value)."""
    found = {}
    for lab, folder in lab_dirs(repo_root()).items():
        bars = (read_lab_file(folder) or {}).get("bars", {})
        found[lab] = (folder, {name: float(bar["value"]) for name, bar in bars.items()})
    return found


def _calibrate(
    runs: Sequence[Mapping[str, Mapping[str, float]]],
    bars: Mapping[str, tuple[Path, Any]],
    device: str,
) -> None:
    for lab, measured in calibration.summarise(runs).items():
        folder, order = bars[lab]
        kept = calibration.write(folder, device, measured, list(order))
        print(
            f"grader: {folder / calibration.CALIBRATION_FILE}: {len(measured)} bar(s) measured"
            + (f"; not measured, kept as they were: {', '.join(kept)}" if kept else "")
        )


def _run(args: argparse.Namespace) -> int:
    if args.times < 2:
        raise GraderUsageError(f"--times must be at least 2, got {args.times}")
    labs = args.labs
    if args.calibrate and configured_impl(args.build, repo_root()) != repo_root() / "solutions":
        raise GraderUsageError(
            f"--calibrate measures the reference: {args.build} was not configured with "
            "LAB_IMPL=solutions"
        )
    bars = _bars() if args.calibrate else {}
    bar_values = {lab: values for lab, (_, values) in bars.items()}
    figures: list[dict[str, dict[str, float]]] = []
    device = ""
    secret = read_secret(args.secret_file)
    runs = load_record(args.record)
    if runs:
        print(f"grader: {len(runs)} earlier run(s) from {args.record}", flush=True)
    for number in range(1, args.times + 1):
        session = GradingSession.open(
            args.build, labs=labs, timeout_scale=args.timeout_scale, secret=secret, jobs=args.jobs
        )
        session.run_all()
        counts = tally(o.status for o in session.outcomes.values())
        print(f"grader: run {number}/{args.times}: {counts}", flush=True)
        runs.append(dict(session.outcomes))
        if args.calibrate:
            device = str(session.gpu.details.get("name", ""))
            pairs = [
                (test.lab, outcome.figure)
                for test in session.tests
                if (outcome := session.outcomes.get(test.name)) and outcome.figure
            ]
            figures.append(calibration.run_figures(pairs, bar_values))
        if args.record is not None:
            append_record(args.record, session.outcomes, session.gpu.describe())
    found = changes(runs)
    text = table(found, len(runs))
    print(text)
    if args.calibrate and device:
        _calibrate(figures, bars, device)
    if args.report is not None:
        args.report.write_text(text + "\n", encoding="utf-8")
    if found:
        return EXIT_FAILED
    if all(o.status is Status.SKIPPED for run in runs for o in run.values()):
        return EXIT_NO_GPU
    return EXIT_OK


COMMAND = Command(
    "repeat",
    "grade a build N times and report every test whose verdict changed",
    _add_arguments,
    _run,
)
