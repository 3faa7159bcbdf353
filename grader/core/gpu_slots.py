"""GPU slots: how many students each GPU grades at once in a batch.

`batch --resource-spec FILE` reads ctest's resource specification file (the one
`ctest --resource-spec-file` takes; scripts/gpu_resource_spec.py writes it):

    {"version": {"major": 1, "minor": 0},
     "local": [{"gpus": [{"id": "0", "slots": 2}, {"id": "1", "slots": 2}]}]}

Each slot is one grading worker, so a GPU of 2 slots grades 2 students at once;
`--gpus N|auto` is one slot per GPU. An id is a GPU's index in `nvidia-smi -L`,
as CUDA_VISIBLE_DEVICES takes it. Workers sharing a GPU still never time a test
beside another test: gpu_lock.py.

In core/, not classroom/, because the students' scripts/gpu_resource_spec.py
writes the same spec for their own `ctest --resource-spec-file`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.core.errors import GraderUsageError

SPEC_VERSION = {"major": 1, "minor": 0}  # the only one ctest reads
_GPU_LINE = re.compile(r"^GPU (\d+):")


@dataclass(frozen=True)
class GpuSlots:
    """One GPU (its nvidia-smi index) and how many students it grades at once."""

    gpu: str
    slots: int = 1


def read_resource_spec(path: Path) -> list[GpuSlots]:
    """The GPUs of a ctest resource spec file; GraderUsageError says what is wrong."""
    where = f"--resource-spec {path}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GraderUsageError(f"{where}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GraderUsageError(f"{where}: cannot read it: {exc}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GraderUsageError(f"{where}: not JSON: {exc}") from None
    return parse_resource_spec(doc, where)


def parse_resource_spec(doc: object, where: str = "resource spec") -> list[GpuSlots]:
    """The `gpus` of ctest's resource spec `doc`, checked as ctest checks them and
    with ids that must be GPU indices."""
    if not isinstance(doc, dict):
        raise GraderUsageError(f"{where}: expected a JSON object with version and local")
    version = doc.get("version")
    if not isinstance(version, dict) or any(
        type(version.get(key)) is not int or version.get(key) != value  # not True, not 1.0
        for key, value in SPEC_VERSION.items()
    ):
        raise GraderUsageError(
            f"{where}: unknown version {json.dumps(version)}: ctest's resource spec "
            f'is version {{"major": 1, "minor": 0}}'
        )
    local = doc.get("local")
    if not isinstance(local, list) or len(local) > 1 or not all(isinstance(r, dict) for r in local):
        raise GraderUsageError(
            f'{where}: "local" must be a list of one object (this machine\'s resources)'
        )
    gpus = local[0].get("gpus") if local else None
    if not isinstance(gpus, list) or not gpus:
        raise GraderUsageError(
            f'{where}: no gpus: expected "local": [{{"gpus": [{{"id": "0", "slots": 1}}, ...]}}]'
        )
    found: list[GpuSlots] = []
    for item in gpus:
        gpu = _one_gpu(item, where)
        if any(g.gpu == gpu.gpu for g in found):
            raise GraderUsageError(f"{where}: GPU {gpu.gpu} is listed twice")
        found.append(gpu)
    return found


def _one_gpu(item: object, where: str) -> GpuSlots:
    if not isinstance(item, dict):
        raise GraderUsageError(f"{where}: each GPU is an object, not {json.dumps(item)}")
    gpu = item.get("id")
    if not isinstance(gpu, str) or not gpu.isascii() or not gpu.isdigit():
        raise GraderUsageError(
            f"{where}: GPU id {json.dumps(gpu)}: expected a GPU's index as nvidia-smi -L "
            'lists it, as a string ("0")'
        )
    slots = item.get("slots", 1)
    # bool is an int to Python, not to JSON.
    if not isinstance(slots, int) or isinstance(slots, bool) or slots < 1:
        raise GraderUsageError(
            f"{where}: GPU {gpu}: slots must be a whole number of at least 1, "
            f"not {json.dumps(slots)}"
        )
    return GpuSlots(str(int(gpu)), slots)


def one_slot_each(gpus: Sequence[str]) -> list[GpuSlots]:
    """What `--gpus` means: each GPU grades one student at a time."""
    return [GpuSlots(gpu) for gpu in gpus]


def check_listed(gpus: Sequence[GpuSlots], listed: Sequence[str]) -> None:
    """Every GPU of the spec must be one nvidia-smi lists (when it lists any)."""
    missing = [g.gpu for g in gpus if g.gpu not in listed]
    if listed and missing:
        raise GraderUsageError(
            f"--resource-spec names GPU {', '.join(missing)}, but nvidia-smi -L lists "
            f"only GPU {', '.join(listed)}"
        )


def worker_gpus(gpus: Sequence[GpuSlots]) -> list[str]:
    """One entry per grading worker: its GPU. Taken round the GPUs, so the first
    students spread over all of them."""
    most = max((g.slots for g in gpus), default=0)
    return [g.gpu for turn in range(most) for g in gpus if turn < g.slots]


def describe(gpus: Sequence[GpuSlots]) -> str:
    """`GPU 0 (2 slots), GPU 1` for the batch's first line."""
    return ", ".join(f"GPU {g.gpu}" + (f" ({g.slots} slots)" if g.slots > 1 else "") for g in gpus)


def gpu_indices(listing: str) -> list[str]:
    """The GPU indices in the output of `nvidia-smi -L`."""
    return [m.group(1) for m in map(_GPU_LINE.match, listing.splitlines()) if m]
