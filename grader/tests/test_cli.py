"""`python3 -m grader`: exit statuses, messages and reports, on fake build trees."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from grader.tests.helpers import (
    FakeSpec,
    gtest_spec,
    histogram_lab,
    make_build,
    make_repo,
    needs_ctest,
    run_grade,
    run_grader,
    setup_spec,
)

pytestmark = needs_ctest
GRADING = {**histogram_lab(correctness=1, timing=4), "lab10_scan": None}


def _grader(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_grader(*args, cwd=cwd)


def _grade(
    tmp_path: Path, specs: list[FakeSpec], *extra: str, probe: str | None = "present"
) -> subprocess.CompletedProcess[str]:
    build = make_build(tmp_path, specs, probe=probe)
    return run_grade(tmp_path, make_repo(tmp_path, GRADING), "--build", str(build), *extra)


def _results(tmp_path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((tmp_path / "out" / "results.json").read_text())
    return doc


def _lab1(count_file: Path, *modes: tuple[str, str, str]) -> list[FakeSpec]:
    return [setup_spec("lab1", "ok", count_file)] + [
        gtest_spec("lab1", kind, mode, name) for kind, mode, name in modes
    ]


def test_all_passing_exits_0_and_writes_the_reports(tmp_path: Path) -> None:
    specs = _lab1(
        tmp_path / "count", ("correctness", "pass", "Hist.Uniform"), ("timing", "pass", "Hist.Fast")
    )
    specs.append(gtest_spec("lab10", "correctness", "fail", "Scan.Small"))
    proc = _grade(tmp_path, specs, "--labs", "lab1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {p.name for p in (tmp_path / "out").iterdir()} == {"results.json", "summary.md"}
    doc = _results(tmp_path)
    assert (doc["score"], doc["extra_data"]["max_score"]) == (5, 5)
    assert [t["name"] for t in doc["tests"]] == [
        "lab1.Hist.Uniform (correctness)",
        "lab1.Hist.Fast (timing)",
    ]  # lab10 not graded
    assert (tmp_path / "count").read_text().count("ran") == 1
    assert proc.stdout.splitlines()[0] == (
        "grader: lab1 Histogram: 2 passed, 0 failed, 0 skipped; score 5/5"
    )
    # The setup and each test ran in a process of its own.
    assert doc["extra_data"]["processes_started"] == 3
    assert set(doc["extra_data"]["phase_s"]) == {"shared"}


def test_a_failure_exits_1_with_its_reason_in_every_report(tmp_path: Path) -> None:
    specs = _lab1(
        tmp_path / "count",
        ("correctness", "pass", "Hist.Uniform"),
        ("correctness", "fail", "Hist.Skewed"),
        ("timing", "hang", "Hist.Fast"),
    )
    specs[-1] = gtest_spec("lab1", "timing", "hang", "Hist.Fast", timeout=1)
    proc = _grade(tmp_path, specs, "--timeout-scale", "2")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    doc = _results(tmp_path)
    # The two correctness tests share the correctness group's 1 point.
    assert (doc["score"], doc["extra_data"]["max_score"]) == (0.5, 5)
    assert "Test timeouts were scaled by 2." in doc["extra_data"]["notes"]
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "bin 17: expected 1024, got 0" in summary
    assert "timed out after 2 s: possible deadlock" in summary
    # The console: each failure with its reason on one line, then the lab's count.
    assert proc.stdout.splitlines()[:3] == [
        "grader: lab1.Hist.Skewed: failed: bin 17: expected 1024, got 0 / "
        "bin 18: expected 977, got 0",
        "grader: lab1.Hist.Fast: failed: timed out after 2 s: possible deadlock (a kernel "
        "that never finishes, e.g. __syncthreads() inside a branch not every thread takes)",
        "grader: lab1 Histogram: 1 passed, 2 failed, 0 skipped; score 0.5/5",
    ]


def test_no_gpu_exits_3_unless_skips_are_allowed(tmp_path: Path) -> None:
    specs = _lab1(
        tmp_path / "count",
        ("correctness", "no_gpu", "Hist.Uniform"),
        ("timing", "no_gpu", "Hist.Fast"),
    )
    proc = _grade(tmp_path, specs, probe="absent")
    assert proc.returncode == 3
    assert "no GPU: 2 tests skipped, nothing graded" in proc.stderr
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "2 tests were skipped because no GPU was available" in summary
    assert _results(tmp_path)["score"] == 0
    allowed = _grade(tmp_path, specs, "--allow-skips", probe="absent")
    assert allowed.returncode == 0, allowed.stderr


def test_exit_77_with_a_gpu_present_is_a_failure(tmp_path: Path) -> None:
    specs = _lab1(tmp_path / "count", ("correctness", "no_gpu", "Hist.Uniform"))
    proc = _grade(tmp_path, specs, probe="present")
    assert proc.returncode == 1
    assert (
        "reported itself skipped although a GPU is present"
        in (tmp_path / "out" / "summary.md").read_text()
    )


def test_a_missing_probe_is_said_and_treated_as_no_gpu(tmp_path: Path) -> None:
    specs = _lab1(tmp_path / "count", ("correctness", "no_gpu", "Hist.Uniform"))
    proc = _grade(tmp_path, specs, "--allow-skips", probe=None)
    assert proc.returncode == 0
    doc = _results(tmp_path)
    assert doc["extra_data"]["gpu"]["state"] == "unknown"
    assert any("lab_gpu_info not found" in note for note in doc["extra_data"]["notes"])


def test_a_failed_dataset_setup_fails_the_lab(tmp_path: Path) -> None:
    specs = [
        setup_spec("lab1", "fail", tmp_path / "count"),
        gtest_spec("lab1", "correctness", "pass", "Hist.Uniform"),
    ]
    proc = _grade(tmp_path, specs)
    assert proc.returncode == 1
    assert "dataset setup failed: lab1.datasets" in (tmp_path / "out" / "summary.md").read_text()


def test_an_unknown_lab_exits_2_listing_the_known_labs(tmp_path: Path) -> None:
    specs = _lab1(tmp_path / "count", ("correctness", "pass", "Hist.Uniform"))
    proc = _grade(tmp_path, specs, "--labs", "lab7")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "grader: error: unknown lab 'lab7': known labs are lab1, lab10"


def test_a_build_dir_with_no_tests_exits_2(tmp_path: Path) -> None:
    proc = _grade(tmp_path, [])
    assert proc.returncode == 2
    assert "has no lab tests" in proc.stderr and proc.stderr.count("\n") == 1


def test_a_missing_build_dir_exits_2(tmp_path: Path) -> None:
    proc = _grader(
        "grade", "--build", str(tmp_path / "nope"), "--report", str(tmp_path / "o"), cwd=tmp_path
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("does not exist")


def test_an_unwritable_report_dir_exits_2(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    specs = _lab1(tmp_path / "count", ("correctness", "pass", "Hist.Uniform"))
    build = make_build(tmp_path, specs)
    proc = _grader("grade", "--build", str(build), "--report", str(blocker / "out"), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"grader: error: cannot write reports to {blocker / 'out'}")


def test_usage_errors_of_the_arguments_exit_2(tmp_path: Path) -> None:
    assert _grader("grade", cwd=tmp_path).returncode == 2
    both = _grader("grade", "--build", "b", "--impl", "skeletons", cwd=tmp_path)
    assert both.returncode == 2
    stray = _grader("grade", "--build", str(tmp_path), "--build-dir", "x", cwd=tmp_path)
    assert stray.returncode == 2 and "--build-dir and --cmake-arg go with --impl" in stray.stderr
    bad_labs = _grader("grade", "--build", str(tmp_path), "--labs", "one", cwd=tmp_path)
    assert bad_labs.returncode == 2 and "lab ids such as" in bad_labs.stderr


def test_probe_prints_the_gpu(tmp_path: Path) -> None:
    build = make_build(tmp_path, [], probe="present")
    proc = _grader("probe", "--build", str(build), cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.startswith("GPU: NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs")
    as_json = _grader("probe", "--build", str(build), "--json", cwd=tmp_path)
    assert json.loads(as_json.stdout)["sm_count"] == 132
    absent = make_build(tmp_path / "b", [], probe="absent")
    proc = _grader("probe", "--build", str(absent), cwd=tmp_path)
    assert proc.returncode == 3 and "no GPU: no CUDA device" in proc.stdout


@pytest.mark.skipif(
    shutil.which("cmake") is None or shutil.which("ninja") is None, reason="cmake and ninja needed"
)
def test_impl_build_failure_is_a_failed_lab_with_the_compiler_errors(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, GRADING)
    student = tmp_path / "alice"
    (student / "lab1_histogram").mkdir(parents=True)
    (repo / "CMakeLists.txt").write_text("""cmake_minimum_required(VERSION 3.20)
