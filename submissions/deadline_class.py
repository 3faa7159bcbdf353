"""A class at the deadline: student repositories with dated commits, a late policy
with an extension, a roster, and a check of what `collect`, `batch`, `gradebook`,
`leaderboard` and `similarity` make of them (scripts/deadline-class.sh runs them).

    python3 submissions/deadline_class.py make OUTDIR    # OUTDIR/repos, deadline.json, roster.csv
    python3 submissions/deadline_class.py check OUTDIR   # reads OUTDIR/class, report, similarity

Labs 1 and 3. Each lab file is written by one student, except dan's lab1, a
renamed and reformatted copy of ana's that similarity must rank first:
  ana   lab1 (on time); a later push after the late window is not collected
  ben   lab3, a day and a half past due, inside his two-day extension: not late
  cleo  lab3, deliberately slow (submissions/slow): partial timing credit, 1 day late
  dan   lab1, ana's copy, on time
  eve   the skeleton on time; the reference only after the late window: zero
  finn  on the roster, no repository: a gradebook row saying so
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "submissions" / "known_wrong"))

from solution_source import read_solution  # noqa: E402

LAB1, LAB3 = "lab1_histogram", "lab3_reduction"
LAB1_FILE = f"{LAB1}/histogram_kernels.cu"
POLICY = {
    "due": "2026-11-01T23:59:00+00:00",
    "late_days": 3,
    "penalty_per_day": 0.1,
    "extensions": {"ben": 2},
}
ROSTER = [("ana", "s1001"), ("ben", "s1002"), ("cleo", "s1003"), ("dan", "s1004")]
ROSTER += [("eve", "s1005"), ("finn", "s1006")]
# Local names of ana's lab1 that dan's copy renames (word-bounded, none is a contract name).
RENAMES = {"histo": "sh_counts", "occurrences": "hits", "pos": "first", "per_warp": "warp_bins"}
FULL = 100.0  # every lab.json's score groups add up to 100
SALT = "deadline-class"  # scripts/deadline-class.sh's leaderboard --salt: pseudonyms checkable


def _git(repo: Path, *args: str, date: str = "") -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": repo.name, "GIT_COMMITTER_NAME": repo.name}
    env |= {"GIT_AUTHOR_EMAIL": f"{repo.name}@class", "GIT_COMMITTER_EMAIL": f"{repo.name}@class"}
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


def _commit(repo: Path, tree: Path, date: str, message: str) -> None:
    """Make repo's skeletons/ exactly `tree` and commit it at `date`."""
    shutil.rmtree(repo / "skeletons", ignore_errors=True)
    shutil.copytree(tree, repo / "skeletons")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message, date=date)


def _tree(root: Path, name: str, labs: dict[str, Path]) -> Path:
    """The skeletons with the given labs' folders taken from other trees."""
    out = root / "trees" / name
    shutil.copytree(REPO / "skeletons", out)
    for lab, source in labs.items():
        shutil.rmtree(out / lab)
        shutil.copytree(source / lab, out / lab)
    return out


