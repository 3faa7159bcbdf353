"""Ctrl-C of the maintainer scripts that read the files they are given: one line, exit
status 130, no traceback. Each is held reading a FIFO whose writer writes nothing. The
others (readme_bars, readme_sections, gpu_resource_spec, bench_summary) read only the
repository or regular files, and end the same way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.tests.helpers import default_sigint

REPO = Path(__file__).resolve().parents[2]


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


# Each script's arguments, given the FIFO it is to read.
CASES: dict[str, tuple[str, Callable[[Path, Path], list[str]]]] = {
    "calibrate": ("results.json", lambda fifo, d: [str(fifo)]),
    "credit_table": ("cal.json", lambda fifo, d: ["--calibration", str(fifo), str(d / "a.json")]),
    "compare_verdicts": ("a/results.json", lambda fifo, d: [str(fifo.parent), str(d / "b")]),
    "suite_summary": ("junit-solutions-lab1.xml", lambda fifo, d: [str(fifo.parent)]),
}


@pytest.mark.parametrize("script", sorted(CASES))
def test_ctrl_c_is_one_line_and_exit_130(script: str, tmp_path: Path) -> None:
    name, arguments = CASES[script]
    fifo = _fifo(tmp_path / name)
    proc = subprocess.Popen(
        [sys.executable, f"scripts/{script}.py", *arguments(fifo, tmp_path)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # A writer's open succeeds once the script opened the FIFO to read: it then waits
    # for bytes that never come.
    deadline, writer = time.monotonic() + 30, None
    while writer is None and time.monotonic() < deadline and proc.poll() is None:
        try:
            writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.02)
    assert writer is not None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    os.close(writer)
    assert proc.returncode == 130, err
    assert err.strip() == f"{script}: interrupted"
