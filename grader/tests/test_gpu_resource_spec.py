"""scripts/gpu_resource_spec.py: ctest's resource spec for this machine's GPUs, from a
fake `nvidia-smi -L`; it replaces only a spec it wrote, and says why it wrote none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from grader.core.gpu_slots import GpuSlots, read_resource_spec
from grader.tests.helpers import fake_nvidia_smi

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu_resource_spec.py"
TWO_GPUS = "GPU 0: NVIDIA H200 (UUID: GPU-aaaa)\nGPU 1: NVIDIA H200 (UUID: GPU-bbbb)\n"


def _write(
    out: Path, *args: str, smi: Path | None, visible: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The script with only the fake nvidia-smi (or nothing) on its PATH."""
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    env["PATH"] = str(smi or out.parent / "empty")
    if visible is not None:
        env["CUDA_VISIBLE_DEVICES"] = visible
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args, str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_it_writes_ctests_format_with_the_slots_asked_for(tmp_path: Path) -> None:
    out = tmp_path / "gpus.json"
    smi = fake_nvidia_smi(tmp_path, TWO_GPUS)
    proc = _write(out, smi=smi)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text()) == {
        "version": {"major": 1, "minor": 0},
        "local": [{"gpus": [{"id": "0", "slots": 1}, {"id": "1", "slots": 1}]}],
    }
    # Its own spec it replaces, and the grader reads what it writes.
    proc = _write(out, "--slots", "3", smi=smi)
    assert proc.returncode == 0, proc.stderr
    assert read_resource_spec(out) == [GpuSlots("0", 3), GpuSlots("1", 3)]


def test_only_the_gpus_cuda_visible_devices_lists(tmp_path: Path) -> None:
    out = tmp_path / "gpus.json"
    smi = fake_nvidia_smi(tmp_path, TWO_GPUS)
    assert _write(out, smi=smi, visible="1").returncode == 0
    assert read_resource_spec(out) == [GpuSlots("1")]
    proc = _write(tmp_path / "none.json", smi=smi, visible="")
    assert proc.returncode == 3 and "lists no GPU among CUDA_VISIBLE_DEVICES=''" in proc.stderr


def test_a_file_it_did_not_write_is_left_alone(tmp_path: Path) -> None:
    smi = fake_nvidia_smi(tmp_path, TWO_GPUS)
    mine = tmp_path / "mine.json"
    hand_written = '{"version": {"major": 1, "minor": 0}, "local": [{"gpus": [{"id": "0"}]}]}'
    mine.write_text(hand_written)
    proc = _write(mine, smi=smi)
    assert proc.returncode == 2
    assert "exists and was not written by this script: leaving it alone" in proc.stderr
    assert mine.read_text() == hand_written
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    assert _write(link, smi=smi).returncode == 2
    assert not (tmp_path / "elsewhere.json").exists()
    assert _write(tmp_path, smi=smi).returncode == 2  # a folder


def test_without_nvidia_smi_or_a_gpu_it_says_why(tmp_path: Path) -> None:
    out = tmp_path / "gpus.json"
    proc = _write(out, smi=None)
    assert proc.returncode == 3 and "nvidia-smi not found" in proc.stderr
    proc = _write(out, smi=fake_nvidia_smi(tmp_path / "a", "No devices were found\n", 6))
    assert proc.returncode == 3 and "nvidia-smi -L failed: No devices were found" in proc.stderr
    proc = _write(out, smi=fake_nvidia_smi(tmp_path / "b", ""))
    assert proc.returncode == 3 and "lists no GPU" in proc.stderr
    assert not out.exists()
    proc = _write(out, "--slots", "0", smi=fake_nvidia_smi(tmp_path / "c", TWO_GPUS))
    assert proc.returncode == 2 and "--slots must be at least 1" in proc.stderr
