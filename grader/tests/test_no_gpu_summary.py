"""Without a GPU, a ctest run says that nothing was checked (cmake/LabNoGpuSummary.cmake).

A fake CMake project (no compiler) registers skipping "GPU tests" the way the labs do
and the summary test the way the top-level CMakeLists.txt does; ctest then runs them
as the student workflow's test step would, with a fake GPU probe.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "cmake" / "no_gpu_summary.py"
# The check's tests: their names are the last lines of a run without a GPU.
NAMES = [
    "GPU check: no CUDA GPU, so nothing was checked",
    "GPU check: run the tests on a machine with an NVIDIA GPU",
    "GPU check: without one, cmake --build --preset student compiles your code",
    "GPU check: and python3 -m grader check --impl skeletons checks the rules",
]
TODO = [
    "Run the tests on a machine with an NVIDIA GPU and driver",
    "(nvidia-smi must list the GPU). Without one,",
    "  cmake --build --preset student",
    "checks that your code compiles, and",
    "  python3 -m grader check --impl skeletons",
    "checks it against the lab's rules.",
]

needs_cmake = pytest.mark.skipif(
    shutil.which("cmake") is None or shutil.which("ctest") is None, reason="cmake and ctest needed"
)


def _probe(tmp_path: Path, exit_code: int) -> Path:
    probe = tmp_path / f"probe{exit_code}"
    probe.write_text(f"#!/bin/sh\necho 'GPU: fake, or none'\nexit {exit_code}\n")
    probe.chmod(probe.stat().st_mode | stat.S_IXUSR)
    return probe


def _summary(
    tmp_path: Path, exit_code: int, log: str | None, expect_no_gpu: bool = False, *flags: str
) -> subprocess.CompletedProcess[str]:
    log_path = tmp_path / "LastTest.log.tmp"
    if log is not None:
        log_path.write_text(log)
    env = {k: v for k, v in os.environ.items() if k != "CUDA_LABS_EXPECT_NO_GPU"}
    if expect_no_gpu:
        env["CUDA_LABS_EXPECT_NO_GPU"] = "1"
    return subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--log",
            str(log_path),
            *flags,
            "--",
            str(_probe(tmp_path, exit_code)),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _record(i: int, name: str, output: str) -> str:
    return (
        f'{i}/9 Testing: {name}\n{i}/9 Test: {name}\nCommand: "x"\nOutput:\n'
        f"----------------------------------------------------------\n{output}\n"
        "<end of output>\nTest Passed.\n\n"
    )


LOG = (
    "Start testing: now\n"
    + _record(1, "lab1.Hist.Uniform", "cuda-labs: skipped: no CUDA device (no NVIDIA driver)")
    + _record(2, "lab3.Reduce.Small", "cuda-labs: skipped: no CUDA device (no NVIDIA driver)")
    + _record(3, "lab1.datasets", "written")
    # A harness test of the probe prints the marker too; it is no GPU test.
    + _record(4, "harness.common.no_gpu", "cuda-labs: skipped: no CUDA device (x)")
)


def test_without_a_gpu_it_counts_the_skipped_lab_tests_and_fails(tmp_path: Path) -> None:
    proc = _summary(tmp_path, 77, LOG)
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        "no CUDA GPU: 2 GPU tests were skipped, nothing was checked.",
        *TODO,
    ]
    assert max(len(line) for line in proc.stdout.splitlines()) < 72  # short lines


def test_quiet_it_fails_and_prints_nothing(tmp_path: Path) -> None:
    proc = _summary(tmp_path, 77, LOG, False, "--quiet")
    assert proc.returncode == 1 and proc.stdout == ""
    assert _summary(tmp_path, 0, LOG, False, "--quiet").returncode == 0


def test_ci_expects_no_gpu_and_skips_with_the_same_line(tmp_path: Path) -> None:
    proc = _summary(tmp_path, 77, LOG, expect_no_gpu=True)
    assert proc.returncode == 77  # its SKIP_RETURN_CODE: it checked nothing, never "passed"
    assert proc.stdout.splitlines()[0].startswith("no CUDA GPU: 2 GPU tests were skipped")


def test_an_unreadable_log_gives_the_line_without_a_count(tmp_path: Path) -> None:
    proc = _summary(tmp_path, 77, None)
    assert proc.returncode == 1
    assert proc.stdout.startswith("no CUDA GPU: the GPU tests were skipped, nothing was checked.\n")


def test_with_a_gpu_it_passes(tmp_path: Path) -> None:
    proc = _summary(tmp_path, 0, LOG)
    assert proc.returncode == 0
    assert proc.stdout.strip() == "cuda-labs: the GPU tests ran on a GPU: GPU: fake, or none"


def test_a_broken_probe_fails_with_its_reason(tmp_path: Path) -> None:
    proc = _summary(tmp_path, 5, LOG)
    assert proc.returncode == 1
    assert "failed (exit 5): GPU: fake, or none" in proc.stdout


# --- under ctest ---------------------------------------------------------------------------------


def _project(tmp_path: Path) -> Path:
    """30 lab1 and 20 lab2 'GPU tests' that skip as the labs' do, a harness test, the summary."""
    source = tmp_path / "src"
    source.mkdir()
    skip = "echo 'cuda-labs: skipped: no CUDA device (no NVIDIA driver or GPU found)'; exit 77"
    (source / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.25)