project(cuda_labs NONE)
message(STATUS "impl=${LAB_IMPL}")
enable_testing()
add_custom_target(lab1_impl ALL COMMAND sh ${CMAKE_SOURCE_DIR}/compile.sh)
add_test(NAME lab1.Hist.Uniform
         COMMAND ${CMAKE_BINARY_DIR}/bin/lab1_tests --gtest_filter=Hist.Uniform)
set_tests_properties(lab1.Hist.Uniform PROPERTIES LABELS "lab1;lab1.correctness")
""")
    (repo / "compile.sh").write_text(
        'echo \'skeletons/lab1_histogram/histogram.cu(12): error: identifier "bins" is '
        "undefined'\necho '1 error detected in the compilation of histogram.cu.'\nexit 1\n"
    )
    proc = run_grade(tmp_path, repo, "--impl", str(student))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"impl={student}" in (tmp_path / "out" / "build.log").read_text()
    assert (tmp_path / "build-grade-alice").is_dir()
    (test,) = _results(tmp_path)["tests"]  # lab10 builds nothing: not a failed lab
    assert test["status"] == "failed" and test["max_score"] == 1
    assert "the test program was not built" in test["output"]
    assert 'identifier "bins" is undefined' in test["output"]


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake needed")
def test_impl_configure_failure_fails_every_lab(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, GRADING)
    for lab_dir in ("lab1_histogram", "lab10_scan"):
        (repo / "labs" / lab_dir / "CMakeLists.txt").write_text("# a lab\n")
        (repo / "skeletons" / lab_dir).mkdir(parents=True)
    (repo / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(cuda_labs NONE)\n"
        'message(FATAL_ERROR "lab1: histogram.cu is missing")\n'
    )
    proc = run_grade(
        tmp_path,
        repo,
        "--impl",
        "skeletons",
        "--build-dir",
        str(tmp_path / "b"),
        "--cmake-arg=-DLAB_EXTRA=1",
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    doc = _results(tmp_path)
    assert [t["name"] for t in doc["tests"]] == ["lab1.build (build)", "lab10.build (build)"]
    assert "lab1: histogram.cu is missing" in doc["tests"][0]["output"]
    assert "-DLAB_EXTRA=1" in (tmp_path / "out" / "build.log").read_text()


@pytest.mark.skipif(
    shutil.which("cmake") is None or shutil.which("ninja") is None, reason="cmake and ninja needed"
)
def test_impl_a_lab_the_static_check_rejects_scores_zero_and_is_not_run(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, histogram_lab(correctness=7))
    (repo / "CMakeLists.txt").write_text("""cmake_minimum_required(VERSION 3.20)
