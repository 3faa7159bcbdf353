"""`grader.classroom similarity` on a small made-up class: a planted near-copy (renamed,
reformatted) ranks first, the skeleton's code counts for no one, and bad
arguments are usage errors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytest.importorskip("copydetect")

from grader.classroom.similarity import compare_class  # noqa: E402
from grader.tests.helpers import run_grader  # noqa: E402

LAB = "lab3_reduction"
FILE = "reduce_kernels.cu"
SKELETON = """\
// lab3: write the kernels below. The harness launches them.
#include "lab3/contract.hpp"

namespace lab3 {
__global__ void neighbored_kernel(int* data, int n, int* partial) {
  // TODO: each block reduces its slice of data in place; thread 0 writes partial[blockIdx.x].
}

void reduce_neighbored(int* data, int n, int* partial, Launch launch) {
  neighbored_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}
}  // namespace lab3
"""
# Two honest students who wrote the same kernel differently.
ALICE = """\
  unsigned int tid = threadIdx.x;
  unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int* idata = data + blockIdx.x * blockDim.x;
  if (idx >= n) return;
  for (int stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0 && idx + stride < n) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = idata[0];
"""
BOB = """\
  extern __shared__ int cache[];
  const int local = threadIdx.x;
  const long long global = (long long)blockIdx.x * blockDim.x + local;
  cache[local] = global < n ? data[global] : 0;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half >>= 1) {
    if (local < half) {
      cache[local] = cache[local] + cache[local + half];
    }
    __syncthreads();
  }
  if (local == 0) {
    partial[blockIdx.x] = cache[0];
  }
"""
# Alice's kernel, renamed and reformatted.
CAROL = """\
  unsigned int me = threadIdx.x;
  unsigned int where = blockIdx.x*blockDim.x+threadIdx.x;
  int *mine = data+blockIdx.x*blockDim.x;
  if (where >= n)
    return;
  for (int s = 1; s < blockDim.x; s *= 2)
  {
    if ((me % (2*s)) == 0 && where+s < n)
      mine[me] += mine[me+s];   // add the neighbour
    __syncthreads();
  }
  if (me == 0)
    partial[blockIdx.x] = mine[0];
"""
TODO = next(line + "\n" for line in SKELETON.splitlines() if "TODO" in line)


def _tree(root: Path, body: str | None) -> Path:
    (root / LAB).mkdir(parents=True)
    text = SKELETON if body is None else SKELETON.replace(TODO, body)
    (root / LAB / FILE).write_text(text)
    return root


def _class(tmp_path: Path) -> tuple[Path, Path]:
    skeleton = _tree(tmp_path / "skeletons", None)
    bodies = {"alice": ALICE, "bob": BOB, "carol": CAROL, "dave": None}
    for name, body in bodies.items():
        _tree(tmp_path / "class" / name, body)
    return skeleton, tmp_path / "class"


def test_the_planted_near_copy_ranks_first_and_the_skeleton_counts_for_no_one(
    tmp_path: Path,
) -> None:
    skeleton, folder = _class(tmp_path)
    names = ["alice", "bob", "carol", "dave"]
    html = tmp_path / "similarity.html"
    (pair,) = compare_class(folder, names, skeleton, [LAB], 0.3, html)
    assert {pair.first, pair.second} == {"alice", "carol"}
    assert pair.file == f"{LAB}/{FILE}"
    assert pair.score > 0.8
    assert "alice" in html.read_text()
    # dave handed in the skeleton: nothing of his is anyone's, at any threshold.
    pairs = compare_class(folder, names, skeleton, [LAB], 0.01, html)
    assert not [p for p in pairs if "dave" in (p.first, p.second)], pairs
    assert len(pairs) >= 2  # the honest pairs share a little, below 0.3


def _similarity(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`similarity ARGS` over _class's folders, the repository tmp_path, reports in out/."""
    _class(tmp_path)
    (tmp_path / "labs" / LAB).mkdir(parents=True)
    class_dir = str(tmp_path / "class")
    report = ["--report", str(tmp_path / "out"), "--repo", str(tmp_path)]
    return run_grader("similarity", class_dir, *report, *args, cwd=tmp_path)


def test_the_command_writes_both_reports(tmp_path: Path) -> None:
    proc = _similarity(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "first: alice and carol" in proc.stdout
    table = (tmp_path / "out" / "similarity.md").read_text()
    assert "| 1 | lab3_reduction/reduce_kernels.cu | alice | carol |" in table
    assert "1 pairs share at least 50%" in table
    assert "carol" in (tmp_path / "out" / "similarity.html").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--labs", "lab9"], "unknown lab 'lab9'"),
        (["--threshold", "0"], "--threshold must be in (0, 1]"),
    ],
)
def test_bad_arguments_are_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    proc = _similarity(tmp_path, *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert not (tmp_path / "out" / "similarity.md").exists()
