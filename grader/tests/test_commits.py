"""The graded and harness commits that results.json records."""

from __future__ import annotations

import subprocess
from pathlib import Path

from grader.core.commits import checkout_of


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_a_folder_outside_git_has_no_commit(tmp_path: Path) -> None:
    assert checkout_of(tmp_path) == {"commit": None, "clean": None}
    assert checkout_of(tmp_path / "missing") == {"commit": None, "clean": None}
    assert checkout_of(None) == {"commit": None, "clean": None}


def test_a_checkout_names_its_commit_and_whether_the_folder_matches_it(tmp_path: Path) -> None:
    student = tmp_path / "skeletons"
    student.mkdir()
    (student / "kernel.cu").write_text("// v1\n")
    _git(tmp_path, "init", "-q")
    assert checkout_of(student) == {"commit": None, "clean": None}  # no commit yet
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "v1")
    head = _git(tmp_path, "rev-parse", "HEAD")
    assert checkout_of(student) == {"commit": head, "clean": True}
    (tmp_path / "elsewhere.txt").write_text("outside the graded folder\n")
    assert checkout_of(student) == {"commit": head, "clean": True}
    (student / "new.cu").write_text("// untracked\n")
    assert checkout_of(student) == {"commit": head, "clean": False}