def near_copy(text: str) -> str:
    """A student's copy of `text`: comments gone, names changed, indentation doubled."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"(?m)^\s*//.*\n", "", text)
    text = re.sub(r"\s+//.*", "", text)
    for old, new in RENAMES.items():
        text = re.sub(rf"\b{old}\b", new, text)
    text = re.sub(r"(?m)^( +)", lambda m: m.group(1) * 2, text)
    return "// lab1, my own kernels\n" + text


def make(out: Path) -> None:
    repos, work = out / "repos", out / "work"
    repos.mkdir(parents=True)
    slow = work / "slow"
    subprocess.run(
        [sys.executable, str(REPO / "submissions/slow/make_slow.py"), str(slow)],
        check=True,
        cwd=REPO,
        capture_output=True,
    )
    solutions, skeletons = REPO / "solutions", REPO / "skeletons"
    # ana's lab1 is the reference as a student would hand it in (the master resolved),
    # dan's is ana's, renamed and reformatted.
    written, copied = work / "ana-lab1", work / "dan-lab1"
    for folder, edit in ((written, str), (copied, near_copy)):
        shutil.copytree(solutions / LAB1, folder / LAB1)
        text = read_solution(solutions / LAB1_FILE)
        (folder / LAB1_FILE).write_text(edit(text), encoding="utf-8")

    trees = {
        "skeleton": skeletons,
        "ana": _tree(work, "ana", {LAB1: written}),
        "ben": _tree(work, "ben", {LAB3: solutions}),
        "cleo": _tree(work, "cleo", {LAB3: slow}),
        "dan": _tree(work, "dan", {LAB1: copied}),
        "eve": _tree(work, "eve", {LAB1: solutions, LAB3: solutions}),
    }
    commits = {
        "ana": [("2026-10-30T10:00:00+00:00", "skeleton", "start"),
                ("2026-11-01T20:00:00+00:00", "ana", "lab1 done"),
                ("2026-11-09T09:00:00+00:00", "skeleton", "after the window")],
        "ben": [("2026-11-03T12:00:00+00:00", "ben", "lab3, in my extension")],
        "cleo": [("2026-11-02T10:00:00+00:00", "cleo", "lab3, one day late")],
        "dan": [("2026-11-01T22:00:00+00:00", "dan", "lab1 done")],
        "eve": [("2026-11-01T12:00:00+00:00", "skeleton", "start"),
                ("2026-11-06T08:00:00+00:00", "eve", "after the window")],
    }  # fmt: skip
    for student, history in commits.items():
        repo = repos / student
        repo.mkdir()
        _git(repo, "init", "-q")
        for date, tree, message in history:
            _commit(repo, trees[tree], date, message)
    (out / "deadline.json").write_text(json.dumps(POLICY, indent=1) + "\n")
    with open(out / "roster.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["folder", "student_id", "name"])
        writer.writerows((folder, sid, folder.title()) for folder, sid in ROSTER)
    shutil.rmtree(work)


def pseudonym(student: str) -> str:
    """The leaderboard's pseudonym (grader/classroom/class_leaderboard.py) under SALT."""
    digest = hashlib.blake2b(f"{SALT}\0{student}".encode(), digest_size=4).hexdigest()
    return "anon-" + digest


