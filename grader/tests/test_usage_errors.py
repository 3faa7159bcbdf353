"""Usage errors of the command line: one line naming the culprit, exit 2, no traceback.

Runs without a GPU or a compiler: every error here is found before anything builds.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from grader.core.build import GRADER_TREE_MARK, check_built_from, checked_build_target
from grader.core.discovery import checked_repo, parse_lab_list
from grader.core.errors import GraderUsageError
from grader.tests.helpers import run_grader

REPO = Path(__file__).resolve().parents[2]


def _grader(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_grader(*args, cwd=cwd)


def _one_usage_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The single error line of a usage error, after checking exit 2 and no traceback."""
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("grader: error: ")
    return lines[0]


@pytest.mark.parametrize("text", ["", " ", ",", " , "])
def test_an_empty_lab_list_is_an_error_never_every_lab(text: str) -> None:
    with pytest.raises(GraderUsageError, match="names no lab: give lab ids such as lab1,lab3"):
        parse_lab_list(text)


def test_checked_repo_says_what_the_folder_lacks(tmp_path: Path) -> None:
    with pytest.raises(GraderUsageError, match="no such folder, so no labs/"):
        checked_repo(tmp_path / "nonexistent")
    with pytest.raises(GraderUsageError, match="the repository has no labs/ folder"):
        checked_repo(tmp_path)
    (tmp_path / "labs").mkdir()
    with pytest.raises(GraderUsageError, match="its labs/ folder holds no lab"):
        checked_repo(tmp_path)
    (tmp_path / "labs" / "lab1_histogram").mkdir()
    assert checked_repo(tmp_path) == tmp_path.resolve()


# Every command that takes --labs: '' is refused before the command starts any work
# (grade would otherwise build every lab first, then grade them all).
@pytest.mark.parametrize(
    "command",
    [
        ("grade", "--build", "B"),
        ("grade", "--impl", "skeletons"),
        ("check", "--impl", "skeletons"),
        ("known-wrong", "--static-only"),
        ("batch", "SUBMISSIONS", "--report", "R"),
    ],
)
def test_empty_labs_is_a_usage_error_everywhere(tmp_path: Path, command: tuple[str, ...]) -> None:
    line = _one_usage_line(_grader(*command, "--labs", "", cwd=tmp_path))
    assert line == (
        "grader: error: --labs '' names no lab: give lab ids such as lab1,lab3, "
        "or leave --labs out for every lab"
    )
    assert not (tmp_path / "R").exists() and not list(tmp_path.glob("build-grade-*"))


@pytest.mark.parametrize("scale", ["nan", "inf", "0"])
@pytest.mark.parametrize(
    "command",
    [
        ("grade", "--build", "B"),
        ("grade", "--impl", "skeletons"),
        ("batch", "SUBMISSIONS", "--report", "R"),
    ],
)
def test_a_timeout_scale_that_is_no_positive_number_is_refused_before_anything(
    tmp_path: Path, command: tuple[str, ...], scale: str
) -> None:
    line = _one_usage_line(_grader(*command, "--timeout-scale", scale, cwd=tmp_path))
    assert line == f"grader: error: --timeout-scale must be a positive finite number, got {scale}"
    assert not any(tmp_path.iterdir())


def test_check_with_a_missing_repo_blames_repo_not_impl(tmp_path: Path) -> None:
    line = _one_usage_line(
        _grader(
            "check", "--impl", "skeletons", "--repo", str(tmp_path / "nonexistent"), cwd=tmp_path
        )
    )
    assert line.startswith(f"grader: error: --repo {tmp_path / 'nonexistent'}: no such folder")
    assert "--impl" not in line


def test_check_with_a_repo_without_labs_blames_repo(tmp_path: Path) -> None:
    (tmp_path / "skeletons").mkdir()
    line = _one_usage_line(
        _grader("check", "--impl", "skeletons", "--repo", str(tmp_path), cwd=tmp_path)
    )
    assert "the repository has no labs/ folder" in line and "--impl" not in line


def test_a_folder_that_is_no_build_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    """`grade --build <not a build>` once ran ctest there, which wrote Testing/ into it,
    and left an empty ./grading-report/ behind; `--build FILE` said "does not exist"."""
    notes, plain, cwd = tmp_path / "notes", tmp_path / "plain", tmp_path / "cwd"
    notes.mkdir()
    (notes / "a.txt").write_text("mine")
    plain.write_text("x")
    cwd.mkdir()
    for command in (("grade",), ("probe",), ("check", "--impl", "skeletons")):
        line = _one_usage_line(_grader(*command, "--build", str(notes), cwd=cwd))
        assert line == (
            f"grader: error: build directory {notes} is not a build of cuda-labs (no "
            "CMakeCache.txt of project cuda_labs): give the folder CMake configured, "
            "e.g. build/student"
        )
        line = _one_usage_line(_grader(*command, "--build", str(plain), cwd=cwd))
        assert line == f"grader: error: build directory {plain} is not a folder"
    assert [p.name for p in notes.iterdir()] == ["a.txt"] and not any(cwd.iterdir())