project(cuda_labs NONE)
enable_testing()
add_test(NAME lab1.Hist.Uniform COMMAND sh -c "echo ran > ${CMAKE_BINARY_DIR}/ran")
set_tests_properties(lab1.Hist.Uniform PROPERTIES LABELS "lab1;lab1.correctness")
""")
    student = tmp_path / "cheat"
    (student / "lab1_histogram").mkdir(parents=True)
    (student / "lab1_histogram" / "kernels.cu").write_text("#include <cub/cub.cuh>\n")
    proc = run_grade(tmp_path, repo, "--impl", str(student))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "lab1 rejected by the static check" in proc.stderr
    doc = _results(tmp_path)
    assert (doc["score"], doc["extra_data"]["max_score"]) == (0, 7)
    (test,) = doc["tests"]
    assert test["name"].startswith("lab1.static_check") and test["status"] == "failed"
    assert "library-include" in test["output"]
    assert not (tmp_path / "build-grade-cheat" / "ran").exists(), "a rejected lab's tests ran"


def test_impl_arguments_are_checked_before_building(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, GRADING)
    (repo / "CMakeLists.txt").write_text('message(FATAL_ERROR "configure must not run")\n')
    student = tmp_path / "bob"
    (student / "lab1_histogram").mkdir(parents=True)
    report = ["--report", str(tmp_path / "out")]

    def grade(*args: str) -> subprocess.CompletedProcess[str]:
        return _grader("grade", *args, *report, cwd=tmp_path)

    unknown = grade("--impl", str(student), "--repo", str(repo), "--labs", "lab9")
    assert unknown.returncode == 2
    assert "unknown lab 'lab9': known labs are lab1, lab10" in unknown.stderr
    missing = grade("--impl", str(student), "--repo", str(repo), "--labs", "lab10")
    assert missing.returncode == 2
    assert f"--impl {student} has no folder for lab10 (it holds lab1)" in missing.stderr
    no_repo = grade("--impl", str(student), "--repo", str(tmp_path / "nope"))
    assert no_repo.returncode == 2 and "no such folder, so no labs/" in no_repo.stderr
    bare = make_repo(tmp_path / "bare", GRADING)
    no_cmake = grade("--impl", str(student), "--repo", str(bare))
    assert no_cmake.returncode == 2
    assert "no CMakeLists.txt to build the labs with" in no_cmake.stderr
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    bad_dir = grade("--impl", str(student), "--repo", str(repo), "--build-dir", str(blocker))
    assert (
        bad_dir.returncode == 2
        and f"--build-dir {blocker} is a file, not a folder for a build" in bad_dir.stderr
    )
    empty = grade("--impl", str(student), "--repo", str(repo), "--labs", "")
    assert empty.returncode == 2 and "names no lab" in empty.stderr
    for proc in (unknown, missing, no_repo, no_cmake, bad_dir, empty):
        assert "configure must not run" not in proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr


@pytest.mark.skipif(
    shutil.which("cmake") is None or shutil.which("ninja") is None, reason="cmake and ninja needed"
)
def test_impl_builds_only_the_labs_asked_for(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, GRADING)
    (repo / "CMakeLists.txt").write_text("""cmake_minimum_required(VERSION 3.20)
