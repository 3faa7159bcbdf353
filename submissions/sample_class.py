"""A sample class for trying `grader.classroom batch`, and a check of its class table.

    python3 submissions/sample_class.py make OUTDIR [SIZE]
    python3 -m grader.classroom batch OUTDIR --labs lab1 --secret-file SECRET --report REPORT ...
    python3 submissions/sample_class.py check OUTDIR REPORT

`make` writes 22 student folders for lab1: 8 copies of the reference, 4 of the
skeleton, the 8 lab1 known-wrong submissions (race, tail, out-of-bounds write,
hang, slow, CUB, hard-coded public answers, host answer), one that does not
compile and one folder holding only notes; OUTDIR/expected.json, what each
must get; and OUTDIR/roster.csv for `gradebook`, in which ref01 is a pair's folder
(two students, one grade). A SIZE over 22 (a class of 200 for the throughput
benchmark) adds folders in rounds of ten: four of the reference, four of the typical
honest solution (submissions/typical: every test passes, but under a calibration the
performance credit gives its slower kernels less than 100), and two known-wrong or
broken ones in turn. Each added folder's lab1 file ends with a comment naming its
student, so no two folders are identical.

`check` compares the batch's class table (REPORT/class.csv) with it, one row
per student, exit 1 on a mismatch. The hard-coded submission is only caught on hidden
data, so grade with --secret-file.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from grader.core.discovery import lab_dirs  # noqa: E402
from grader.core.scoring import load_policy, number  # noqa: E402

LAB = "lab1"
LAB_FILE = Path("lab1_histogram") / "histogram_kernels.cu"
BASE_SIZE = 22
# A round of ten added folders: mostly honest, two of the wrong ones in turn.
ROUND = ("ref", "typical", "ref", "typical", "ref", "typical", "ref", "typical", "wrong", "wrong")
MAX = number(load_policy(LAB, lab_dirs(REPO)[LAB]).max_score)  # lab.json's groups
EXPECTED_FILE = "expected.json"
ROSTER_FILE = "roster.csv"
# What each known-wrong submission must lose points for, as in manifest.json.
KNOWN_WRONG = {
    "lab1_race": r"shared__",
    "lab1_tail": r"global__",
    "lab1_oob_write": r"one_per_thread__.*(illegal|IllegalAddress)",
    "lab1_hang": r"timed out|possible deadlock|status 124",
    "lab1_slow": r"speedup",
    "lab1_cub": r"static check",
    "lab1_hardcoded": r"best__[^;]*: answer not computed: right on public data only",
    "lab1_host_answer": r"static check",
}


def make(out: Path, size: int = BASE_SIZE) -> dict[str, str]:
    """Write the class of `size` folders (at least 22) into `out` (which must not exist
    yet); return the expectations."""
    out.mkdir(parents=True)
    expected: dict[str, str] = {}
    for i in range(1, 9):
        shutil.copytree(REPO / "solutions", out / f"ref{i:02d}")
        expected[f"ref{i:02d}"] = "full"
    for i in range(1, 5):
        shutil.copytree(REPO / "skeletons", out / f"skel{i:02d}")
        expected[f"skel{i:02d}"] = "zero"
    trees = out / ".known-wrong"
    subprocess.run(
        [sys.executable, str(REPO / "submissions/known_wrong/make_lab1.py"), str(trees)],
        check=True,
        cwd=REPO,
    )
    for name, reason in KNOWN_WRONG.items():
        shutil.copytree(trees / name, out / name)
        expected[name] = f"fails:{reason}"
    broken = out / "broken_compile"
    shutil.copytree(REPO / "solutions", broken)
    with open(broken / LAB_FILE, "a", encoding="utf-8") as f:
        f.write("\nthis line is not C++\n")
    expected["broken_compile"] = "fails:did not build"
    notes = out / "notes_only"
    notes.mkdir()
    (notes / "README.md").write_text("My notes on the course; no lab folder.\n")
    expected["notes_only"] = "not a submission"
    wrong = [(trees / n, f"fails:{r}") for n, r in KNOWN_WRONG.items()]
    expected.update(_add_rounds(out, size - BASE_SIZE, [*wrong, (broken, expected[broken.name])]))
    shutil.rmtree(trees)
    (out / EXPECTED_FILE).write_text(json.dumps(expected, indent=1) + "\n")
    # The roster `gradebook` reads: a line per student; ref01 is a pair's folder.
    with open(out / ROSTER_FILE, "w", encoding="utf-8", newline="") as f:
        lines = [(folder, f"s{1000 + i}", folder) for i, folder in enumerate(expected, 1)]
        lines.insert(1, ("ref01", "s0999", "ref01 partner"))
        csv.writer(f).writerows([("folder", "student_id", "name"), *lines])
    return expected


def _add_rounds(out: Path, count: int, wrong: list[tuple[Path, str]]) -> dict[str, str]:
    """`count` more folders in rounds of ten (ROUND), the wrong ones taken in turn."""
    honest = {"ref": REPO / "solutions", "typical": REPO / "submissions" / "typical"}
    expected: dict[str, str] = {}
    taken = 0
    for i in range(count):
        kind = ROUND[i % len(ROUND)]
        if kind == "wrong":
            source, expect = wrong[taken % len(wrong)]
            name, taken = f"{source.name}_{i:03d}", taken + 1
        else:
            expect = "full" if kind == "ref" else "passes"  # the docstring says why
            source, name = honest[kind], f"{kind}_{i:03d}"
        shutil.copytree(source, out / name)
        with open(out / name / LAB_FILE, "a", encoding="utf-8") as f:
            f.write(f"\n// {name}\n")
        expected[name] = expect
    return expected


def verdict(expect: str, row: dict[str, str] | None) -> tuple[str, bool]:
    """What the class table says for one student, and whether it is what was expected."""
    if row is None:
        return "missing from class.csv", False
    status, score, failures = row["status"], row.get(LAB, ""), row.get("failures", "")
    got = f"{status}, {LAB} {score}/{MAX}"
    if expect == "not a submission":
        return got, status == "not a submission"
    if status != "graded" or not score:
        return f"{got}: {failures[:120]}", False
    points = float(score)
    if expect == "full":
        return got, points == MAX
    if expect == "passes":
        return f"{got}: {failures[:120]}" if failures else got, points > 0 and not failures
    if expect == "zero":
        return got, points == 0
    reason = expect.split(":", 1)[1]
    found = re.search(reason, failures)
    shown = failures[found.start() : found.start() + 100] if found else failures[:100]
    return f"{got}: {shown}", points < MAX and found is not None


def check(out: Path, report: Path) -> int:
    """The table student | expected | got | ok; 1 when a row is not as expected."""
    expected = json.loads((out / EXPECTED_FILE).read_text())
    with open(report / "class.csv", newline="", encoding="utf-8") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    print("| student | expected | class table | as expected |\n| --- | --- | --- | --- |")
    bad = 0
    for student, expect in expected.items():
        got, ok = verdict(expect, rows.get(student))
        bad += not ok
        cells = (student, expect, got, "yes" if ok else "NO")
        print("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    print(f"\n{len(expected) - bad} of {len(expected)} as expected")
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if len(argv) in (2, 3) and argv[0] == "make":
        out = Path(argv[1])
        size = argv[2] if len(argv) == 3 else str(BASE_SIZE)
        if not size.isdigit() or int(size) < BASE_SIZE:
            print(
                f"sample_class: SIZE must be a whole number of at least {BASE_SIZE}, not {size!r}",
                file=sys.stderr,
            )
            return 2
        if out.exists():
            print(f"sample_class: {out} exists; give a new folder", file=sys.stderr)
            return 2
        print(f"sample_class: {len(make(out, int(size)))} folders in {out}")
        return 0
    if len(argv) == 3 and argv[0] == "check":
        return check(Path(argv[1]), Path(argv[2]))
    print("usage: sample_class.py make OUTDIR [SIZE] | check OUTDIR REPORT", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