def test_a_failed_grade_removes_only_the_empty_report_folder_it_made(tmp_path: Path) -> None:
    (tmp_path / "kept").mkdir()
    for report in ("a/b/report", "kept"):
        _one_usage_line(
            _grader("grade", "--build", str(tmp_path), "--report", report, cwd=tmp_path)
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept"]


def test_an_unknown_lab_folder_is_named_before_anything_builds(tmp_path: Path) -> None:
    """It was CMake's LAB_ONLY error, after a configure."""
    impl, cwd = tmp_path / "mine", tmp_path / "cwd"
    (impl / "lab1_histogram").mkdir(parents=True)
    (impl / "lab9_extra").mkdir()
    cwd.mkdir()
    for command in (("grade", "--build-dir", str(tmp_path / "b")), ("check",)):
        line = _one_usage_line(_grader(*command, "--impl", str(impl), cwd=cwd))
        assert line.startswith(
            f"grader: error: --impl {impl} holds lab9_extra/, an unknown lab: known labs are "
            "lab1, lab2, "
        )
        assert line.endswith(" (--labs picks some)")
    assert not (tmp_path / "b").exists() and not any(cwd.iterdir())


def test_a_build_dir_that_is_no_place_for_a_build_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    repo = REPO
    student = tmp_path / "student"
    (student / "lab1_histogram").mkdir(parents=True)
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine", encoding="utf-8")
    cases = {
        tmp_path / "afile": "is a file",
        repo: "is the repository itself",
        student: "inside the student's folder",
        student / "build": "inside the student's folder",
        tmp_path / "other": "holds files and is not a build",
    }
    for build_dir, why in cases.items():
        with pytest.raises(GraderUsageError, match=why):
            checked_build_target(build_dir, student, repo)
    assert not (student / "build").exists()
    assert checked_build_target(tmp_path / "new", student, repo) == tmp_path / "new"


def _build_of(build: Path, impl: str, grader_made: bool = True) -> Path:
    """A build folder configured with LAB_IMPL=`impl`, by the grader or not."""
    build.mkdir(parents=True)
    (build / "CMakeCache.txt").write_text(
        f"CMAKE_PROJECT_NAME:STATIC=cuda_labs\nLAB_IMPL:PATH={impl}\n", encoding="utf-8"
    )
    if grader_made:
        (build / GRADER_TREE_MARK).write_text("", encoding="utf-8")
    return build


def test_a_build_of_another_student_folder_is_refused(tmp_path: Path) -> None:
    build = _build_of(tmp_path / "build", str(tmp_path / "alice"))
    (tmp_path / "alice").mkdir()
    (tmp_path / "bob").mkdir()
    with pytest.raises(GraderUsageError, match="is a build of .*alice, not of .*bob"):
        check_built_from(build, tmp_path / "bob", REPO)
    with pytest.raises(GraderUsageError, match="is a build of"):
        checked_build_target(build, tmp_path / "bob", REPO)
    check_built_from(build, tmp_path / "alice", REPO)  # its own build is fine
    assert checked_build_target(build, tmp_path / "alice", REPO) == build


def test_a_build_the_grader_did_not_make_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """A student's own build/student, of the same folder: grading reconfigured it for
    another LAB_IMPL and LAB_ONLY, and undoing that took a 219 s rebuild."""
    own = _build_of(tmp_path / "build" / "student", "skeletons", grader_made=False)
    cache = (own / "CMakeCache.txt").read_text(encoding="utf-8")
    for impl in (REPO / "skeletons", tmp_path / "other"):
        with pytest.raises(GraderUsageError) as refused:
            checked_build_target(own, impl, REPO)
        assert str(refused.value) == (
            f"--build-dir {own} is a build the grader did not make (no {GRADER_TREE_MARK}): "
            "grading would configure it anew (LAB_IMPL, LAB_ONLY); give an empty or new "
            "folder, e.g. build/grading"
        )
    assert [p.name for p in own.iterdir()] == ["CMakeCache.txt"]
    assert (own / "CMakeCache.txt").read_text(encoding="utf-8") == cache
