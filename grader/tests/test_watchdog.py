"""Timeouts sized to a reference grading (grader/core/watchdog.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.core.errors import GraderUsageError
from grader.core.model import LabTest, Status
from grader.core.runner import Runner
from grader.core.watchdog import (
    HARNESS_KERNEL_TIMEOUT_S,
    KERNEL_FLOOR_S,
    PROCESS_FLOOR_S,
    Calibration,
)
from grader.tests.helpers import (
    fake_test,
    gtest_spec,
    make_build,
    make_repo,
    needs_ctest,
    run_grade,
)

GPU = "NVIDIA H100 80GB HBM3"


def _results(path: Path, rows: list[tuple[str, str, str, float]], gpu: str = GPU) -> Path:
    """A results.json as `grade --report` writes it: (name, kind, status, seconds)."""
    tests = [
        {
            "name": f"{name} ({kind})",
            "status": status,
            "extra_data": {"lab": name.split(".")[0], "kind": kind, "duration_s": seconds},
        }
        for name, kind, status, seconds in rows
    ]
    doc = {"tests": tests, "extra_data": {"gpu": {"name": gpu}}}
    path.mkdir(parents=True, exist_ok=True)
    (path / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    return path


def _calibration(tmp_path: Path) -> Calibration:
    return Calibration.read(
        _results(
            tmp_path / "ref",
            [
                ("lab1.Suite.Fast", "correctness", "passed", 0.05),
                ("lab1.Suite.Slow", "correctness", "passed", 0.5),
                ("lab1.Suite.Broken", "correctness", "failed", 0.3),
                ("lab1.Timing.Big", "timing", "passed", 4.0),
            ],
        )
    )


def test_only_passed_tests_with_a_duration_are_read(tmp_path: Path) -> None:
    calibration = _calibration(tmp_path)
    assert dict(calibration.seconds) == {
        "lab1.Suite.Fast": 0.05,
        "lab1.Suite.Slow": 0.5,
        "lab1.Timing.Big": 4.0,
    }
    assert calibration.gpu == GPU
    assert Calibration.read(tmp_path / "ref" / "results.json").seconds == calibration.seconds


@pytest.mark.parametrize("content", ["", "{}", '{"tests": [], "extra_data": {"gpu": {}}}'])
def test_a_file_that_is_not_a_grading_is_a_usage_error(tmp_path: Path, content: str) -> None:
    (tmp_path / "results.json").write_text(content, encoding="utf-8")
    with pytest.raises(GraderUsageError, match="--calibration"):
        Calibration.read(tmp_path)


def test_a_missing_file_and_a_grading_with_no_pass_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(GraderUsageError, match="not the results.json"):
        Calibration.read(tmp_path / "absent")
    failed = _results(tmp_path / "f", [("lab1.A.b", "correctness", "failed", 1.0)])
    with pytest.raises(GraderUsageError, match="no passed test"):
        Calibration.read(failed)


def test_another_gpu_model_is_refused(tmp_path: Path) -> None:
    calibration = _calibration(tmp_path)
    calibration.check_gpu(GPU)
    calibration.check_gpu(None)  # no GPU name known: nothing to compare
    with pytest.raises(GraderUsageError, match="measured on NVIDIA H100.*this GPU is Tesla T4"):
        calibration.check_gpu("Tesla T4")


def _test(name: str) -> LabTest:
    return LabTest(name=name, lab="lab1", kind="correctness")


def test_timeouts_are_a_multiple_of_the_reference_between_the_floor_and_the_flat_value(
    tmp_path: Path,
) -> None:
    calibration = _calibration(tmp_path)
    fast, slow, big = _test("lab1.Suite.Fast"), _test("lab1.Suite.Slow"), _test("lab1.Timing.Big")
    assert calibration.kernel_timeout([fast], 10.0) == KERNEL_FLOOR_S
    assert calibration.kernel_timeout([slow], 10.0) == pytest.approx(5.0)
    assert calibration.kernel_timeout([big], 10.0) == 10.0  # never above the flat value
    assert calibration.process_timeout([fast], 60.0) == PROCESS_FLOOR_S
    assert calibration.process_timeout([big], 60.0) == pytest.approx(40.0)
    # A process running several tests: the longest one's wait, all of their time.
    assert calibration.kernel_timeout([fast, slow], 10.0) == pytest.approx(5.0)
    assert calibration.process_timeout([slow, big], 60.0) == pytest.approx(45.0)


def test_a_case_faster_than_the_reports_millisecond_is_sized_at_the_floors(
    tmp_path: Path,
) -> None:
    # A small case settled in a group reads 0.000 s: it passed, so its hang must stop at
    # the floors, and so must its group's, not at the flat values.
    calibration = Calibration.read(
        _results(
            tmp_path / "ref",
            [
                ("lab1.Suite.Tiny", "correctness", "passed", 0.0),
                ("lab1.Suite.Fast", "correctness", "passed", 0.05),
            ],
        )
    )
    tiny = _test("lab1.Suite.Tiny")
    fast = _test("lab1.Suite.Fast")
    assert calibration.kernel_timeout([tiny], 10.0) == KERNEL_FLOOR_S
    assert calibration.process_timeout([tiny, fast], 60.0) == PROCESS_FLOOR_S


def test_a_test_the_reference_did_not_pass_and_a_timed_test_keep_the_flat_values(
    tmp_path: Path,
) -> None:
    calibration = _calibration(tmp_path)
    timed = LabTest(name="lab1.Timing.Big", lab="lab1", kind="timing", run_serial=True)
    for tests in (
        [_test("lab1.Suite.Broken")],
        [_test("lab1.Suite.Fast"), _test("lab1.New")],
        [timed],
        [_test("lab1.Suite.Fast"), timed],
    ):
        assert calibration.kernel_timeout(tests, 10.0) == 10.0
        assert calibration.process_timeout(tests, 60.0) == 60.0


def _env_probe(name: str) -> LabTest:
    """A test that prints the kernel watchdog it was given."""
    script = "import os; print('watchdog=' + os.environ.get('LAB_KERNEL_TIMEOUT_S', 'flat'))"
    return LabTest(name=name, lab="lab1", kind="data", command=(sys.executable, "-c", script))


def test_the_runner_gives_a_calibrated_test_its_sized_watchdog(tmp_path: Path) -> None:
    calibration = _calibration(tmp_path)
    runner = Runner(gpu_present=True, calibration=calibration)
    assert "watchdog=1" in runner.run(_env_probe("lab1.Suite.Fast")).output
    assert "watchdog=5" in runner.run(_env_probe("lab1.Suite.Slow")).output
    assert "watchdog=flat" in runner.run(_env_probe("lab1.Other")).output
    assert "watchdog=flat" in Runner(gpu_present=True).run(_env_probe("lab1.Suite.Fast")).output
    assert runner.timeout_for(fake_test("pass", "Suite.Fast", timeout=60)) == PROCESS_FLOOR_S
    assert runner.timeout_for(fake_test("pass", "Other", timeout=60)) == 60


def test_a_lower_watchdog_the_test_asks_for_is_kept(tmp_path: Path) -> None:
    calibration = _calibration(tmp_path)
    runner = Runner(
        gpu_present=True, calibration=calibration, extra_env={"LAB_KERNEL_TIMEOUT_S": "3"}
    )
    assert "watchdog=3" in runner.run(_env_probe("lab1.Suite.Slow")).output
    assert HARNESS_KERNEL_TIMEOUT_S > 5.0


def test_a_hang_under_a_calibration_is_stopped_at_the_sized_timeout(tmp_path: Path) -> None:
    ref = _results(tmp_path / "ref", [("lab1.Suite.Test", "correctness", "passed", 0.01)])
    runner = Runner(gpu_present=True, calibration=Calibration.read(ref))
    assert runner.timeout_for(fake_test("hang", timeout=600)) == PROCESS_FLOOR_S
    outcome = runner.run(fake_test("hang", timeout=600))
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith(f"timed out after {PROCESS_FLOOR_S:g} s")


def _grade(tmp_path: Path, calibration: Path) -> subprocess.CompletedProcess[str]:
    build = make_build(tmp_path, [gtest_spec("lab1", "correctness", "pass", "Hist.Small")])
    lab = {"title": "Histogram", "score": {"correctness": 1, "timing": 4}}
    repo = make_repo(tmp_path, {"lab1_histogram": lab})
    return run_grade(tmp_path, repo, "--build", str(build), "--calibration", str(calibration))


@needs_ctest
@pytest.mark.parametrize("gpu", [None, "Tesla T4"])
def test_grade_refuses_a_calibration_it_cannot_use_before_any_test(
    tmp_path: Path, gpu: str | None
) -> None:
    calibration = tmp_path / "absent"
    if gpu is not None:
        calibration = _results(tmp_path / "t4", [("lab1.A.b", "correctness", "passed", 1)], gpu)
    proc = _grade(tmp_path, calibration)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1].startswith("grader: error: --calibration")
    assert not (tmp_path / "out" / "results.json").exists()


@needs_ctest
def test_grade_with_a_calibration_from_this_gpu_says_so_in_the_report(tmp_path: Path) -> None:
    rows = [("lab1.Hist.Small", "correctness", "passed", 0.2)]
    proc = _grade(tmp_path, _results(tmp_path / "ref", rows))
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    summary = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert "Timeouts were sized to the calibration grading's times" in summary
