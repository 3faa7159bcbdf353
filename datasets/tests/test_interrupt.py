"""Ctrl-C of the generator: one line, exit status 130, no traceback, no half-written file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "datasets.generate",
            "--manifest",
            "datasets/lab1.json",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # Ctrl-C as a terminal delivers it, also where the test run ignores SIGINT
        # (a background job of a non-interactive shell).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.readline()  # one case written: the next is being drawn
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "datasets.generate: interrupted"
    for data in (tmp_path / "out").glob("*.bin"):  # each file whole, with its sidecar
        assert data.with_suffix(".json").is_file()