project(fake NONE)
enable_testing()
set(Python3_EXECUTABLE {sys.executable})
include({REPO / "cmake" / "LabNoGpuSummary.cmake"})
foreach(lab lab1 lab2)
  set(count 30)
  if(lab STREQUAL "lab2")
    set(count 20)
  endif()
  foreach(i RANGE 1 ${{count}})
    add_test(NAME ${{lab}}.Case.T${{i}} COMMAND sh -c "{skip}")
    set_tests_properties(${{lab}}.Case.T${{i}} PROPERTIES SKIP_RETURN_CODE 77
      LABELS "${{lab}};${{lab}}.correctness" FIXTURES_REQUIRED "${{lab}}_data;${{LAB_GPU_FIXTURE}}")
  endforeach()
endforeach()
add_test(NAME harness.ok COMMAND sh -c "exit 0")
set_tests_properties(harness.ok PROPERTIES LABELS harness)
lab_add_no_gpu_summary({_probe(tmp_path, 77)})
""")
    build = tmp_path / "b"
    configure = subprocess.run(
        ["cmake", "-S", str(source), "-B", str(build)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert configure.returncode == 0, configure.stderr
    return build


def _ctest(
    build: Path,
    *args: str,
    expect_no_gpu: bool = False,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CUDA_LABS_EXPECT_NO_GPU"}
    if expect_no_gpu:
        env["CUDA_LABS_EXPECT_NO_GPU"] = "1"
    return subprocess.run(
        ["ctest", "--test-dir", str(build), "--output-on-failure", "-j", "2", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@needs_cmake
def test_ctest_without_a_gpu_fails_and_says_nothing_was_checked(tmp_path: Path) -> None:
    build = _project(tmp_path)
    proc = _ctest(build)
    assert proc.returncode != 0
    assert "100% tests passed" not in proc.stdout
    lines = proc.stdout.splitlines()
    at = lines.index("no CUDA GPU: 50 GPU tests were skipped, nothing was checked.")
    assert lines[at + 1 : at + 1 + len(TODO)] == TODO
    # The run ends on the check's tests, after ctest's list of skipped tests: their
    # names are the last lines, so they say that nothing was checked and what to do.
    assert lines[-5:] == [
        "The following tests FAILED:",
        *(f"\t {52 + i} - {name} (Failed)" for i, name in enumerate(NAMES)),
    ]
    # They run last: after every GPU test.
    started = [line for line in lines if line.lstrip().startswith("Start ")]
    assert {line.split(": ", 1)[1] for line in started[-4:]} == set(NAMES)


@needs_cmake
def test_a_selection_brings_the_summary_and_counts_only_its_tests(tmp_path: Path) -> None:
    build = _project(tmp_path)
    proc = _ctest(build, "-L", "^lab2$")
    assert proc.returncode != 0
    assert "no CUDA GPU: 20 GPU tests were skipped, nothing was checked." in proc.stdout
    harness = _ctest(build, "-L", "^harness$")  # no GPU test, no summary
    assert harness.returncode == 0 and "GPU check" not in harness.stdout


@needs_cmake
def test_the_student_workflow_ends_on_the_verdict(tmp_path: Path) -> None:
    """`cmake --workflow --preset student` once ended on 1,100 "(Skipped)" lines, the one
    line saying that nothing was checked (330 characters) buried in the middle."""
    build = _project(tmp_path)
    (build.parent / "src" / "CMakePresets.json").write_text(
        json.dumps(
            {
                "version": 6,
                "configurePresets": [{"name": "s", "binaryDir": str(build)}],
                "buildPresets": [{"name": "s", "configurePreset": "s"}],
                "testPresets": [
                    {"name": "s", "configurePreset": "s", "output": {"outputOnFailure": True}}
                ],
                "workflowPresets": [
                    {
                        "name": "s",
                        "steps": [
                            {"type": "configure", "name": "s"},
                            {"type": "build", "name": "s"},
                            {"type": "test", "name": "s"},
                        ],
                    }
                ],
            }
        )
    )
    env = {k: v for k, v in os.environ.items() if k != "CUDA_LABS_EXPECT_NO_GPU"}
    proc = subprocess.run(
        ["cmake", "--workflow", "--preset", "s"],
        cwd=build.parent / "src",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode != 0
    assert proc.stdout.splitlines()[-4:] == [
        f"\t {52 + i} - {name} (Failed)" for i, name in enumerate(NAMES)
    ]


@needs_cmake
def test_ci_presets_expect_no_gpu_so_ctest_passes_and_the_check_reads_skipped(
    tmp_path: Path,
) -> None:
    build = _project(tmp_path)
    proc = _ctest(build, expect_no_gpu=True)
    assert proc.returncode == 0, proc.stdout[-2000:]
    for i, name in enumerate(NAMES):
        (line,) = [line for line in proc.stdout.splitlines() if f"Test #{52 + i}: {name}" in line]
        assert "***Skipped" in line and "Passed" not in line
    # scripts/check_skips.py leaves the check out: it is no GPU test.
    left_out = _ctest(build, "-L", "^lab1$", "-FC", "^cuda_labs_gpu$")
    assert left_out.returncode == 0 and "GPU check" not in left_out.stdout