def _rows(path: Path, key: str) -> dict[str, dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return {row[key]: row for row in csv.DictReader(f)}


class Checks:
    """Each expectation, as a table row: what, expected, got, ok."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, bool]] = []

    def __call__(self, what: str, expected: str, got: object, ok: bool) -> None:
        self.rows.append((what, expected, str(got), ok))

    def print(self) -> int:
        print("| check | expected | got | ok |\n| --- | --- | --- | --- |")
        for what, expected, got, ok in self.rows:
            cells = (what, expected, got, "yes" if ok else "NO")
            print("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        bad = sum(not ok for *_, ok in self.rows)
        print(f"\n{len(self.rows) - bad} of {len(self.rows)} as expected")
        return 1 if bad else 0


def _subject(repo: Path, commit: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "log", "-1", "--format=%s", commit],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()


def _on_hidden_data(results: Path) -> bool | None:
    """Whether a grading ran on hidden data; None when it wrote no results."""
    if not results.is_file():
        return None
    return bool(json.loads(results.read_text())["extra_data"]["hidden_data"])


def check(out: Path) -> int:
    c = Checks()
    collected = json.loads((out / "class" / "collected.json").read_text())
    students = {s["student"]: s for s in collected["students"]}
    for student, subject, late in [
        ("ana", "lab1 done", 0),
        ("ben", "lab3, in my extension", 0),
        ("cleo", "lab3, one day late", 1),
        ("dan", "lab1 done", 0),
        ("eve", "start", 0),
    ]:
        got = students.get(student, {})
        commit = str(got.get("commit", ""))
        seen = (
            _subject(out / "repos" / student, commit) if commit else "none",
            got.get("days_late"),
        )
        c(f"collect {student}", f"'{subject}', {late} days late", seen, seen == (subject, late))

    report = out / "report"
    table = _rows(report / "class.csv", "student")
    scores = {
        s: {lab: float(r.get(lab) or 0) for lab in ("lab1", "lab3")} for s, r in table.items()
    }
    want = {"ana": (FULL, 0), "ben": (0, FULL), "dan": (FULL, 0), "eve": (0, 0)}
    for student, (lab1, lab3) in want.items():
        got = scores.get(student)
        c(
            f"batch {student}",
            f"lab1 {lab1:g}, lab3 {lab3:g}",
            got,
            got == {"lab1": lab1, "lab3": lab3},
        )
    cleo = scores.get("cleo", {"lab1": -1.0, "lab3": -1.0})
    ok = cleo["lab1"] == 0 and FULL - 40 < cleo["lab3"] < FULL
    c("batch cleo (slow)", "lab1 0, 60 < lab3 < 100", cleo, ok)

    book = _rows(report / "gradebook.csv", "folder")
    c(
        "gradebook rows",
        "one per roster line",
        sorted(book),
        sorted(book) == sorted(f for f, _ in ROSTER),
    )
    for folder, row in book.items():
        total, late = float(row.get("total") or 0), int(row.get("days_late") or 0)
        final = total * max(0.0, 1 - POLICY["penalty_per_day"] * late)  # type: ignore[operator]
        got_final = float(row.get("final") or 0)
        c(
            f"gradebook {folder}",
            f"final {final:.2f}",
            f"{got_final:.2f} ({late} late)",
            abs(got_final - final) < 0.01,
        )
    hidden = {s: _on_hidden_data(report / s / "results.json") for s in table}
    c("hidden data", "every student graded on it", hidden, set(hidden.values()) == {True})
    finn = book.get("finn", {})
    c(
        "gradebook finn",
        "a note, no score",
        (finn.get("note"), finn.get("total")),
        bool(finn.get("note")) and float(finn.get("total") or 0) == 0,
    )

    board = json.loads((report / "leaderboard.json").read_text())
    text = json.dumps(board) + (report / "leaderboard.md").read_text()
    named = [s for s, _ in ROSTER if re.search(rf"\b{s}\b", text)]
    c("leaderboard anonymised", "no student named", named or "none", not named)
    png = report / "leaderboard.png"
    c(
        "leaderboard.png",
        "a PNG",
        png.stat().st_size if png.is_file() else "missing",
        png.is_file() and png.read_bytes()[:4] == b"\x89PNG",
    )
    figure = board.get("lab3 unrolling8 / interleaved", [])
    order = [e["student"] for e in figure]
    ranks = [pseudonym("ben"), pseudonym("cleo")]
    c("leaderboard lab3 unrolling8", "ben's pseudonym, then cleo's", order, order == ranks)

    similar = (out / "similarity" / "similarity.md").read_text()
    first = re.search(r"^\| 1 \| (\S+) \| (\S+) \| (\S+) \| (\S+) \| (\S+) \|", similar, re.M)
    pair = (first.group(1), {first.group(2), first.group(3)}) if first else None
    c(
        "similarity rank 1",
        f"{LAB1_FILE}: ana, dan",
        first.group(0) if first else "no row",
        pair == (LAB1_FILE, {"ana", "dan"}),
    )
    return c.print()


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "make":
        out = Path(argv[1])
        if out.exists():
            print(f"deadline_class: {out} exists; give a new folder", file=sys.stderr)
            return 2
        make(out)
        print(f"deadline_class: {len(ROSTER) - 1} repositories in {out / 'repos'}")
        return 0
    if len(argv) == 2 and argv[0] == "check":
        return check(Path(argv[1]))
    print("usage: deadline_class.py make OUTDIR | check OUTDIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
