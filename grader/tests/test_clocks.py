"""The GPU clocks recorded around timing tests, without a GPU (nvidia-smi faked)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from grader.core import clocks
from grader.core.model import LabTest, Outcome, Status
from grader.core.reports import result_test
from grader.core.scoring import ScoredTest
from grader.tests.helpers import OneByOne

SMI = "NVIDIA H100 80GB HBM3, 550.54.15, 1980, 2619\n"


def test_parse_reads_the_first_gpu() -> None:
    assert clocks.parse(SMI + "NVIDIA H100, 550.54.15, 345, 2619\n") == {
        "name": "NVIDIA H100 80GB HBM3",
        "driver": "550.54.15",
        "sm_mhz": "1980",
        "mem_mhz": "2619",
    }
    assert clocks.parse("") == {} and clocks.parse("garbage") == {}


def test_read_without_nvidia_smi_or_when_it_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("grader.core.clocks.shutil.which", lambda name: None)
    assert clocks.read() == {}
    monkeypatch.setattr("grader.core.clocks.shutil.which", lambda name: "/usr/bin/nvidia-smi")

    def failed(argv: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(argv, 9, "", "no devices")

    assert clocks.read(failed) == {}

    def ok(argv: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(argv, 0, SMI, "")

    assert clocks.read(ok)["sm_mhz"] == "1980"


def test_read_asks_for_the_gpu_the_tests_see(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("grader.core.clocks.shutil.which", lambda name: "/usr/bin/nvidia-smi")
    asked: list[list[str]] = []

    def smi(argv: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        asked.append(argv)
        return subprocess.CompletedProcess(argv, 0, SMI, "")

    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    clocks.read(smi)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    clocks.read(smi)
    assert asked[0][-1] == "--id=1" and not any(a.startswith("--id") for a in asked[1])
    assert clocks.visible_gpu({"CUDA_VISIBLE_DEVICES": "GPU-1234, 0"}) == "GPU-1234"
    assert clocks.visible_gpu({"CUDA_VISIBLE_DEVICES": ""}) is None


def test_around_keeps_both_readings() -> None:
    before = clocks.parse(SMI)
    after = {**before, "sm_mhz": "1755"}
    assert clocks.around(before, after) == {
        "name": "NVIDIA H100 80GB HBM3",
        "driver": "550.54.15",
        "sm_mhz_before": "1980",
        "mem_mhz_before": "2619",
        "sm_mhz_after": "1755",
        "mem_mhz_after": "2619",
    }
    assert clocks.around({}, {}) == {}


def test_timing_tests_carry_the_clocks_into_results_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An nvidia-smi that reads 1980 MHz before the test and 1755 MHz after it.
    first, second = SMI.strip().splitlines()[0], SMI.strip().splitlines()[0].replace("1980", "1755")
    smi = tmp_path / "nvidia-smi"
    smi.write_text(
        f'#!/bin/sh\nif [ -e "{tmp_path}/read" ]; then echo "{second}"; '
        f'else : > "{tmp_path}/read"; echo "{first}"; fi\n'
    )
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    runner = OneByOne(gpu_present=True)
    timing = LabTest(name="lab1.Timing.X", lab="lab1", kind="timing", command=("true",))
    outcome = runner.run(timing)
    assert outcome.clocks["sm_mhz_before"] == "1980" and outcome.clocks["sm_mhz_after"] == "1755"
    correctness = LabTest(name="lab1.C", lab="lab1", kind="correctness", command=("true",))
    assert runner.run(correctness).clocks == {}
    scored = ScoredTest(timing, Outcome(Status.PASSED, clocks=outcome.clocks), 4, 4)
    assert (
        result_test(scored, "1.2.1", False)["extra_data"]["gpu_clocks"]["name"]
        == "NVIDIA H100 80GB HBM3"
    )
