"""The table of scripts/bench-grading.sh: each figure against its bound.

    python3 scripts/bench_summary.py OUT

OUT holds steps.txt ("name status milliseconds" per step), the grade reports
(OUT/<name>/results.json), the batch's log and report (OUT/class.log, OUT/class)
and the sample class's check (OUT/class-check.log). Exit 1 when a figure is
missing or beyond its bound.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The bounds the grader is held to (seconds), and the class size they are for.
STUDENT_BUILD_S = 10.0
FIVE_LABS_S = 60.0
SANITIZER_STAGE_S = 60.0
HUNG_OVER_CORRECT = 2.0
CLASS_SIZE = 200
CLASS_S = 30 * 60.0


@dataclass(frozen=True)
class Row:
    what: str
    seconds: float | None
    processes: int | None = None
    result: str = ""
    bound: str = ""
    within: bool | None = None  # None: no bound


def steps(out: Path) -> dict[str, tuple[int, float]]:
    """Each step's exit status and wall seconds."""
    found: dict[str, tuple[int, float]] = {}
    path = out / "steps.txt"
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        name, status, ms = line.split()
        found[name] = (int(status), int(ms) / 1000)
    return found


def results(out: Path, name: str) -> dict[str, Any] | None:
    path = out / name / "results.json"
    if not path.is_file():
        return None
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def _score(doc: dict[str, Any]) -> str:
    return f"{doc.get('score')}/{doc['extra_data'].get('max_score')}"


def _labs(doc: dict[str, Any]) -> dict[str, tuple[float, float]]:
    return {lab["lab"]: (lab["score"], lab["max_score"]) for lab in doc["extra_data"]["labs"]}


def _bounded(seconds: float | None, limit: float) -> bool | None:
    return None if seconds is None else seconds <= limit


def build_rows(ran: dict[str, tuple[int, float]]) -> list[Row]:
    rows = []
    for name, what, bound in (
        ("fixed-parts", "build: fixed parts, once per class", None),
        ("build-reference", "build: a student's files against them", STUDENT_BUILD_S),
        ("rebuild-one-file", "rebuild after one file changed", STUDENT_BUILD_S),
    ):
        status, seconds = ran.get(name, (1, float("nan")))
        failed = status != 0
        rows.append(
            Row(
                what,
                seconds,
                result="failed" if failed else "built",
                bound=f"<= {bound:g} s" if bound else "",
                within=False if failed else (_bounded(seconds, bound) if bound else None),
            )
        )
    return rows


def grade_rows(out: Path) -> list[Row]:
    """The calibration and the three submissions: total, without and with the stage."""
    rows: list[Row] = []
    reference = results(out, "grade-reference")
    correct_s = None
    if reference is not None:
        extra = reference["extra_data"]
        correct_s = extra["execution_time_s"] - extra["phase_s"].get("sanitize", 0.0)
    calibration = results(out, "calibration")
    if calibration is not None:
        rows.append(
            Row(
                "reference (the calibration)",
                calibration["extra_data"]["execution_time_s"],
                calibration["extra_data"]["processes_started"],
                _score(calibration),
            )
        )
    for name, what in (
        ("grade-reference", "one submission (the reference), all labs"),
        ("grade-skeletons", "the skeletons, all labs"),
        ("grade-hung", "a hung submission (lab1 deadlock), all labs"),
    ):
        doc = results(out, name)
        if doc is None:
            rows.append(Row(what, None, result="no report", within=False))
            continue
        extra = doc["extra_data"]
        stage = extra["phase_s"].get("sanitize")
        seconds = extra["execution_time_s"] - (stage or 0.0)
        labs = _labs(doc)
        if name == "grade-reference":
            expected = all(score == top for score, top in labs.values())
            bound, within = f"<= {FIVE_LABS_S:g} s", _bounded(seconds, FIVE_LABS_S)
        elif name == "grade-skeletons":
            expected = all(score == 0 for score, _ in labs.values())
            bound, within = "", None
        else:
            lab1, others = labs.get("lab1", (0, 0)), [v for k, v in labs.items() if k != "lab1"]
            expected = lab1[0] < lab1[1] and all(score == top for score, top in others)
            limit = HUNG_OVER_CORRECT * correct_s if correct_s else None
            bound = f"<= {HUNG_OVER_CORRECT:g}x the reference" + (
                f" ({limit:.0f} s)" if limit else ""
            )
            within = _bounded(seconds, limit) if limit else False
        verdict = _score(doc) + ("" if expected else " (NOT as expected)")
        rows.append(
            Row(
                f"{what}, without the sanitizer stage",
                seconds,
                extra["processes_started"],
                verdict,
                bound,
                within if expected else False,
            )
        )
        if stage is not None:
            held = name == "grade-reference"  # the others' stages are shown, not bounded
            rows.append(
                Row(
                    f"  its sanitizer stage ({name.removeprefix('grade-')})",
                    stage,
                    bound=f"<= {SANITIZER_STAGE_S:g} s" if held else "",
                    within=_bounded(stage, SANITIZER_STAGE_S) if held else None,
                )
            )
    return rows


