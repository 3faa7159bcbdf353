"""lab1's first_bins.py, the course's Python reader of data.bin: the same first bins
as a hand-made file's counts and as the course's own struct loop, and one clear line
for a missing, truncated or out-of-range file."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

READER = Path(__file__).resolve().parents[2] / "labs" / "lab1_histogram" / "first_bins.py"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(READER), *map(str, args)], capture_output=True, text=True, check=False
    )


def write(path: Path, values: list[int]) -> Path:
    path.write_bytes(struct.pack(f"<{len(values)}i", *values))
    return path


def test_prints_the_first_ten_bins_of_a_hand_made_file(tmp_path: Path) -> None:
    # bin k holds k samples for k < 10, plus samples past the first 10 bins
    values = [k for k in range(10) for _ in range(k)] + [10, 500, 1023, 1023]
    result = run(write(tmp_path / "hand.bin", values[::-1]))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n"


def test_matches_the_course_reader_on_random_samples(tmp_path: Path) -> None:
    samples = np.random.default_rng(7).integers(0, 1024, size=20011, dtype="<i4")
    path = tmp_path / "data.bin"
    samples.tofile(path)
    # The course sheet's reader: one struct.unpack per sample.
    course = [0] * 1024
    with path.open("rb") as f:
        while chunk := f.read(4):
            course[struct.unpack("<i", chunk)[0]] += 1
    assert run(path).stdout == f"{course[:10]}\n"
    assert run(path, "--count", "1024").stdout == f"{course}\n"


def test_a_single_sample(tmp_path: Path) -> None:
    assert run(write(tmp_path / "one.bin", [3])).stdout == "[0, 0, 0, 1, 0, 0, 0, 0, 0, 0]\n"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("truncated.bin", struct.pack("<2i", 1, 2) + b"\x01\x00", "10 bytes is not a whole number"),
        ("high.bin", struct.pack("<3i", 5, 1024, 7), "sample 1 is 1024, outside 0..1023"),
        ("negative.bin", struct.pack("<2i", 0, -1), "sample 1 is -1, outside 0..1023"),
    ],
)
def test_a_bad_file_is_one_line_naming_it(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    result = run(path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and f"{name}: " in result.stderr
    assert message in result.stderr


def test_a_missing_file(tmp_path: Path) -> None:
    result = run(tmp_path / "missing.bin")
    assert result.returncode == 2
    assert "missing.bin: cannot open" in result.stderr


def test_an_empty_file_has_empty_bins(tmp_path: Path) -> None:
    assert run(write(tmp_path / "empty.bin", [])).stdout == "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n"
