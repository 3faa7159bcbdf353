"""The GPU's name, driver and current clocks, recorded around every timing test.

A timing verdict travels with the conditions it was measured under: a GPU held
at low clocks (power or thermal limits, another job) explains a slow run. Read
with nvidia-smi just before and just after the test; empty when it is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence

QUERY = ("name", "driver_version", "clocks.sm", "clocks.mem")
_KEYS = ("name", "driver", "sm_mhz", "mem_mhz")
_TIMEOUT_S = 10
Run = Callable[..., subprocess.CompletedProcess[str]]


def parse(text: str) -> dict[str, str]:
    """The first GPU's line of `--format=csv,noheader,nounits` output, keyed by _KEYS."""
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if len(fields) == len(QUERY) and fields[0]:
            return dict(zip(_KEYS, fields))
    return {}


def visible_gpu(env: Mapping[str, str] = os.environ) -> str | None:
    """The GPU the tests run on, as nvidia-smi's `-i` takes it: the first entry of
    CUDA_VISIBLE_DEVICES (a batch worker's GPU), or None for nvidia-smi's first GPU.

    nvidia-smi ignores CUDA_VISIBLE_DEVICES, so without `-i` a worker pinned to
    GPU 1 would record GPU 0's clocks. Indices agree with CUDA's only under
    CUDA_DEVICE_ORDER=PCI_BUS_ID, which the batch sets; UUIDs always agree.
    """
    first = env.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return first or None


def read(runner: Run = subprocess.run, gpu: str | None = None) -> dict[str, str]:
    """The clocks of `gpu` (default: the visible one) now, or {} when nvidia-smi is
    missing or fails."""
    gpu = gpu if gpu is not None else visible_gpu()
    args = [f"--query-gpu={','.join(QUERY)}", "--format=csv,noheader,nounits"]
    text = nvidia_smi([*args, *([f"--id={gpu}"] if gpu is not None else [])], runner)
    return parse(text) if text is not None else {}


def nvidia_smi(
    args: Sequence[str], run: Run = subprocess.run, timeout_s: float = _TIMEOUT_S
) -> str | None:
    """What `nvidia-smi ARGS` prints, or None when it is missing, fails or hangs. `run`
    stands in for subprocess.run in tests, which ask no PATH for the program."""
    smi = shutil.which("nvidia-smi") if run is subprocess.run else "nvidia-smi"
    if smi is None:
        return None
    try:
        proc = run([smi, *args], capture_output=True, text=True, timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def around(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    """One record: name and driver, and the SM and memory clocks before and after."""
    if not before and not after:
        return {}
    record = {key: (before or after)[key] for key in ("name", "driver")}
    for label, clocks in (("before", before), ("after", after)):
        for key in ("sm_mhz", "mem_mhz"):
            record[f"{key}_{label}"] = clocks.get(key, "")
    return record
