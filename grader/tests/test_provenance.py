"""A report counts only when the harness's end marker vouches for it: each way a
student could forge a verdict fails with its own reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.core.launch import ProcessResult
from grader.core.model import Figure, Status
from grader.core.provenance import (
    FOREIGN_MARKER,
    NO_MARKER,
    PREEXISTING,
    Provenance,
    RunFiles,
    read_marker,
)
from grader.core.verdict import classify
from grader.tests.helpers import OneByOne, fake_test

WITH_GPU = OneByOne(gpu_present=True)
NO_GPU = OneByOne(gpu_present=False)
NONCE = "f" * 32


def test_a_report_written_by_the_student_before_ending_the_process_fails() -> None:
    outcome = WITH_GPU.run(fake_test("forged_report"))
    assert outcome.status is Status.FAILED
    assert outcome.reason == NO_MARKER


def test_an_early_exit_0_fails_for_want_of_the_end_marker() -> None:
    outcome = WITH_GPU.run(fake_test("exit0_no_xml"))
    assert (outcome.status, outcome.reason) == (Status.FAILED, NO_MARKER)


def test_a_marker_with_another_nonce_fails() -> None:
    outcome = WITH_GPU.run(fake_test("wrong_nonce"))
    assert (outcome.status, outcome.reason) == (Status.FAILED, FOREIGN_MARKER)


def test_an_exit_status_other_than_the_harness_result_fails() -> None:
    outcome = WITH_GPU.run(fake_test("status_mismatch"))
    assert outcome.status is Status.FAILED
    assert outcome.reason == "exit status 0 differs from the harness's result 1"


def test_a_report_already_there_before_the_run_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def planted(folder: Path) -> RunFiles:
        files = RunFiles(folder, NONCE)
        files.report.write_text("<testsuites/>", encoding="utf-8")
        return files

    monkeypatch.setattr(RunFiles, "fresh", staticmethod(planted))
    outcome = WITH_GPU.run(fake_test("pass"))
    assert (outcome.status, outcome.reason) == (Status.FAILED, PREEXISTING)


def test_a_vouched_for_pass_still_passes_and_a_real_failure_keeps_its_message() -> None:
    assert WITH_GPU.run(fake_test("pass")).status is Status.PASSED
    failed = WITH_GPU.run(fake_test("fail"))
    assert failed.reason.startswith("bin 17: expected 1024, got 0")


def test_without_a_gpu_exit_77_is_still_a_skip_without_any_marker() -> None:
    assert NO_GPU.run(fake_test("no_gpu")).status is Status.SKIPPED


def test_a_crash_before_the_marker_keeps_its_own_reason() -> None:
    outcome = WITH_GPU.run(fake_test("cuda_crash"))
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("exited with status 1")


@pytest.mark.parametrize(
    "marker, returncode, problem",
    [
        (f"{NONCE} 0\n", 0, None),
        (f"{NONCE} 1\n", 1, None),
        (None, 0, NO_MARKER),
        ("", 0, FOREIGN_MARKER),
        (f"{NONCE}\n", 0, FOREIGN_MARKER),
        (f"{NONCE} zero\n", 0, FOREIGN_MARKER),
        (f"{'e' * 32} 0\n", 0, FOREIGN_MARKER),
        (f"{NONCE} \u00e9\n", 0, FOREIGN_MARKER),
        (f"{NONCE} 1\n", 0, "exit status 0 differs from the harness's result 1"),
    ],
)
def test_the_marker_must_hold_the_nonce_and_the_exit_status(
    marker: str | None, returncode: int, problem: str | None
) -> None:
    assert Provenance(NONCE, marker).problem(returncode) == problem


def test_a_marker_found_with_exit_77_is_no_skip() -> None:
    result = ProcessResult(77, "cuda-labs: skipped: no CUDA device (x)\n")
    provenance = Provenance(NONCE, f"{NONCE} 0\n")
    status, reason = classify(fake_test("pass"), result, None, False, provenance)
    assert (status, reason) == (Status.FAILED, "exit status 77 differs from the harness's result 0")


def test_without_a_marker_a_failing_exit_ignores_the_report() -> None:
    from grader.core.gtest_xml import GtestCase

    forged = [GtestCase("Suite.Test", ran=True, skipped=False, failures=("forged reason",))]
    result = ProcessResult(1, "real output\n")
    status, reason = classify(fake_test("pass"), result, forged, True, Provenance(NONCE, None))
    assert status is Status.FAILED
    assert "forged reason" not in reason and "real output" in reason


def test_a_large_or_missing_marker_reads_as_unusable(tmp_path: Path) -> None:
    assert read_marker(tmp_path / "none") is None
    big = tmp_path / "big"
    big.write_text("x" * 10_000)
    assert read_marker(big) == ""
    assert Provenance(NONCE, read_marker(big)).problem(0) == FOREIGN_MARKER


def test_a_figure_is_read_from_a_vouched_for_report_only() -> None:
    passed = WITH_GPU.run(fake_test("pass_with_figure", kind="timing"))
    assert passed.status is Status.PASSED
    assert passed.figure == Figure("fastest variant / copy ceiling", 0.912346, 0.85)
    forged = WITH_GPU.run(fake_test("forged_figure", kind="timing"))
    assert (forged.status, forged.reason, forged.figure) == (Status.FAILED, FOREIGN_MARKER, None)


def test_a_figure_printed_on_the_output_is_never_read() -> None:
    outcome = WITH_GPU.run(fake_test("printed_figure", kind="timing"))
    assert "cuda-labs: timing: fastest variant / copy ceiling: 99" in outcome.output
    assert (outcome.status, outcome.figure) == (Status.PASSED, None)


def test_a_failed_bar_keeps_its_vouched_for_figure_for_the_reports_to_leave_out() -> None:
    outcome = WITH_GPU.run(fake_test("fail_with_figure", kind="timing"))
    assert outcome.status is Status.FAILED
    assert outcome.figure is not None and outcome.figure.value == 0.912346
