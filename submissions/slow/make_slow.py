"""A deliberately slow but correct submission, for the performance credit (grader/core/credit.py).

The reference solutions with one change: lab3's unrolling8 launcher (written into
the student's file in place of the lab's reduction_launchers.cuh) also runs a
one-thread kernel that spins for SPIN_CYCLES cycles, about 10 us on an H100 at
1.98 GHz, next to the reference's 34 us at 2^24 ints. The answer stays right and
the bar (2x interleaved) is still met, so the timing test passes with a figure
below the reference's: it must earn partial credit on the lab's curve.

    python3 submissions/slow/make_slow.py OUT   # OUT/lab3_reduction/... laid out like skeletons/
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "submissions" / "known_wrong"))  # solution_source.py
from solution_source import with_launchers  # noqa: E402

LAB = "lab3_reduction"
FILE = "reduce_kernels.cu"
LAUNCH = "  unrolling_kernel<8><<<launch.blocks, launch.threads>>>(data, n, partial);\n"
SPIN_CYCLES = 20000
SPIN = f"""
// Deliberately slow: one thread spins for {SPIN_CYCLES} cycles after each unrolling8 launch.
__global__ void spin_kernel(long long cycles) {{
  const long long start = clock64();
  while (clock64() - start < cycles) {{
  }}
}}
"""


def make(out: Path) -> Path:
    """Write the slow submission into OUT, which must not exist yet."""
    if out.exists():
        raise SystemExit(f"make_slow: {out} exists; give a new folder")
    shutil.copytree(ROOT / "solutions", out)
    path = out / LAB / FILE
    text = with_launchers(path.read_text(encoding="utf-8"), ROOT / "labs" / LAB)
    if text.count(LAUNCH) != 1:
        raise SystemExit(f"make_slow: the unrolling8 launch is not once in {path}")
    text = text.replace(LAUNCH, LAUNCH + f"  spin_kernel<<<1, 1>>>({SPIN_CYCLES});\n")
    # In the file's anonymous namespace, as the solution's own kernels are.
    at = text.index("namespace {\n") + len("namespace {\n")
    path.write_text(text[:at] + SPIN + text[at:], encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a new folder, laid out like skeletons/")
    print(make(parser.parse_args(argv).out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