project(cuda_labs NONE)
message(STATUS "only=${LAB_ONLY}")
enable_testing()
add_test(NAME lab1.Hist.Uniform COMMAND sh -c "exit 0")
set_tests_properties(lab1.Hist.Uniform PROPERTIES LABELS "lab1;lab1.correctness")
""")
    student = tmp_path / "carol"
    for lab_dir in ("lab1_histogram", "lab10_scan"):
        (student / lab_dir).mkdir(parents=True)
    proc = run_grade(tmp_path, repo, "--impl", str(student), "--labs", "lab1")
    assert "grader: building lab1 against" in proc.stdout, proc.stdout + proc.stderr
    assert "only=lab1\n" in (tmp_path / "out" / "build.log").read_text()


def test_grade_runs_a_programs_untimed_tests_in_one_process(tmp_path: Path) -> None:
    specs = _lab1(
        tmp_path / "count",
        ("correctness", "pass", "Hist.Uniform"),
        ("correctness", "pass", "Hist.Skewed"),
        ("timing", "pass", "Hist.Fast"),
    )
    proc = _grade(tmp_path, specs, "--jobs", "1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The setup, the untimed cases together (--jobs 1) and the timed one.
    assert _results(tmp_path)["extra_data"]["processes_started"] == 3
    assert _grader("grade", "--process-mode", "per-test", cwd=tmp_path).returncode == 2  # gone
