"""Ctrl-C of scripts/check_skips.py (scripts/test.sh runs it for seconds): one line, exit
status 130, no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from grader.tests.helpers import default_sigint

REPO = Path(__file__).resolve().parents[2]


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path) -> None:
    build, fake, started = tmp_path / "build", tmp_path / "fake", tmp_path / "started"
    for script, text in (
        (build / "bin" / "lab_gpu_info", "#!/bin/sh\nexit 77\n"),  # no GPU here
        (fake / "ctest", f"#!/bin/sh\ntouch {started}\nexec sleep 60\n"),  # a long ctest
    ):
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(text)
        script.chmod(0o755)
    proc = subprocess.Popen(
        [sys.executable, "scripts/check_skips.py", str(build)],
        cwd=REPO,
        env={**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"},
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "check_skips: interrupted"
