"""An interrupted grading (Ctrl-C) is no grading: the last reports stay as they were,
the exit status is 130, and nothing it started goes on running."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.core.build import configure_and_build
from grader.tests.helpers import (
    PACKAGE_PARENT,
    default_sigint,
    gtest_spec,
    histogram_lab,
    make_build,
    make_repo,
    needs_ctest,
    process_alive,
    setup_spec,
)

LAST_REPORT = {
    "results.json": '{"score": 5}\n',
    "summary.md": "# the last grading: 5/5\n",
    "junit.xml": "<testsuites/>\n",
}


def _wait_for(path: Path, proc: subprocess.Popen[str], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.1)


@needs_ctest
def test_an_interrupted_grading_keeps_the_last_report_and_exits_130(tmp_path: Path) -> None:
    ran = tmp_path / "setup-ran"
    specs = [
        setup_spec("lab1", "ok", ran),
        gtest_spec("lab1", "correctness", "pass", "Hist.Uniform"),
        gtest_spec("lab1", "timing", "hang", "Hist.Fast", timeout=60),
    ]
    build = make_build(tmp_path, specs)
    repo = make_repo(tmp_path, histogram_lab(correctness=1, timing=4))
    report = tmp_path / "out"
    report.mkdir()
    for name, text in LAST_REPORT.items():
        (report / name).write_text(text, encoding="utf-8")
    argv = ["grade", "--build", str(build), "--repo", str(repo), "--report", str(report)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", *argv],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": PACKAGE_PARENT},
        preexec_fn=default_sigint,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(ran, proc)  # the tests have started
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert (
        err.splitlines()[-1] == f"grader: interrupted: no report written, {report} left as it was"
    )
    assert {p.name: p.read_text() for p in report.iterdir()} == LAST_REPORT


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_an_interrupted_build_stops_what_it_started(tmp_path: Path) -> None:
    """The build steps run in a session of their own, which Ctrl-C does not reach."""
    repo, started = tmp_path / "repo", tmp_path / "pid"
    repo.mkdir()
    (repo / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(t NONE)\n"
        f'execute_process(COMMAND /bin/sh -c "echo $$ > {started}; echo [1/2]; exec sleep 60")\n',
        encoding="utf-8",
    )

    def interrupt(line: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        configure_and_build(repo, str(repo), tmp_path / "build", progress=interrupt, sandbox="off")
    sleeper, deadline = int(started.read_text()), time.monotonic() + 10
    while process_alive(sleeper) and time.monotonic() < deadline:  # SIGKILL takes a moment
        time.sleep(0.1)
    assert not process_alive(sleeper)
