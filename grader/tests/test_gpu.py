"""Reading the GPU probe; the real probe is never called here."""

from __future__ import annotations

from pathlib import Path

from grader.core.gpu import parse_probe, probe, skip_reason
from grader.tests.helpers import make_build


def test_a_present_gpu_is_described_in_one_line() -> None:
    info = parse_probe(
        0,
        '{"name": "NVIDIA H100", "compute_capability": "9.0", "sm_count": 132, '
        '"memory_gb": 85.0, "driver_version": "12.4"}\n',
    )
    assert info.present
    assert info.describe() == ("NVIDIA H100, compute capability 9.0, 132 SMs, 85.0 GB, driver 12.4")
    assert info.as_json()["sm_count"] == 132


def test_exit_77_means_no_gpu_with_the_probes_reason() -> None:
    info = parse_probe(77, "cuda-labs: skipped: no CUDA device (cudaErrorNoDevice)\n")
    assert info.state == "absent" and not info.present
    assert info.describe() == "no GPU: no CUDA device (cudaErrorNoDevice)"


def test_a_broken_probe_is_unknown_and_says_why() -> None:
    info = parse_probe(1, "lab_gpu_info: cudaErrorUnknown\n")
    assert info.state == "unknown"
    assert "exit status 1" in info.reason and "cudaErrorUnknown" in info.reason
    assert parse_probe(0, "hello\n").reason == "GPU probe printed no JSON object"


def test_a_missing_probe_is_no_gpu_known_and_says_so(tmp_path: Path) -> None:
    info = probe(tmp_path)
    assert info.state == "unknown" and not info.present
    assert "lab_gpu_info not found" in info.describe()


def test_the_probe_program_is_run(tmp_path: Path) -> None:
    assert probe(make_build(tmp_path / "a", [], probe="present")).present
    assert probe(make_build(tmp_path / "b", [], probe="absent")).state == "absent"


def test_skip_reason_takes_the_last_marker() -> None:
    assert skip_reason("x\ncuda-labs: skipped: one\ncuda-labs: skipped: two\n") == "two"
    assert skip_reason("nothing here") == ""
