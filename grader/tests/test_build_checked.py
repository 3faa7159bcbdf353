"""The grader links a lab only after its objects passed the check: linking runs
student code (gtest_discover_tests runs each program to list its cases)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from grader.core.build import build_checked, checked_build_target
from grader.tests.helpers import make_repo

needs_ninja = pytest.mark.skipif(
    shutil.which("cmake") is None or shutil.which("ninja") is None, reason="needs cmake and ninja"
)


def _lab(repo: Path, folder: str, lab: str) -> None:
    """A lab whose objects are a file and whose program, when linked, leaves a mark."""
    (repo / "labs" / folder / "CMakeLists.txt").write_text(
        f"add_custom_target({lab}_impl COMMAND ${{CMAKE_COMMAND}} -E touch "
        f"${{CMAKE_BINARY_DIR}}/{lab}.o)\n"
        f"add_custom_target({lab}_program ALL COMMAND ${{CMAKE_COMMAND}} -E touch "
        f"${{CMAKE_BINARY_DIR}}/{lab}-ran)\n"
        f"add_dependencies({lab}_program {lab}_impl)\n",
        encoding="utf-8",
    )


@needs_ninja
def test_a_lab_the_check_rejects_is_compiled_but_never_linked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"lab1_one": None, "lab2_two": None})
    (repo / "solutions").mkdir()
    (repo / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(cuda_labs NONE)\n"
        "add_subdirectory(labs/common)\nadd_subdirectory(labs/lab1_one)\n"
        "add_subdirectory(labs/lab2_two)\n",
        encoding="utf-8",
    )
    (repo / "labs" / "common" / "CMakeLists.txt").write_text("")
    _lab(repo, "lab1_one", "lab1")
    _lab(repo, "lab2_two", "lab2")
    build = tmp_path / "build"
    seen: list[set[str]] = []

    def check(labs: Sequence[str], log: str) -> dict[str, list[str]]:
        seen.append(
            {p.name for p in build.iterdir() if p.suffix == ".o" or p.name.endswith("-ran")}
        )
        assert f"touch {build}/lab1.o" in log  # the compile's output: its errors, if any
        return {"lab1": ["constructor: runs code before main"]} if "lab1" in labs else {}

    log, failure, rejected = build_checked(
        repo, "solutions", build, ["lab1", "lab2"], [], check, sandbox="off"
    )
    assert failure is None, log
    assert seen == [{"lab1.o", "lab2.o"}]  # both compiled, nothing linked yet
    assert rejected == {"lab1": ["constructor: runs code before main"]}
    assert (build / "lab2-ran").exists() and not (build / "lab1-ran").exists()
    # A folder the grader configured is one it may configure again; no other build is.
    assert checked_build_target(build, repo / "solutions", repo) == build
