"""Checks the performance credit in graded reports against the labs' curves.

For every timing test of each RESULTS that passed and has a reference figure in
the calibration, the credit recorded in its results.json must be the curve of the
lab's lab.json applied to the test's figure and the reference's (grader/core/credit.py),
and its points that share of its max. Prints one table; exit 1 on any mismatch,
or when a report holds no credited test at all.

    python3 scripts/credit_table.py --calibration CAL/results.json A/results.json ...
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from grader.core.calibration import Calibration
from grader.core.discovery import lab_dirs
from grader.core.reports import lab_test_name
from grader.core.scoring import load_policy

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 1e-3


def check(report: Path, calibration: Calibration) -> tuple[list[str], int]:
    """The report's table rows and how many tests disagree with the curve."""
    doc: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    dirs = lab_dirs(ROOT)
    rows, wrong, credited = [], 0, 0
    for test in doc["tests"]:
        extra = test.get("extra_data", {})
        name = lab_test_name(test)
        if extra.get("kind") != "timing" or name is None:
            continue
        figure = extra.get("figure", {}).get("value")
        reference = calibration.figures.get(name)
        curve = load_policy(extra["lab"], dirs.get(extra["lab"])).credit
        passed = test["status"] == "passed"
        if not passed or figure is None or reference is None or curve is None:
            expected = 1.0 if passed else 0.0
            recorded = test["score"] / test["max_score"] if test["max_score"] else 0.0
        else:
            credited += 1
            expected = curve.fraction(figure, reference)
            recorded = extra.get("credit", {}).get("fraction", -1.0)
        points_ok = abs(test["score"] - expected * test["max_score"]) < TOLERANCE * 100
        ok = abs(recorded - expected) < TOLERANCE and points_ok
        wrong += not ok
        slowdown = f"{reference / figure:.2f}" if figure and reference else ""
        rows.append(
            f"| {report.parent.name} | {name} | {figure if figure is not None else ''} "
            f"| {reference if reference is not None else ''} | {slowdown} | {expected:.3f} "
            f"| {recorded:.3f} | {test['score']}/{test['max_score']} | {'yes' if ok else 'NO'} |"
        )
    if credited == 0:
        rows.append(
            f"| {report.parent.name} | no timing test was put on a curve | | | | | | | NO |"
        )
        wrong += 1
    return rows, wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibration", type=Path, required=True)
    parser.add_argument("results", type=Path, nargs="+")
    args = parser.parse_args(argv)
    calibration = Calibration.read(args.calibration)
    print(f"\n== performance credit against {args.calibration} ({calibration.gpu}) ==")
    print("| report | test | figure | reference | slowdown | curve | recorded | points | ok |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    wrong = 0
    for report in args.results:
        rows, bad = check(report, calibration)
        print("\n".join(rows))
        wrong += bad
    print(f"{wrong} mismatches")
    return 1 if wrong else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the grader's commands
        print("credit_table: interrupted", file=sys.stderr)
        sys.exit(130)
