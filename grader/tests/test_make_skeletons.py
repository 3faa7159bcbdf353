"""The skeletons and their masters: scripts/make_skeletons.sh (unifdef) writes each
skeletons/labN_topic/*.cu from solutions/labN_topic/*.cu, and the known-wrong
generators read the solution's side of the same masters (solution_source.py).
The script's tests need unifdef and are skipped without it; CI installs it."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "make_skeletons.sh"
MASTERS = sorted((REPO / "solutions").glob("lab*_*/*.cu"))
needs_unifdef = pytest.mark.skipif(shutil.which("unifdef") is None, reason="unifdef not installed")


def _solution_text() -> Callable[[str, str], str]:
    path = REPO / "submissions" / "known_wrong" / "solution_source.py"
    spec = importlib.util.spec_from_file_location("solution_source", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return cast(Callable[[str, str], str], module.solution_text)


solution_text = _solution_text()

MASTER = """\
#if LAB_SKELETON  // a note for the master's readers only
// skeleton: your kernel
#else
// solution: the kernel
#endif
#include "x.cuh"

#if !LAB_SKELETON
__device__ int helper() { return 1; }
#endif

__global__ void kernel(int* out) {
#if LAB_SKELETON
  // TODO
#else
#ifdef EXTRA
  out[1] = 0;
#endif
  out[0] = helper();
#endif
}
"""
SKELETON = """\
// skeleton: your kernel
#include "x.cuh"

__global__ void kernel(int* out) {
  // TODO
}
"""
SOLUTION = """\
// solution: the kernel
#include "x.cuh"

__device__ int helper() { return 1; }

__global__ void kernel(int* out) {
#ifdef EXTRA
  out[1] = 0;
#endif
  out[0] = helper();
}
"""


def _repo(tmp_path: Path, master: str = MASTER, skeleton: str | None = SKELETON) -> Path:
    """A repository with the script and one lab, lab9_demo."""
    (tmp_path / "scripts").mkdir()
    shutil.copy2(SCRIPT, tmp_path / "scripts" / SCRIPT.name)
    (tmp_path / "solutions" / "lab9_demo").mkdir(parents=True)
    (tmp_path / "solutions" / "lab9_demo" / "demo.cu").write_text(master)
    (tmp_path / "skeletons" / "lab9_demo").mkdir(parents=True)
    (tmp_path / "skeletons" / "lab9_demo" / "REPORT.md").write_text("## Question\n")
    if skeleton is not None:
        (tmp_path / "skeletons" / "lab9_demo" / "demo.cu").write_text(skeleton)
    return tmp_path


def _run(
    repo: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, str(repo / "scripts" / SCRIPT.name), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


@needs_unifdef
def test_the_committed_skeletons_are_what_their_masters_generate() -> None:
    done = _run(REPO, "--check")
    assert done.returncode == 0, done.stderr
    assert f"{len(MASTERS)} skeletons match their masters" in done.stdout


def test_every_master_has_regions_and_no_skeleton_ships_one() -> None:
    assert MASTERS
    for master in MASTERS:
        assert "#if LAB_SKELETON" in master.read_text(), master
        skeleton = REPO / "skeletons" / master.relative_to(REPO / "solutions")
        assert "LAB_SKELETON" not in skeleton.read_text(), skeleton


@needs_unifdef
def test_check_names_the_file_shows_the_diff_and_changes_nothing(tmp_path: Path) -> None:
    stale = SKELETON.replace("// TODO", "// TODO: old hint")
    repo = _repo(tmp_path, skeleton=stale)
    done = _run(repo, "--check")
    assert done.returncode == 1
    assert "skeletons/lab9_demo/demo.cu differs" in done.stderr
    assert "-  // TODO: old hint\n+  // TODO\n" in done.stderr
    assert (repo / "skeletons" / "lab9_demo" / "demo.cu").read_text() == stale


@needs_unifdef
def test_writing_touches_only_the_generated_sources(tmp_path: Path) -> None:
    repo = _repo(tmp_path, skeleton=None)
    done = _run(repo)
    assert done.returncode == 0, done.stderr
    assert (repo / "skeletons" / "lab9_demo" / "demo.cu").read_text() == SKELETON
    assert (repo / "skeletons" / "lab9_demo" / "REPORT.md").read_text() == "## Question\n"
    assert (repo / "solutions" / "lab9_demo" / "demo.cu").read_text() == MASTER
    assert sorted(p.name for p in (repo / "skeletons" / "lab9_demo").iterdir()) == [
        "REPORT.md",
        "demo.cu",
    ]
    assert _run(repo, "--check").returncode == 0


@needs_unifdef
@pytest.mark.parametrize(
    ("master", "reason"),
    [
        ("int f();\n", "has no #if LAB_SKELETON region"),
        (
            "#if LAB_SKELETON && FOO\nint f();\n#endif\n#if LAB_SKELETON\nint g();\n#endif\n",
            "a LAB_SKELETON condition unifdef left",
        ),
        ("#if LAB_SKELETON\nint f();\n", "unifdef could not process"),
    ],
)
def test_a_master_it_cannot_use_is_refused_and_nothing_is_written(
    tmp_path: Path, master: str, reason: str
) -> None:
    repo = _repo(tmp_path, master=master)
    done = _run(repo)
    assert done.returncode != 0 and reason in done.stderr
    assert (repo / "skeletons" / "lab9_demo" / "demo.cu").read_text() == SKELETON


@needs_unifdef
def test_a_skeleton_without_a_master_is_an_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "skeletons" / "lab9_demo" / "orphan.cu").write_text("// no master\n")
    done = _run(repo, "--check")
    assert done.returncode == 1 and "orphan.cu has no master" in done.stderr


def test_without_unifdef_it_says_so(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dirname = shutil.which("dirname")
    assert dirname is not None
    os.symlink(dirname, bin_dir / "dirname")
    done = _run(repo, "--check", env={"PATH": str(bin_dir)})
    assert done.returncode == 2 and "unifdef not found" in done.stderr


def test_the_solution_side_of_a_master() -> None:
    assert solution_text(MASTER, "demo.cu") == SOLUTION


@needs_unifdef
@pytest.mark.parametrize("master", MASTERS, ids=[m.parent.name for m in MASTERS])
def test_the_solution_side_is_what_unifdef_keeps(master: Path) -> None:
    unifdef = subprocess.run(
        ["unifdef", "-x", "2", "-ULAB_SKELETON", str(master)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert solution_text(master.read_text(), str(master)) == unifdef.stdout


@pytest.mark.parametrize(
    ("master", "reason"),
    [
        ("#ifdef LAB_SKELETON\n#endif\n", "not a region"),
        ("#if LAB_SKELETON\n#if !LAB_SKELETON\n#endif\n#endif\n", "a region inside"),
        ("#if LAB_SKELETON\n#elif X\n#endif\n", "#elif"),
        ("#if LAB_SKELETON\n#else\n#else\n#endif\n", "a second #else"),
        ("int a;\n#if !LAB_SKELETON\nint b;\n", "demo.cu:2: the region opened here"),
    ],
)
def test_the_solution_side_refuses_other_forms(master: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        solution_text(master, "demo.cu")
