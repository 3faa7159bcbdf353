"""The batch's GPU-use log, with nvidia-smi's output faked."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from grader.classroom.batch import StudentResult
from grader.classroom.gpu_usage import UsageLog, summarize, worker_time

# Two samples of two GPUs (timestamps a few ms apart within a sample), a third cut short.
SMI = """2026/11/21 10:00:00.001, 0, 97, 5000
2026/11/21 10:00:00.004, 1, 0, 10
2026/11/21 10:00:01.001, 0, 88, 5000
2026/11/21 10:00:01.003, 1, 45, 3000
2026/11/21 10:00:02.001, 0, 90, 5000
"""


def test_summarize_counts_busy_samples_per_gpu_and_together() -> None:
    usage = summarize(SMI, ["0", "1"])
    assert usage.samples == 2 and usage.busy == {"0": 2, "1": 1} and usage.all_busy == 1
    assert usage.line() == (
        "GPU use (nvidia-smi, 2 samples over 1 s): GPU 0 busy in 2, "
        "GPU 1 busy in 1; all 2 at once in 1"
    )
    only_first = summarize(SMI, ["0"])
    assert only_first.samples == 3 and only_first.busy == {"0": 3}
    assert summarize("[N/A]\ngarbage\n", ["0"]).samples == 0
    no_times = summarize(SMI.replace("2026/11/21 ", ""), ["0", "1"])
    assert no_times.span_s is None and "(nvidia-smi, 2 samples):" in no_times.line()


def test_usage_log_samples_until_the_batch_ends(tmp_path: Path) -> None:
    samples = iter(
        [
            f"2026/11/21 10:00:0{i}.001, 0, {u}, 5000\n2026/11/21 10:00:0{i}.003, 1, 50, 9\n"
            for i, u in enumerate([97, 0, 12])
        ]
    )
    asked: list[list[str]] = []

    def smi(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        asked.append(argv)
        return subprocess.CompletedProcess(argv, 0, next(samples, ""), "")

    log_path = tmp_path / "gpu-usage.csv"
    with UsageLog(log_path, ["0", "1"], interval_s=0.01, run=smi) as log:
        while len(asked) < 4:
            time.sleep(0.01)
    assert all(a[1].startswith("--query-gpu=") for a in asked)
    assert log.usage is not None and log.usage.samples == 3
    assert log.usage.busy == {"0": 2, "1": 3} and log.usage.all_busy == 2
    settled = len(asked)
    time.sleep(0.05)
    assert len(asked) == settled, "the sampler still runs after the batch"


def test_usage_log_without_nvidia_smi_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with UsageLog(tmp_path / "gpu-usage.csv", ["0"]) as log:
        pass
    assert log.usage is None and not (tmp_path / "gpu-usage.csv").exists()


def test_worker_time_splits_each_students_duration_by_its_phases() -> None:
    graded = StudentResult(
        "ann",
        "graded",
        duration_s=24.0,
        phase_s={"grading": 21.0, "shared": 5.0, "sanitize": 8.0, "gpu_wait": 2.0, "public": 1.0},
    )
    rejected = StudentResult("bob", "graded", duration_s=2.0)  # no child: no phases
    spent = worker_time([graded, rejected, StudentResult("cy", "not a submission")], 2, 20.0)
    assert spent.parts == {
        "start-up": 3.0,
        "untimed tests": 5.0,
        "sanitizer": 8.0,
        "timed tests": 5.0,
        "waiting for the GPU": 2.0,
        "public re-runs": 1.0,
        "no tests": 2.0,
        "waiting": 14.0,
    }
    assert spent.line().startswith("Worker time (2 x 20 s = 40 s): start-up 3 s (8 %), ")
    assert spent.line().endswith("waiting 14 s (35 %)")