def class_rows(out: Path, ran: dict[str, tuple[int, float]]) -> list[Row]:
    """The sample class: its wall time, and 200 students at the rate it graded."""
    log, check = (
        (out / name).read_text(encoding="utf-8") if (out / name).is_file() else ""
        for name in ("class.log", "class-check.log")
    )
    folders = re.search(r"(\d+) folders \((\d+) submissions\)", log)
    workers = re.search(r"(\d+) GPU worker\(s\) on (.*?), \d+ build", log)
    done = re.search(r"batch done in (\d+) s", log)
    if "class" not in ran or folders is None or done is None:
        return [Row("the sample class (lab1)", None, result="no result", within=False)]
    wall = ran["class"][1]
    count = int(folders.group(1))
    grading = float(done.group(1))  # after the fixed parts were built
    processes = sum(
        json.loads(p.read_text(encoding="utf-8"))["extra_data"].get("processes_started", 0)
        for p in (out / "class").glob("*/results.json")
    )
    verdicts = check.strip().splitlines()[-1] if check.strip() else "not checked"
    all_expected = bool(re.fullmatch(r"(\d+) of \1 as expected", verdicts))
    per_student = grading / count
    extrapolated = (wall - grading) + per_student * CLASS_SIZE
    return [
        Row(
            f"the sample class: {count} lab1 folders, "
            + (f"{workers.group(1)} workers on {workers.group(2)}" if workers else "1 GPU"),
            wall,
            processes,
            verdicts,
        ),
        Row(
            f"  {CLASS_SIZE} students at its rate ({per_student:.1f} s each)",
            extrapolated,
            bound=f"<= {CLASS_S / 60:g} min",
            within=all_expected and extrapolated <= CLASS_S,
        ),
    ]


def slowest(out: Path, name: str, count: int = 12) -> list[str]:
    """The grading's longest tests: where the time goes."""
    doc = results(out, name)
    if doc is None:
        return []
    tests = sorted(
        doc.get("tests", []),
        key=lambda t: -float(t.get("extra_data", {}).get("duration_s", 0.0)),
    )
    return [f"{t['extra_data'].get('duration_s', 0.0):8.2f}  {t['name']}" for t in tests[:count]]


def table(rows: list[Row]) -> str:
    lines = [f"{'':46} {'wall s':>8} {'procs':>6}  {'result':<26} {'bound':<30} ok"]
    for row in rows:
        seconds = "-" if row.seconds is None else f"{row.seconds:8.1f}"
        processes = "" if row.processes is None else str(row.processes)
        ok = "" if row.within is None else ("yes" if row.within else "NO")
        lines.append(
            f"{row.what:<46} {seconds:>8} {processes:>6}  {row.result:<26} {row.bound:<30} {ok}"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    out = Path(argv[0])
    ran = steps(out)
    rows = build_rows(ran) + grade_rows(out) + class_rows(out, ran)
    gpu = "unknown GPU"
    reference = results(out, "calibration")
    if reference is not None:
        gpu = reference["extra_data"]["gpu"].get("description") or gpu
    longest = slowest(out, "grade-reference")
    if longest:
        print("== the reference's longest tests (s) ==")
        print("\n".join(longest))
    print(f"== grading benchmark ({gpu}) ==")
    print(table(rows))
    return 1 if any(row.within is False for row in rows) else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the grader's commands
        print("bench_summary: interrupted", file=sys.stderr)
        sys.exit(130)
