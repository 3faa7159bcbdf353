"""Every way a test process can end, judged with and without a GPU."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from grader.core.ctest_run import Unit
from grader.core.launch import ProcessResult
from grader.core.model import LabTest, Status
from grader.core.verdict import classify, trim_failures
from grader.tests.helpers import FAKE_SETUP, OneByOne, fake_test, process_alive

WITH_GPU = OneByOne(gpu_present=True)
NO_GPU = OneByOne(gpu_present=False)


def test_a_proper_pass_passes() -> None:
    outcome = WITH_GPU.run(fake_test("pass"))
    assert outcome.status is Status.PASSED, outcome.reason
    assert "[  PASSED  ]" in outcome.output
    assert outcome.returncode == 0


def test_a_gtest_failure_gives_its_message_without_the_location_line() -> None:
    outcome = WITH_GPU.run(fake_test("fail"))
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("bin 17: expected 1024, got 0")
    assert "histogram_test.cu:42" not in outcome.reason


def test_a_hang_is_killed_at_the_timeout_and_called_a_possible_deadlock() -> None:
    start = time.monotonic()
    outcome = WITH_GPU.run(fake_test("hang", timeout=0.5))
    assert time.monotonic() - start < 10
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("timed out after 0.5 s: possible deadlock")
    assert "__syncthreads()" in outcome.reason


def test_the_timeout_scale_multiplies_the_test_timeout() -> None:
    runner = OneByOne(gpu_present=True, timeout_scale=2.0)
    for test, seconds in ((fake_test("pass", timeout=10), 20), (fake_test("pass"), 120)):
        assert runner.timeout_s(Unit(test, (test,))) == seconds  # default 60 s: no TIMEOUT
    outcome = runner.run(fake_test("hang", timeout=0.25))
    assert outcome.reason.startswith("timed out after 0.5 s")


def test_a_child_left_sleeping_after_a_timeout_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("FAKE_PID_FILE", str(pid_file))
    outcome = WITH_GPU.run(fake_test("hang_with_child", timeout=1.0))
    assert outcome.status is Status.FAILED and "timed out" in outcome.reason
    _assert_gone(int(pid_file.read_text()))


def test_a_child_left_behind_by_a_finished_test_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "child.pid"
    monkeypatch.setenv("FAKE_PID_FILE", str(pid_file))
    start = time.monotonic()
    outcome = WITH_GPU.run(fake_test("pass_leaving_child", timeout=30))
    assert time.monotonic() - start < 10  # the child holding stdout does not stall us
    assert outcome.status is Status.PASSED
    _assert_gone(int(pid_file.read_text()))


def _assert_gone(pid: int) -> None:
    deadline = time.monotonic() + 5
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid)


@pytest.mark.parametrize("mode, signal_name", [("segv", "SIGSEGV"), ("abort", "SIGABRT")])
def test_a_crash_names_its_signal(mode: str, signal_name: str) -> None:
    outcome = WITH_GPU.run(fake_test(mode))
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith(f"crashed: {signal_name}")


def test_passed_text_with_exit_status_1_fails() -> None:
    outcome = WITH_GPU.run(fake_test("passed_text_exit1"))
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("exited with status 1; last output:")
    assert "[  PASSED  ] 1 test." in outcome.reason


def test_skipped_text_with_a_gpu_present_fails() -> None:
    outcome = WITH_GPU.run(fake_test("skipped_text"))
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("reported itself skipped although a GPU is present")


def test_a_gtest_skip_with_a_gpu_present_fails() -> None:
    outcome = WITH_GPU.run(fake_test("gtest_skip"))
    assert outcome.status is Status.FAILED
    assert "reported itself skipped although a GPU is present" in outcome.reason
    assert "GoogleTest marked it skipped: no data" in outcome.reason


def test_skipped_text_printed_by_a_test_that_passed_does_not_change_the_verdict() -> None:
    assert WITH_GPU.run(fake_test("skipped_text_but_passed")).status is Status.PASSED


def test_exit_77_without_a_gpu_is_a_skip_with_the_programs_reason() -> None:
    outcome = NO_GPU.run(fake_test("no_gpu"))
    assert outcome.status is Status.SKIPPED
    assert outcome.reason == (
        "no CUDA device (cudaErrorNoDevice: no CUDA-capable device is detected)"
    )


def test_exit_77_with_a_gpu_present_fails() -> None:
    outcome = WITH_GPU.run(fake_test("no_gpu"))
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith(
        "reported itself skipped although a GPU is present (exit status 77: no CUDA device"
    )


def test_exit_0_without_xml_fails_as_unreported() -> None:
    outcome = WITH_GPU.run(fake_test("marker_no_xml"))
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("the test process exited without reporting a result")


def test_xml_naming_another_test_fails_as_unreported() -> None:
    outcome = WITH_GPU.run(fake_test("wrong_test_xml"))
    assert outcome.status is Status.FAILED
    assert "names no test 'Suite.Test'" in outcome.reason


def test_a_cuda_exception_is_named_with_a_hint() -> None:
    outcome = WITH_GPU.run(fake_test("cuda_exception"))
    assert outcome.status is Status.FAILED
    assert "cudaErrorIllegalAddress" in outcome.reason.splitlines()[0]
    assert "compute-sanitizer" in outcome.reason


def test_a_cuda_error_in_the_output_is_put_in_the_reason() -> None:
    outcome = WITH_GPU.run(fake_test("cuda_crash"))
    assert outcome.status is Status.FAILED
    assert "an illegal memory access was encountered" in outcome.reason
    assert "compute-sanitizer" in outcome.reason


def test_output_is_capped_to_its_head_and_tail() -> None:
    runner = OneByOne(gpu_present=True, keep_bytes=2000)
    outcome = runner.run(fake_test("flood"))
    assert outcome.status is Status.PASSED
    assert len(outcome.output) < 2100
    head, cut, tail = outcome.output.partition(" bytes of output cut ...]")
    assert cut and len(head) > 900 and len(tail) > 900


def test_a_missing_program_is_reported_as_not_built() -> None:
    test = LabTest(
        name="lab1.Suite.Test",
        lab="lab1",
        kind="correctness",
        command=("/nonexistent/lab1_tests", "--gtest_filter=Suite.Test"),
    )
    outcome = WITH_GPU.run(test)
    assert outcome.status is Status.FAILED
    assert outcome.reason == "the test program was not built: /nonexistent/lab1_tests"
    no_command = LabTest(name="lab1.Suite.Test", lab="lab1", kind="correctness")
    assert WITH_GPU.run(no_command).reason == "the test program was not built"


def _setup(mode: str, count_file: Path, fixture: str = "lab1_data") -> LabTest:
    return LabTest(
        name="lab1.datasets",
        lab="lab1",
        kind="data",
        command=(sys.executable, str(FAKE_SETUP), mode, str(count_file)),
        fixtures_setup=(fixture,),
    )


def test_a_fixture_setup_runs_once_before_the_tests_needing_it(tmp_path: Path) -> None:
    count = tmp_path / "count"
    runner = OneByOne(gpu_present=True, setups={"lab1_data": [_setup("ok", count)]})
    first = fake_test("pass", "A.One", fixtures_required=("lab1_data",))
    second = fake_test("pass", "A.Two", fixtures_required=("lab1_data",))
    assert runner.run(first).status is Status.PASSED
    assert runner.run(second).status is Status.PASSED
    assert count.read_text().count("ran") == 1
    assert runner.setup_outcomes["lab1.datasets"].status is Status.PASSED


def test_a_failed_setup_fails_its_dependents_with_the_reason(tmp_path: Path) -> None:
    count = tmp_path / "count"
    runner = OneByOne(gpu_present=True, setups={"lab1_data": [_setup("fail", count)]})
    dependent = fake_test("pass", fixtures_required=("lab1_data",))
    independent = fake_test("pass", "B.Free")
    outcome = runner.run(dependent)
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("dataset setup failed: lab1.datasets: exited with status 1")
    assert "No module named 'numpy'" in outcome.reason
    assert runner.run(dependent).status is Status.FAILED
    assert count.read_text().count("ran") == 1
    assert runner.run(independent).status is Status.PASSED
    assert count.read_text().count("ran") == 1


def test_the_tests_environment_and_working_directory_are_used(tmp_path: Path) -> None:
    script = (
        "import os, sys; ok = os.environ.get('LAB_X') == 'a=b' and os.getcwd() == "
        f"{str(tmp_path)!r}; sys.exit(0 if ok else 1)"
    )
    test = LabTest(
        name="lab1.env",
        lab="lab1",
        kind="data",
        command=(sys.executable, "-c", script),
        env={"LAB_X": "a=b"},
        cwd=str(tmp_path),
    )
    assert WITH_GPU.run(test).status is Status.PASSED


def test_gtests_assertion_preamble_gives_way_to_the_harness_message() -> None:
    message = (
        "correctness_test.cu:51\nValue of: wrong.empty()\n  Actual: false\nExpected: true\n"
        "variant global on uniform (n = 33554432):\n  bin 0: expected 33009, got -1 "
        "(never written)"
    )
    assert trim_failures((message,)) == (
        "variant global on uniform (n = 33554432):\n  bin 0: expected 33009, got -1 (never written)"
    )
    binary = "t.cu:9\nExpected: (fastest) != (nullptr), actual: NULL vs (nullptr)\nno variant works"
    assert trim_failures((binary,)) == "no variant works"
    bare = "t.cu:9\nExpected equality of these values:\n  a\n    Which is: 3\n  b\n    Which is: 4"
    assert trim_failures((bare,)).startswith("Expected equality of these values:")


def test_an_uncaught_cuda_error_is_named_first() -> None:
    cuda = (
        'unknown file\nC++ exception with description "/src/labs/common/src/sync.cu:31 kernel: '
        'cudaErrorIllegalAddress (an illegal memory access was encountered)" thrown in the '
        "test body."
    )
    assert trim_failures((cuda,)) == (
        "cudaErrorIllegalAddress (an illegal memory access was encountered) in kernel at sync.cu:31"
    )
    other = 'unknown file\nC++ exception with description "bad\nthings" thrown in SetUp().'
    assert trim_failures((other,)) == "exception in SetUp(): bad\nthings"


def test_the_kernel_watchdog_is_named_as_a_possible_deadlock() -> None:
    line = (
        "cuda-labs: kernel timed out after 10 s: possible deadlock (e.g. __syncthreads() "
        "in a branch that not every thread takes)"
    )
    result = ProcessResult(124, f"[ RUN      ] Suite.Test\n{line}\n")
    status, reason = classify(fake_test("pass"), result, None, gpu_present=True)
    assert status is Status.FAILED
    assert reason == line.removeprefix("cuda-labs: ")
    other = ProcessResult(124, "exit(124) from the student's code\n")
    assert classify(fake_test("pass"), other, None, True)[1].startswith("exited with status 124")
