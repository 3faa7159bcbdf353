"""Ctrl-C: every command line stops with one line and exit status 130, no traceback."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader import cli
from grader.command import Command
from grader.core.errors import EXIT_INTERRUPTED
from grader.tests.helpers import PACKAGE_PARENT, default_sigint, make_build


def _interrupted(args: argparse.Namespace) -> int:
    raise KeyboardInterrupt


@pytest.mark.parametrize("package", ["grader", "grader.classroom"])
def test_an_interrupted_command_says_so_in_one_line(
    package: str, capsys: pytest.CaptureFixture[str]
) -> None:
    command = Command("wait", "waits", lambda parser: None, _interrupted)
    assert cli.main(["wait"], [command], package) == EXIT_INTERRUPTED == 130
    assert capsys.readouterr().err == "grader: interrupted\n"


def _interrupt_when_started(argv: list[str], started: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run argv, send it SIGINT once `started` exists (its child is waiting), and return
    its exit status and stderr."""
    proc = subprocess.Popen(
        argv,
        env={**os.environ, "PYTHONPATH": PACKAGE_PARENT, **env},
        preexec_fn=default_sigint,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def _waiting_program(path: Path, started: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch {started}\nexec sleep 60\n")
    path.chmod(0o755)


def test_ctrl_c_of_a_grading_command(tmp_path: Path) -> None:
    build = make_build(tmp_path, [])
    started = tmp_path / "started"
    _waiting_program(build / "bin" / "lab_gpu_info", started)
    argv = [sys.executable, "-m", "grader", "probe", "--build", str(build)]
    status, err = _interrupt_when_started(argv, started, {})
    assert (status, err) == (130, "grader: interrupted\n")


def test_ctrl_c_of_a_classroom_command(tmp_path: Path) -> None:
    (tmp_path / "repos" / "ann" / ".git").mkdir(parents=True)
    policy = tmp_path / "deadline.json"
    policy.write_text('{"due": "2026-12-01T23:59:00+01:00"}')
    started = tmp_path / "started"
    _waiting_program(tmp_path / "bin" / "git", started)
    argv = [sys.executable, "-m", "grader.classroom", "collect", str(tmp_path / "repos")]
    argv += ["--policy", str(policy), "--out", str(tmp_path / "class")]
    status, err = _interrupt_when_started(argv, started, {"PATH": f"{tmp_path / 'bin'}:/bin"})
    assert (status, err) == (130, "grader: interrupted\n")
