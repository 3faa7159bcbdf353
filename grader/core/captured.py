"""Running a helper program (ctest, git, binutils, nvidia-smi, bwrap) for what it prints:
its output as text whatever bytes it printed, its exit status to read, not raise on."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from typing import Any


def run_captured(
    argv: Sequence[str], timeout_s: float, **options: Any
) -> subprocess.CompletedProcess[str]:
    """`argv` run within `timeout_s` (OSError and TimeoutExpired are the caller's);
    `options` go to subprocess.run (env, cwd, input...)."""
    return subprocess.run(
        list(argv),
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout_s,
        check=False,
        **options,
    )
