"""scripts/provision-runner.sh in report mode: it names what a runner lacks and changes
nothing (run on a PATH that lacks the tools, so no root and no install is involved)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "provision-runner.sh"
BASH = "/bin/bash"


def _report(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(path), "HOME": os.environ.get("HOME", "/")}
    return subprocess.run(
        [BASH, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def _bin(tmp_path: Path) -> Path:
    """A PATH holding python3 only."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "python3").symlink_to(sys.executable)
    return folder


def test_a_path_without_the_tools_is_reported_missing(tmp_path: Path) -> None:
    result = _report(_bin(tmp_path))
    assert result.returncode == 1
    for line in (
        "MISSING  cmake 3.25 or newer",
        "MISSING  ninja",
        "MISSING  bwrap",
        "MISSING  prlimit",
        "MISSING  setpriv",
        "MISSING  nvidia-smi",
    ):
        assert line in result.stdout, line
    assert "ok       python3 3.10+" in result.stdout
    assert "sandbox trial skipped" in result.stdout
    assert "provision-runner.sh --install" in result.stderr


def _with_cmake(tmp_path: Path, version: str) -> Path:
    """The _bin folder plus a `cmake` that reports `version`."""
    folder = _bin(tmp_path)
    cmake = folder / "cmake"
    cmake.write_text(f"#!/bin/bash\necho 'cmake version {version}'\n")
    cmake.chmod(0o755)
    return folder


def test_an_old_cmake_is_reported_with_its_version(tmp_path: Path) -> None:
    result = _report(_with_cmake(tmp_path, "3.22.1"))
    assert "MISSING  cmake 3.25 or newer (found 3.22)" in result.stdout


def test_a_recent_cmake_is_accepted(tmp_path: Path) -> None:
    assert "ok       cmake 4.1" in _report(_with_cmake(tmp_path, "4.1.0")).stdout


def test_an_unknown_option_is_a_usage_error(tmp_path: Path) -> None:
    result = _report(_bin(tmp_path), "--yes")
    assert result.returncode == 2
    assert "unknown option --yes" in result.stderr
