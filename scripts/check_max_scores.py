"""Every lab's grading.json `max_score` must equal what its built tests are worth.

The grader gives a lab that did not build, or that the static check rejected,
0 of its `max_score` without listing its tests, so a wrong or missing one would
shrink that student's maximum.

    python3 scripts/check_max_scores.py BUILD_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader.discovery import lab_dirs, parse_tests, read_ctest_json  # noqa: E402
from grader.scoring import LabPolicy, load_policy, number  # noqa: E402


def main(build: Path) -> int:
    dirs = lab_dirs(ROOT)
    policies: dict[str, LabPolicy] = {}
    worth: dict[str, float] = {}
    for test in parse_tests(read_ctest_json(build)):
        if test.lab not in policies:
            policies[test.lab] = load_policy(test.lab, dirs.get(test.lab))
        worth[test.lab] = worth.get(test.lab, 0.0) + policies[test.lab].points_for(test.kind)
    bad = 0
    for lab, total in sorted(worth.items()):
        expected = policies[lab].expected_max
        if expected != total:
            bad += 1
            print(
                f"check_max_scores: {lab}: grading.json max_score is {expected}, its tests are "
                f'worth {number(total)}: set "max_score": {number(total)}'
            )
    if not bad:
        print(
            f"check_max_scores: {len(worth)} labs, each max_score matches its tests "
            f"({', '.join(f'{lab} {number(t)}' for lab, t in sorted(worth.items()))})"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_max_scores.py BUILD_DIR")
    sys.exit(main(Path(sys.argv[1])))
