"""Build once per class: a build configured with -DLAB_PREBUILT=<another build>
compiles only the student's files and links the other build's fixed parts
(cmake/LabPrebuilt.cmake); `batch --build-once` builds those parts once.

The CMake tests configure only (no compile, no GPU) and read what Ninja would
compile from build.ninja.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from grader.classroom.batch import Submission
from grader.classroom.batch_steps import (
    FIXED_BUILD,
    BatchConfig,
    build_fixed_parts,
    build_submission,
)
from grader.core.build import BuildFailure, prebuilt_argument
from grader.core.errors import GraderUsageError

REPO = Path(__file__).resolve().parents[2]
# Two architectures: the record must keep a list as one value.
ARCH = "-DCMAKE_CUDA_ARCHITECTURES=86-real;90-real"

needs_cuda_cmake = pytest.mark.skipif(
    shutil.which("cmake") is None
    or shutil.which("ninja") is None
    or (shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists()),
    reason="cmake, ninja and nvcc are needed to configure",
)


def _configure(build: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja"]
        + ["-DCMAKE_BUILD_TYPE=Release", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _compiled_targets(build: Path, wrappers: bool = True) -> set[str]:
    """The targets whose sources `build` compiles: its build.ninja's compile edges.
    Without `wrappers`, leaving out the test programs' generated wrappers of the student's
    functions (cmake/student_wrappers.py), which follow the student's objects."""
    text = (build / "build.ninja").read_text(encoding="utf-8")
    edges = re.findall(r"^build (\S+\.o): \w+?_COMPILER__(\w+)_Release\b", text, re.M)
    return {t for o, t in edges if wrappers or not o.endswith("_student_calls.cpp.o")}


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build of lab1 and lab2 against the skeletons, configured only."""
    build = tmp_path_factory.mktemp("fixed") / "b"
    proc = _configure(build, ARCH, "-DLAB_IMPL=skeletons", "-DLAB_ONLY=lab1,lab2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return build


@needs_cuda_cmake
def test_a_student_build_on_prebuilt_parts_compiles_only_the_students_files(
    fixed: Path, tmp_path: Path
) -> None:
    fixed_targets = _compiled_targets(fixed)
    for target in ("labs_common", "lab1_harness", "lab1_correctness_test_objects"):
        assert target in fixed_targets
    assert (fixed / "lab_prebuilt.cmake").is_file()

    copy = tmp_path / "student"
    shutil.copytree(REPO / "skeletons", copy)
    build = tmp_path / "b"
    proc = _configure(
        build, ARCH, f"-DLAB_IMPL={copy}", "-DLAB_ONLY=lab1,lab2", prebuilt_argument(fixed)
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"cuda-labs: fixed parts linked from {fixed};" in proc.stdout
    assert _compiled_targets(build, wrappers=False) == {"lab1_impl", "lab2_impl"}
    ninja = (build / "build.ninja").read_text(encoding="utf-8")
    # The object check finds the student's objects as before (object_check.impl_objects).
    assert re.search(
        r"^build \S+/student/lab1_histogram/\S+\.o: CUDA_COMPILER__lab1_impl_", ninja, re.M
    )
    # Every program is still linked here, from the other build's objects.
    for program in ("lab1_correctness_test", "lab1_timing_test", "lab2_sum_matrix", "lab_gpu_info"):
        edge = re.search(rf"^build bin/{program}[ :].*$", ninja, re.M)
        assert edge is not None and str(fixed) in edge.group(0), program
    # A build that links others' parts records none of its own for a third.
    assert not (build / "lab_prebuilt.cmake").exists()


GTEST_SOURCES = next(
    (d for d in (REPO / ".deps" / "googletest", Path("/usr/src/googletest")) if d.is_dir()), None
)


@needs_cuda_cmake
@pytest.mark.skipif(GTEST_SOURCES is None, reason="no GoogleTest source tree")
def test_a_googletest_built_from_source_is_lent_too(tmp_path: Path) -> None:
    fixed = tmp_path / "fixed"
    proc = _configure(
        fixed,
        ARCH,
        "-DLAB_ONLY=lab1",
        "-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON",
        f"-DLAB_GTEST_SOURCE_DIR={GTEST_SOURCES}",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "gtest" in _compiled_targets(fixed)
    # The student's build may find an installed GoogleTest: it links the one the
    # test objects were compiled against all the same.
    build = tmp_path / "b"
    proc = _configure(build, ARCH, "-DLAB_ONLY=lab1", prebuilt_argument(fixed))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _compiled_targets(build, wrappers=False) == {"lab1_impl"}
    ninja = (build / "build.ninja").read_text(encoding="utf-8")
    edge = re.search(r"^build bin/lab1_correctness_test[ :].*$", ninja, re.M)
    assert edge is not None
    gtest = {word for word in edge.group(0).split() if word.endswith("libgtest.a")}
    assert gtest and all(word.startswith(f"{fixed}/") for word in gtest), gtest


@needs_cuda_cmake
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-DCMAKE_CUDA_ARCHITECTURES=86-real", "-DLAB_ONLY=lab1"), "CMAKE_CUDA_ARCHITECTURES"),
        ((ARCH, "-DLAB_ONLY=lab3"), "has no library lab3_harness"),
        ((ARCH, "-DLAB_ONLY=lab1", "-DLAB_IMPL=solutions"), "has no program lab1_reference_test"),
    ],
)
def test_prebuilt_parts_that_do_not_fit_are_refused(
    fixed: Path, tmp_path: Path, args: Sequence[str], message: str
) -> None:
    proc = _configure(tmp_path / "b", *args, prebuilt_argument(fixed))
    assert proc.returncode != 0
    assert message in " ".join(proc.stderr.split())


@needs_cuda_cmake
def test_prebuilt_needs_a_build_that_records_its_parts(tmp_path: Path) -> None:
    proc = _configure(tmp_path / "b", ARCH, "-DLAB_ONLY=lab1", prebuilt_argument(tmp_path))
    assert proc.returncode != 0
    assert f"no {tmp_path}/lab_prebuilt.cmake" in " ".join(proc.stderr.split())


# --- the grader's side (configure_and_build replaced) ------------------------------------------


def _config(tmp_path: Path, **fields: Any) -> BatchConfig:
    return BatchConfig(
        repo=tmp_path / "repo",
        labs=("lab1", "lab3"),
        report_root=tmp_path / "out",
        build_root=tmp_path / "builds",
        lab_max={},
        cmake_args=("-DX=1",),
        sanitize=False,
        **fields,
    )


class _Builds:
    """Stands in for configure_and_build: records each call, fails when told."""

    def __init__(self, failure: BuildFailure | None = None) -> None:
        self.calls: list[tuple[str, Path, tuple[str, ...]]] = []
        self.failure = failure

    def __call__(
        self, repo: Path, impl: str, build_dir: Path, cmake_args: Sequence[str] = (), **_: Any
    ) -> tuple[str, BuildFailure | None]:
        self.calls.append((impl, build_dir, tuple(cmake_args)))
        return "log", self.failure


def test_build_once_builds_the_fixed_parts_and_students_link_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = _Builds()
    monkeypatch.setattr("grader.classroom.batch_steps.configure_and_build", builds)
    monkeypatch.setattr("grader.core.build.configure_and_build", builds)  # build_checked's
    config = build_fixed_parts(_config(tmp_path))
    fixed = tmp_path / "builds" / FIXED_BUILD
    assert config.prebuilt == fixed
    assert builds.calls == [("skeletons", fixed, ("-DX=1", "-DLAB_ONLY=lab1;lab3"))]
    assert (fixed / "build.log").read_text() == "log"

    sub = tmp_path / "subs" / "ann"
    (sub / "lab1_histogram").mkdir(parents=True)
    (sub / "lab1_histogram" / "histogram_kernels.cu").write_text("// mine\n")
    built = build_submission(config, Submission("ann", sub, ("lab1",)))
    assert built.labs == ("lab1",) and built.build_dir == tmp_path / "builds" / "ann"
    impl, build_dir, args = builds.calls[-1]
    assert (impl, build_dir) == (str(sub), built.build_dir)
    assert args == ("-DX=1", "-DLAB_ONLY=lab1", prebuilt_argument(fixed))

    # Without --build-once every student's build compiles everything, as before.
    build_submission(_config(tmp_path), Submission("ann", sub, ("lab1",)))
    assert not any(a.startswith("-DLAB_PREBUILT") for a in builds.calls[-1][2])


def test_a_failed_fixed_build_stops_the_batch_with_its_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failure = BuildFailure("build", "labs/common/src/cli.cpp:3: error: expected ';'\n")
    monkeypatch.setattr("grader.classroom.batch_steps.configure_and_build", _Builds(failure))
    with pytest.raises(GraderUsageError, match=r"build of the fixed parts .* failed:\n.*cli\.cpp"):
        build_fixed_parts(_config(tmp_path))
