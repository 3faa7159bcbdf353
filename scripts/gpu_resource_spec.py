"""Write ctest's resource spec file for this machine's GPUs, from `nvidia-smi -L`.

    python3 scripts/gpu_resource_spec.py [--slots N] OUT.json
    ctest --test-dir BUILD --resource-spec-file OUT.json -j N
    python3 -m grader.classroom batch SUBMISSIONS --report R --resource-spec OUT.json

Each GPU gets N slots (default 1): ctest runs up to N GPU tests on it at once, the
grader's batch grades N students on it at once. Ids are nvidia-smi's indices, the
GPUs CUDA_VISIBLE_DEVICES lists where it is set. OUT is written only when it is
new or a spec this script wrote (its exact text); anything else is left alone.
Exit 0 written, 2 bad arguments or an OUT it did not write, 3 no GPU listed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.core.gpu_slots import SPEC_VERSION, gpu_indices  # noqa: E402

EXIT_USAGE = 2
EXIT_NO_GPU = 3


def spec_text(gpus: list[str], slots: int) -> str:
    """The spec, as this script writes it (and recognises it)."""
    doc = {
        "version": SPEC_VERSION,
        "local": [{"gpus": [{"id": gpu, "slots": slots} for gpu in gpus]}],
    }
    return json.dumps(doc, indent=2) + "\n"


def written_here(text: str) -> bool:
    """Whether `text` is a spec this script wrote: its exact text for its GPUs and slots."""
    try:
        gpus = json.loads(text)["local"][0]["gpus"]
        ids = [str(gpu["id"]) for gpu in gpus]
        slots = int(gpus[0]["slots"])
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return text == spec_text(ids, slots)


def listed_gpus() -> list[str]:
    """nvidia-smi's GPU indices, only those CUDA_VISIBLE_DEVICES lists where it is set.
    Raises SystemExit with the reason when there is none."""
    if shutil.which("nvidia-smi") is None:
        sys.exit(
            _fail(
                "nvidia-smi not found (no NVIDIA driver here?); write the spec by hand", EXIT_NO_GPU
            )
        )
    try:
        proc = subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        sys.exit(_fail(f"nvidia-smi -L failed: {exc}", EXIT_NO_GPU))
    if proc.returncode != 0:
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        reason = detail[-1] if detail else f"exit status {proc.returncode}"
        sys.exit(_fail(f"nvidia-smi -L failed: {reason}", EXIT_NO_GPU))
    gpus = gpu_indices(proc.stdout)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        allowed = {entry.strip() for entry in visible.split(",")}
        gpus = [gpu for gpu in gpus if gpu in allowed]
    if not gpus:
        where = f" among CUDA_VISIBLE_DEVICES={visible!r}" if visible is not None else ""
        sys.exit(_fail(f"nvidia-smi -L lists no GPU{where}", EXIT_NO_GPU))
    return gpus


def _fail(message: str, status: int) -> int:
    print(f"gpu_resource_spec: {message}", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 scripts/gpu_resource_spec.py",
        description="Write ctest's resource spec (JSON) for this machine's GPUs.",
    )
    parser.add_argument("out", type=Path, metavar="OUT.json")
    parser.add_argument(
        "--slots",
        type=int,
        default=1,
        metavar="N",
        help="tests (ctest) or students (grader batch) per GPU at once (default 1)",
    )
    args = parser.parse_args(argv)
    if args.slots < 1:
        return _fail(f"--slots must be at least 1, got {args.slots}", EXIT_USAGE)
    out: Path = args.out
    ours = out.is_file() and not out.is_symlink() and written_here(out.read_text(errors="replace"))
    if (out.exists() or out.is_symlink()) and not ours:
        return _fail(
            f"{out} exists and was not written by this script: leaving it alone "
            "(remove it, or give another name)",
            EXIT_USAGE,
        )
    gpus = listed_gpus()
    # "x": a file that appeared since the check above is not replaced either.
    with open(out, "w" if ours else "x", encoding="utf-8") as stream:
        stream.write(spec_text(gpus, args.slots))
    print(f"{out}: GPU {', '.join(gpus)}, {args.slots} slot(s) each")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C: one line and 130, as the grader's commands
        print("gpu_resource_spec: interrupted", file=sys.stderr)
        sys.exit(130)
