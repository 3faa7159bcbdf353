"""Two gradings of one build, compared test by test: the verdicts must be the same.

    python3 scripts/compare_verdicts.py REPORT_A REPORT_B

REPORT_A and REPORT_B are `grade --report` folders (results.json), e.g. one tree
graded with one secret before and after a change to the grader, or files in that
shape (`known-wrong --outcomes`). Prints one line (tests
compared, differences, each run's execution time) and the first differences;
exit 1 when any test's status or score differs or a test is missing from either.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def verdicts(report: Path) -> tuple[dict[str, tuple[str, Any]], Any]:
    path = report / "results.json" if report.is_dir() else report
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # the grading did not finish: its log says why
        raise SystemExit(f"compare_verdicts: {path}: no grading results ({exc})") from None
    tests = {str(t["name"]): (str(t["status"]), t.get("score")) for t in doc["tests"]}
    return tests, doc.get("execution_time")


def differences(a: dict[str, tuple[str, Any]], b: dict[str, tuple[str, Any]]) -> list[str]:
    lines = []
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            lines.append(f"{name}: {a.get(name, 'missing')} vs {b.get(name, 'missing')}")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    (a, time_a), (b, time_b) = verdicts(Path(argv[0])), verdicts(Path(argv[1]))
    diff = differences(a, b)
    print(
        f"{len(set(a) | set(b))} tests, {len(diff)} different verdicts; "
        f"execution {time_a} s vs {time_b} s"
    )
    for line in diff[:20]:
        print(f"  {line}")
    return 1 if diff else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the grader's commands
        print("compare_verdicts: interrupted", file=sys.stderr)
        sys.exit(130)
