"""The last test of a ctest run: did the GPU tests check anything?

    python3 no_gpu_summary.py --log LOG [--quiet] -- PROBE [ARGS...]

Without a GPU every lab test reports itself skipped, and ctest would end with
"100% tests passed" and a long list of skipped tests, exit 0. This test runs
the GPU probe (lab_gpu_info: exit 0 with a GPU, 77 without) and, without one,
prints a few short lines saying how many GPU tests of this run were skipped and
what to do (none with --quiet), then fails. LOG is ctest's log of the run in
progress (the lab tests print "cuda-labs: skipped: no CUDA device" when they
skip); when it cannot be read the lines give no count. With
CUDA_LABS_EXPECT_NO_GPU=1 (the CI presets: CI has no GPU) the same lines are
printed and the test is skipped (exit 77, its SKIP_RETURN_CODE): it checked
nothing, so it must not read "Passed".
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

SKIP_MARKER = "cuda-labs: skipped: no CUDA device"
# What a lab program prints when it stops for want of a GPU (its exit 4): a table's skip.
PROGRAM_NO_GPU = ": needs an NVIDIA GPU: "
NO_GPU_EXIT = 77
EXPECT_ENV = "CUDA_LABS_EXPECT_NO_GPU"
# ctest's log: each test's record starts with "<i>/<n> Testing: <name>".
_RECORD = re.compile(r"^\d+/\d+ Testing: (\S.*)$", re.MULTILINE)
_LAB_TEST = re.compile(r"lab\d+\.")
_TABLE = re.compile(r"tables\.lab\d+\.")


def count_skipped(log: str) -> int:
    """GPU tests of the log that skipped: lab tests (labN.*) whose output holds the skip
    marker, the course's tables (tables.labN.*) whose program said it needs a GPU."""
    starts = list(_RECORD.finditer(log))
    count = 0
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(log)
        output, name = log[match.end() : end], match.group(1)
        if (_LAB_TEST.match(name) and SKIP_MARKER in output) or (
            _TABLE.match(name) and PROGRAM_NO_GPU in output
        ):
            count += 1
    return count


def no_gpu_lines(skipped: int | None) -> list[str]:
    """What the run checked without a GPU (nothing) and what to do, in short lines."""
    what = "the GPU tests were" if skipped is None else f"{skipped} GPU tests were"
    if skipped == 1:
        what = "1 GPU test was"
    return [
        f"no CUDA GPU: {what} skipped, nothing was checked.",
        "Run the tests on a machine with an NVIDIA GPU and driver",
        "(nvidia-smi must list the GPU). Without one,",
        "  cmake --build --preset student",
        "checks that your code compiles, and",
        "  python3 -m grader check --impl skeletons",
        "checks it against the lab's rules.",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, required=True, help="ctest's log of this run")
    parser.add_argument("--quiet", action="store_true", help="print nothing without a GPU")
    parser.add_argument("probe", nargs="+", help="the GPU probe and its arguments")
    args = parser.parse_args(argv)
    try:
        proc = subprocess.run(
            args.probe, capture_output=True, text=True, errors="replace", timeout=120, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"cuda-labs: the GPU probe {args.probe[0]} did not run: {exc}")
        return 1
    said = (proc.stdout.strip() or proc.stderr.strip()).splitlines()
    if proc.returncode == 0:
        print(f"cuda-labs: the GPU tests ran on a GPU: {said[0] if said else 'present'}")
        return 0
    if proc.returncode != NO_GPU_EXIT:
        print(
            f"cuda-labs: the GPU probe {args.probe[0]} failed (exit {proc.returncode}): "
            f"{said[-1] if said else 'no output'}"
        )
        return 1
    expected = os.environ.get(EXPECT_ENV) == "1"
    if not args.quiet:
        try:
            log = args.log.read_text(encoding="utf-8", errors="replace")
            skipped: int | None = count_skipped(log)
        except OSError:
            skipped = None
        print(*no_gpu_lines(skipped), sep="\n")
        if expected:
            print(f"cuda-labs: {EXPECT_ENV}=1: no GPU is expected here, so this is skipped")
    return NO_GPU_EXIT if expected else 1


if __name__ == "__main__":
    sys.exit(main())
