#!/usr/bin/env python3
"""The course's Python reader of data.bin: the histogram of the 10-bit samples, and
its first 10 bins printed as the course's `print(histogramme[:10])` prints them, to
compare with lab1_histogram's `first 10 bins` column.

    python3 labs/lab1_histogram/first_bins.py data.bin [--count 10]

The file is raw little-endian 32-bit integers, each 0..1023. Exit status 0, or 2
with one line on stderr naming the file and what is wrong with it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

BINS = 1024  # 10-bit samples: values 0..1023


class DataError(Exception):
    """What is wrong with the data file, for one line on stderr."""


def histogram(path: Path) -> npt.NDArray[np.int64]:
    """The count of each value 0..1023 in the file at `path`."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise DataError(f"{path}: cannot open: {e.strerror}") from None
    if path.is_dir():
        raise DataError(f"{path}: is a directory, not a dataset file")
    if size % 4:
        raise DataError(f"{path}: {size} bytes is not a whole number of 4-byte values (truncated?)")
    samples = np.fromfile(path, dtype="<i4")
    outside = np.flatnonzero((samples < 0) | (samples >= BINS))
    if outside.size:
        i = int(outside[0])
        raise DataError(
            f"{path}: sample {i} is {int(samples[i])}, outside 0..{BINS - 1}: not a 10-bit dataset"
        )
    return np.bincount(samples, minlength=BINS).astype(np.int64)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("data", type=Path, help="dataset file (raw int32 samples 0..1023)")
    parser.add_argument(
        "--count", type=int, default=10, help="how many bins to print, from bin 0 (default: 10)"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.count <= BINS:
        parser.error(f"--count must be 1..{BINS}, not {args.count}")
    try:
        hist = histogram(args.data)
    except DataError as e:
        print(f"first_bins.py: {e}", file=sys.stderr)
        return 2
    print([int(c) for c in hist[: args.count]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
