"""A stand-in for the Python that the Slurm jobs (templates/slurm/) run the grader with:

    fake_grader_python.py -m grader grade --impl DIR --report OUT [OPTIONS]
    fake_grader_python.py -m grader.classroom batch CLASS --report OUT [OPTIONS]

Each run appends what it was asked, and what it found, to $FAKE_GRADER_LOG (a JSON
line), then leaves what the real command would for the next job: the calibration's
results.json (and exit status 1, a failed test of the typical code), or a class.csv
of the students in CLASS (none, and exit status 3, when $FAKE_GRADER_FAIL names one of
them).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

# Long enough that an array task started before the calibration ended would find none.
CALIBRATION_S = 2.0


def main(argv: list[str]) -> int:
    command, args = argv[:3], argv[3:]
    report = Path(args[args.index("--report") + 1])
    record: dict[str, object] = {
        "command": " ".join(command[1:]),
        "args": args,
        "task": os.environ.get("SLURM_ARRAY_TASK_ID"),
    }
    if command == ["-m", "grader", "grade"]:
        time.sleep(CALIBRATION_S)
        report.mkdir()
        (report / "results.json").write_text("{}\n")
        status = 1
    elif command == ["-m", "grader.classroom", "batch"]:
        calibration = Path(args[args.index("--calibration") + 1])
        record["calibrated"] = (calibration / "results.json").is_file()
        students = sorted(p.name for p in Path(args[0]).iterdir())
        record["students"] = students
        if set(students) & set(os.environ.get("FAKE_GRADER_FAIL", "").split()):
            return 3  # a task that ends without its table, as one Slurm stopped would
        report.mkdir()
        rows = "".join(f"{name},graded\n" for name in students)
        (report / "class.csv").write_text("student,status\n" + rows)
        status = 0
    else:
        print(f"fake_grader_python: unexpected {' '.join(argv)}", file=sys.stderr)
        return 2
    with open(os.environ["FAKE_GRADER_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
