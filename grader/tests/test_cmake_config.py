"""Configure-time choices a student makes (LAB_IMPL, LAB_ONLY): they stick, and configure
says every time what it builds, rejecting what it cannot build.

Configure only, never a build: no GPU needed, a few seconds per configure. The
LAB_ONLY parsing is also tested alone in CMake's script mode (`cmake -P`), which
needs no compiler.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.tests.helpers import fake_nvidia_smi

REPO = Path(__file__).resolve().parents[2]

needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
needs_cuda_cmake = pytest.mark.skipif(
    shutil.which("cmake") is None
    or shutil.which("ninja") is None
    or (shutil.which("nvcc") is None and not Path("/usr/local/cuda/bin/nvcc").exists()),
    reason="cmake, ninja and nvcc are needed to configure",
)


def _cmake(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["cmake", *args], cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )


def _configure_student(build: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The student preset configured into `build` for one GPU architecture, with `args`."""
    return _cmake(
        "--preset", "student", "-B", str(build), "-DCMAKE_CUDA_ARCHITECTURES=86-real", *args
    )


def _ctest(build: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    """`ctest --test-dir BUILD ARGS`, its output captured."""
    return subprocess.run(
        ["ctest", "--test-dir", str(build), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=check,
    )


def _cmake_script(script: Path, definition: str) -> subprocess.CompletedProcess[str]:
    """`cmake -D... -P script`: one CMake script run with one cache definition."""
    return subprocess.run(
        ["cmake", definition, "-P", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _lines(proc: subprocess.CompletedProcess[str], marker: str = "cuda-labs:") -> list[str]:
    return [line for line in proc.stdout.splitlines() if marker in line]


def _errors(proc: subprocess.CompletedProcess[str]) -> str:
    """CMake's error text with its line wrapping undone."""
    return " ".join(proc.stderr.split())


# --- LAB_ONLY alone (cmake -P) -----------------------------------------------------------------


def _select(tmp_path: Path, lab_only: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "select.cmake"
    script.write_text(f"""cmake_minimum_required(VERSION 3.25)
include({REPO / "cmake" / "LabOnly.cmake"})
lab_selection(chosen "${{ONLY}}" lab1 lab2 lab3 lab10)
message(STATUS "chosen=${{chosen}}")
lab_selection_message("${{ONLY}}" ${{chosen}})
""")
    return _cmake_script(script, f"-DONLY={lab_only}")


@needs_cmake
@pytest.mark.parametrize(
    "lab_only, chosen",
    [
        ("lab3,lab1", "lab1;lab3"),  # the grader's --labs spelling
        ("lab3;lab1", "lab1;lab3"),  # CMake's list
        (" lab3 , lab1,lab3", "lab1;lab3"),  # spaces and repeats
        ("lab10", "lab10"),  # lab1 never stands for lab10 or back
    ],
)
def test_lab_only_takes_commas_and_semicolons(tmp_path: Path, lab_only: str, chosen: str) -> None:
    proc = _select(tmp_path, lab_only)
    assert proc.returncode == 0, proc.stderr
    assert f"-- chosen={chosen}\n" in proc.stdout
    names = chosen.replace(";", ", ")
    assert (
        f"-- cuda-labs: building {names} only (LAB_ONLY, kept in this build's cache; "
        "-DLAB_ONLY= for all)"
    ) in proc.stdout


@needs_cmake
def test_an_empty_lab_only_builds_every_lab_and_says_so(tmp_path: Path) -> None:
    proc = _select(tmp_path, "")
    assert proc.returncode == 0, proc.stderr
    assert "-- chosen=lab1;lab2;lab3;lab10\n" in proc.stdout
    assert "cuda-labs: building every lab: lab1, lab2, lab3, lab10" in proc.stdout


@needs_cmake
@pytest.mark.parametrize(
    "lab_only, message",
    [
        ("lab9", "LAB_ONLY='lab9': unknown lab 'lab9'. Known labs: lab1, lab2, lab3, lab10."),
        ("lab1,histogram", "unknown lab 'histogram'. Known labs: lab1, lab2, lab3, lab10."),
        (",", "LAB_ONLY=',' names no lab."),
    ],
)
def test_lab_only_refuses_what_it_cannot_build(tmp_path: Path, lab_only: str, message: str) -> None:
    proc = _select(tmp_path, lab_only)
    assert proc.returncode != 0
    assert message in _errors(proc).replace(".  ", ". ")
    assert "-DLAB_ONLY= to build every lab" in _errors(proc)
    assert "chosen=" not in proc.stdout


@needs_cmake
@pytest.mark.parametrize("lab_impl", ["", " "])
def test_an_empty_lab_impl_is_refused(tmp_path: Path, lab_impl: str) -> None:
    """-DLAB_IMPL= once resolved to the repository root and built against it."""
    script = tmp_path / "impl.cmake"
    script.write_text(f'include("{REPO / "cmake" / "LabImpl.cmake"}")\n')
    proc = _cmake_script(script, f"-DLAB_IMPL={lab_impl}")
    assert proc.returncode != 0
    assert "LAB_IMPL is empty: give skeletons, solutions, or your folder" in _errors(proc)
    assert "labs build against" not in proc.stdout


# --- the presets ---------------------------------------------------------------------------------


def test_the_student_preset_leaves_lab_impl_to_the_student() -> None:
    """A preset's cacheVariables are passed as -D on every `cmake --preset`: a LAB_IMPL there
    would silently undo a student's -DLAB_IMPL=/their/copy at the next plain configure."""
    presets = {
        p["name"]: p
        for p in json.loads((REPO / "CMakePresets.json").read_text())["configurePresets"]
    }
    assert "LAB_IMPL" not in presets["student"].get("cacheVariables", {})
    assert "LAB_IMPL" not in presets["base"].get("cacheVariables", {})
    # The others build exactly what they name, whatever the cache holds.
    assert presets["reference"]["cacheVariables"]["LAB_IMPL"] == "solutions"
    assert presets["ci-solutions"]["cacheVariables"]["LAB_IMPL"] == "solutions"
    assert presets["ci-skeletons"]["cacheVariables"]["LAB_IMPL"] == "skeletons"


def test_only_the_ci_test_presets_expect_no_gpu() -> None:
    """Without a GPU the student's and the reference's test step fail, saying nothing was
    checked (cmake/LabNoGpuSummary.cmake); CI has no GPU and expects none."""
    tests = {
        p["name"]: p for p in json.loads((REPO / "CMakePresets.json").read_text())["testPresets"]
    }
    expecting = {
        name
        for name, p in tests.items()
        if p.get("environment", {}).get("CUDA_LABS_EXPECT_NO_GPU") == "1"
    }
    assert expecting == {"ci-skeletons", "ci-solutions"}


@needs_cuda_cmake
def test_a_students_folder_and_lab_selection_survive_a_plain_reconfigure(tmp_path: Path) -> None:
    copy = tmp_path / "my copy"
    shutil.copytree(REPO / "skeletons", copy)
    build = tmp_path / "b"
    first = _configure_student(build, f"-DLAB_IMPL={copy}", "-DLAB_ONLY=lab3,lab1")
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr[-2000:]
    impl_line = (
        f"-- cuda-labs: labs build against {copy} (LAB_IMPL={copy}, kept in this "
        "build's cache; -DLAB_IMPL=skeletons to go back)"
    )
    only_line = (
        "-- cuda-labs: building lab1, lab3 only (LAB_ONLY, kept in this build's cache; "
        "-DLAB_ONLY= for all)"
    )
    assert _lines(first) == [impl_line, only_line]

    # What the README tells students to run next: the copy and the selection hold, and
    # configure says so again.
    again = _cmake("--preset", "student", "-B", str(build))
    assert again.returncode == 0, again.stderr[-2000:]
    assert _lines(again) == [impl_line, only_line]
    listed = _ctest(build, "-N").stdout
    assert "lab2." not in listed and "lab1." in listed

    unknown = _cmake("--preset", "student", "-B", str(build), "-DLAB_ONLY=lab9")
    assert unknown.returncode != 0
    assert "unknown lab 'lab9'. Known labs: lab1, lab2, lab3, lab4, lab5" in _errors(
        unknown
    ).replace(".  ", ". ")

    back = _cmake("--preset", "student", "-B", str(build), "-DLAB_ONLY=", "-DLAB_IMPL=skeletons")
    assert back.returncode == 0, back.stderr[-2000:]
    assert _lines(back)[0].startswith(
        f"-- cuda-labs: labs build against {REPO / 'skeletons'} (LAB_IMPL=skeletons;"
    )
    assert _lines(back)[1].startswith("-- cuda-labs: building every lab: lab1, lab2, lab3, lab4")


@needs_cuda_cmake
def test_the_reference_preset_builds_the_solutions_whatever_the_cache_holds(tmp_path: Path) -> None:
    build = tmp_path / "b"
    first = _configure_student(build, "-DLAB_ONLY=lab1")
    assert first.returncode == 0, first.stderr[-2000:]
    assert f"labs build against {REPO / 'skeletons'} " in first.stdout
    ref = _cmake("--preset", "reference", "-B", str(build))
    assert ref.returncode == 0, ref.stderr[-2000:]
    assert f"labs build against {REPO / 'solutions'} (LAB_IMPL=solutions," in ref.stdout


# --- ctest's resource allocation ------------------------------------------------------------


def _stand_in_for_discovery(build: Path) -> None:
    """What gtest_discover_tests writes once a test program is built (one case per
    program), so that configure alone shows the discovered tests' properties."""
    for include in (build / "labs").glob("*/*_include.cmake"):
        target = include.name.split("[")[0]
        tests_file = include.with_name(include.name.replace("_include.cmake", "_tests.cmake"))
        name = f"lab1.{target}.Case"
        tests_file.write_text(
            f"add_test([=[{name}]=] {shutil.which('true')})\nset({target}_TESTS [=[{name}]=])\n"
        )


@needs_cuda_cmake
def test_gpu_tests_ask_ctest_for_a_gpu_slot_and_get_one(tmp_path: Path) -> None:
    """Every lab and sanitize test carries RESOURCE_GROUPS gpus:1, no CPU test does, and
    ctest, given the spec scripts/gpu_resource_spec.py writes, hands each its GPU."""
    # The sanitizer stands in for compute-sanitizer: it prints what ctest allocated.
    sanitizer = tmp_path / "sanitizer"
    sanitizer.write_text('#!/bin/sh\necho "allocated: $CTEST_RESOURCE_GROUP_0_GPUS"\n')
    sanitizer.chmod(0o755)
    build = tmp_path / "b"
    configured = _configure_student(
        build,
        "-DLAB_ONLY=lab1",
        "-DLAB_SANITIZE=ON",
        f"-DLAB_COMPUTE_SANITIZER={sanitizer}",
    )
    assert configured.returncode == 0, configured.stderr[-2000:]
    _stand_in_for_discovery(build)
    shown = _ctest(build, "--show-only=json-v1", check=True)
    groups: dict[str, object] = {}
    for test in json.loads(shown.stdout)["tests"]:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        groups[test["name"]] = props.get("RESOURCE_GROUPS")
    one_gpu = [{"requirements": [{".type": "gpus", "slots": 1}]}]
    gpu_tests = [
        "lab1.lab1_correctness_test.Case",
        "lab1.lab1_timing_test.Case",
        "lab1.sanitize.memcheck",
        "lab1.sanitize.racecheck",
        "lab1.sanitize.synccheck",
    ]
    assert {name: groups[name] for name in gpu_tests} == dict.fromkeys(gpu_tests, one_gpu)
    cpu_tests = {name: g for name, g in groups.items() if name not in gpu_tests}
    assert "lab1.datasets" in cpu_tests and "harness.common.ctest_gpu" in cpu_tests
    assert [name for name, g in cpu_tests.items() if g is not None] == []

    spec = tmp_path / "gpus.json"
    smi = fake_nvidia_smi(tmp_path, "GPU 0: NVIDIA H200 (UUID: GPU-aaaa)\n")
    written = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gpu_resource_spec.py"), "--slots", "2", str(spec)],
        env={**os.environ, "PATH": str(smi)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert written.returncode == 0, written.stderr
    spec_args = ["--resource-spec-file", str(spec), "-j", "3"]
    ran = _ctest(build, *spec_args, "-R", r"^lab1\.sanitize\.", "-FA", ".*", "-V")
    assert ran.returncode == 0, ran.stdout[-2000:]
    assert ran.stdout.count("allocated: id:0,slots:1") == 3, ran.stdout[-2000:]
