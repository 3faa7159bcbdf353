"""The graded and harness commits that results.json records."""

from __future__ import annotations

from pathlib import Path

from grader.core.commits import checkout_of
from grader.tests.helpers import git


def test_a_folder_outside_git_has_no_commit(tmp_path: Path) -> None:
    assert checkout_of(tmp_path) == {"commit": None, "clean": None}
    assert checkout_of(tmp_path / "missing") == {"commit": None, "clean": None}
    assert checkout_of(None) == {"commit": None, "clean": None}


def test_a_checkout_names_its_commit_and_whether_the_folder_matches_it(tmp_path: Path) -> None:
    student = tmp_path / "skeletons"
    student.mkdir()
    (student / "kernel.cu").write_text("// v1\n")
    git(tmp_path, "init", "-q")
    assert checkout_of(student) == {"commit": None, "clean": None}  # no commit yet
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "v1")
    head = git(tmp_path, "rev-parse", "HEAD")
    assert checkout_of(student) == {"commit": head, "clean": True}
    (tmp_path / "elsewhere.txt").write_text("outside the graded folder\n")
    assert checkout_of(student) == {"commit": head, "clean": True}
    (student / "new.cu").write_text("// untracked\n")
    assert checkout_of(student) == {"commit": head, "clean": False}
