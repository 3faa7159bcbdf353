"""`collect` and `gradebook` on made-up student repositories: the last commit before
each student's due time (extensions, late window), days late, links refused, and
the gradebook's late penalty, roster and refusals."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from grader.classroom.gradebook import gradebook_rows, read_roster
from grader.core.errors import GraderUsageError
from grader.tests.helpers import run_grader

FILE = Path("skeletons") / "lab1_histogram" / "histogram_kernels.cu"
POLICY = {
    "due": "2026-12-01T23:59:00+00:00",
    "late_days": 2,
    "penalty_per_day": 0.25,
    "extensions": {"bob": 1},
}


def _git(repo: Path, *args: str, date: str = "") -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "s",
        "GIT_AUTHOR_EMAIL": "s@x",
        "GIT_COMMITTER_NAME": "s",
        "GIT_COMMITTER_EMAIL": "s@x",
    }
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)


def _repo(root: Path, name: str, commits: list[tuple[str, str]]) -> Path:
    repo = root / "repos" / name
    (repo / FILE).parent.mkdir(parents=True)
    _git(repo, "init", "-q")
    for date, text in commits:
        (repo / FILE).write_text(text)
        _git(repo, "add", ".")
        _git(repo, "commit", "-q", "-m", text, date=date)
    return repo


def _collect(root: Path, policy: object) -> subprocess.CompletedProcess[str]:
    """`collect` of ROOT/repos with `policy` into ROOT/class."""
    (root / "repos").mkdir(exist_ok=True)
    (root / "policy.json").write_text(json.dumps(policy))
    args = ["--policy", str(root / "policy.json"), "--out", str(root / "class")]
    return run_grader("collect", str(root / "repos"), *args, cwd=root)


@pytest.fixture()
def collected(tmp_path: Path) -> Path:
    _repo(
        tmp_path,
        "ann",
        [("2026-11-30T10:00:00+00:00", "ann v1"), ("2026-12-05T10:00:00+00:00", "ann too late")],
    )
    _repo(tmp_path, "bob", [("2026-12-02T12:00:00+00:00", "bob in his extension")])
    _repo(tmp_path, "cid", [("2026-12-02T08:00:00+00:00", "cid one day late")])
    _repo(tmp_path, "dee", [("2026-12-10T08:00:00+00:00", "dee after the window")])
    proc = _collect(tmp_path, POLICY)
    assert proc.returncode == 0, proc.stderr
    return tmp_path / "class"


def test_each_student_gets_the_last_commit_before_their_due_time(collected: Path) -> None:
    kernels = Path("lab1_histogram") / "histogram_kernels.cu"
    assert (collected / "ann" / kernels).read_text() == "ann v1"
    assert (collected / "bob" / kernels).read_text() == "bob in his extension"
    assert (collected / "cid" / kernels).read_text() == "cid one day late"
    assert not (collected / "dee").exists()
    doc = json.loads((collected / "collected.json").read_text())
    by = {s["student"]: s for s in doc["students"]}
    assert [by[s]["days_late"] for s in ("ann", "bob", "cid")] == [0, 0, 1]
    assert len(by["ann"]["commit"]) == 40
    assert by["dee"]["problem"].startswith("no commit before 2026-12-03T23:59:00")


def test_a_link_in_the_tree_refuses_the_submission(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "eve", [("2026-11-30T10:00:00+00:00", "eve")])
    (repo / FILE).unlink()
    (repo / FILE).symlink_to("/etc/hostname")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "link", date="2026-11-30T11:00:00+00:00")
    proc = _collect(tmp_path, POLICY)
    assert proc.returncode == 0
    assert "histogram_kernels.cu is not a regular file or folder: refused" in proc.stdout
    assert not (tmp_path / "class" / "eve").exists()


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ({"due": "2026-12-01T23:59:00"}, "'due' needs a UTC offset"),
        ({"due": "soon"}, "'due' must be an ISO 8601"),
        ({"due": "2026-12-01T23:59:00+00:00", "late_days": 1.5}, "'late_days' must be a whole"),
        ({"due": "2026-12-01T23:59:00+00:00", "penalty_per_day": 2}, "between 0 and 1"),
        ({"due": "2026-12-01T23:59:00+00:00", "extension": {}}, "unknown field(s) extension"),
        # The message of every JSON file a user hands the grader (lab.json's too).
        ([], "policy.json: not a valid deadline policy (not a JSON object)"),
    ],
)
def test_a_bad_policy_is_a_usage_error(tmp_path: Path, policy: object, message: str) -> None:
    proc = _collect(tmp_path, policy)
    assert proc.returncode == 2 and message in proc.stderr


def test_collect_never_writes_into_a_folder_that_holds_something(tmp_path: Path) -> None:
    (tmp_path / "repos").mkdir()
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "keep.txt").write_text("mine")
    proc = _collect(tmp_path, POLICY)
    assert proc.returncode == 2 and "not an empty folder" in proc.stderr
    assert (tmp_path / "class" / "keep.txt").read_text() == "mine"


def test_a_path_no_repository_has_is_refused(tmp_path: Path) -> None:
    """--path nosuch collected 0 of 2 and exited 0."""
    for name in ("ann", "bob"):
        _repo(tmp_path, name, [("2026-11-30T10:00:00+00:00", name)])
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    args = ["--policy", str(tmp_path / "policy.json"), "--out", str(tmp_path / "class")]
    proc = run_grader("collect", str(tmp_path / "repos"), *args, "--path", "nosuch", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("grader: error: --path nosuch: no repository in ")
    assert not (tmp_path / "class").exists()
    # A path one student lacks is that student's problem, not a usage error.
    (tmp_path / "repos" / "bob" / "nosuch").mkdir()
    (tmp_path / "repos" / "bob" / "nosuch" / "a.cu").write_text("b")
    _git(tmp_path / "repos" / "bob", "add", ".")
    _git(tmp_path / "repos" / "bob", "commit", "-q", "-m", "b", date="2026-11-30T11:00:00+00:00")
    proc = run_grader("collect", str(tmp_path / "repos"), *args, "--path", "nosuch", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "grader: ann: no nosuch/ in " in proc.stdout and "1 of 2 collected" in proc.stdout
    assert (tmp_path / "class" / "bob" / "a.cu").read_text() == "b"


def test_the_gradebook_applies_the_late_penalty_and_the_roster(collected: Path) -> None:
    report = collected.parent / "report"
    report.mkdir()
    (report / "class.csv").write_text(
        "student,status,lab1,total,max,failures,gpu,seconds\n"
        "ann,graded,100,100,120,,H100,30\n"
        "cid,graded,80,80,120,,H100,30\n"
        "zed,graded,10,10,120,,H100,30\n"
    )
    roster = collected.parent / "roster.csv"
    roster.write_text("folder,student_id,name\nann,1001,Ann\ncid,1003,Cid\ndee,1004,Dee\n")
    args = [
        "gradebook",
        "--class-report",
        str(report),
        "--roster",
        str(roster),
        "--collected",
        str(collected / "collected.json"),
    ]
    proc = run_grader(*args, cwd=collected.parent)
    assert proc.returncode == 0, proc.stderr
    assert "zed was graded but is not on the roster" in proc.stderr
    lines = (report / "gradebook.csv").read_text().splitlines()
    assert lines == [
        "student_id,name,folder,lab1,total,max,days_late,final,note",
        "1001,Ann,ann,100,100,120,0,100,",
        "1003,Cid,cid,80,80,120,1,60,",
        "1004,Dee,dee,0,0,,0,0,no commit before 2026-12-03T23:59:00+00:00",
    ]
    again = run_grader(*args, cwd=collected.parent)
    assert again.returncode == 2 and "exists" in again.stderr


def test_a_pair_shares_a_folder_and_a_student_listed_twice_is_refused(tmp_path: Path) -> None:
    """A pair hands in one folder, named on a roster line per member: each gets its grade."""
    roster = tmp_path / "roster.csv"
    roster.write_text("folder,student_id\nann,1001\nbob,1002\nbob,1001\n")
    with pytest.raises(GraderUsageError, match=r"line 4: student 1001 listed twice"):
        read_roster(roster)
    roster.write_text("folder,student_id,name\nann,1001,Ann\npair7,1002,Bo\npair7,1003,Cy\n")
    entries = read_roster(roster)
    assert [e.folder for e in entries] == ["ann", "pair7", "pair7"]
    table = {
        "ann": {"status": "graded", "lab1": "90", "total": "90", "max": "100"},
        "pair7": {"status": "graded", "lab1": "75", "total": "75", "max": "100"},
    }
    rows = gradebook_rows(entries, ["lab1"], table, {}, 0.0)
    assert [r[:5] for r in rows[2:]] == [
        ["1002", "Bo", "pair7", "75", "75"],
        ["1003", "Cy", "pair7", "75", "75"],
    ]
    # The written half's marks (written_answers.read_marks): a column of their own.
    marked = gradebook_rows(entries, ["lab1"], table, {}, 0.0, {"pair7": 12.5})
    assert marked[0][-2:] == ["written", "note"]
    assert [r[-2] for r in marked[1:]] == ["0", "12.50", "12.50"]
