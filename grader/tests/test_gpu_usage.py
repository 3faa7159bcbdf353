"""The batch's GPU-use log, with nvidia-smi's output faked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from grader.gpu_usage import UsageLog, summarize

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
    assert usage.line().endswith("GPU 0 busy in 2, GPU 1 busy in 1 of 2 samples; all 2 at "
                                 "once in 1")
    only_first = summarize(SMI, ["0"])
    assert only_first.samples == 3 and only_first.busy == {"0": 3}
    assert summarize("[N/A]\ngarbage\n", ["0"]).samples == 0


def test_usage_log_runs_the_sampler_for_the_batch_and_stops_it(tmp_path: Path) -> None:
    # A stand-in for `nvidia-smi --loop=1`: prints its samples, then runs until stopped.
    script = f"import sys, time; sys.stdout.write({SMI!r}); sys.stdout.flush(); time.sleep(60)"

    def popen(argv, **kwargs):
        assert "--loop=1" in argv and any(a.startswith("--query-gpu=") for a in argv)
        return subprocess.Popen([sys.executable, "-c", script], **kwargs)

    log_path = tmp_path / "gpu-usage.csv"
    with UsageLog(log_path, ["0", "1"], popen=popen) as log:
        for _ in range(100):
            if log_path.read_text().count("\n") >= 5:
                break
            subprocess.run(["sleep", "0.05"], check=True)
    assert log.usage is not None and log.usage.all_busy == 1
    assert log._proc is not None and log._proc.returncode is not None


def test_usage_log_without_nvidia_smi_records_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with UsageLog(tmp_path / "gpu-usage.csv", ["0"]) as log:
        pass
    assert log.usage is None and not (tmp_path / "gpu-usage.csv").exists()
