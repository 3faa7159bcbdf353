"""Write the known-wrong submissions of labs 2-5: the reference solution with one defect each.

    python3 submissions/known_wrong/make_labs.py [OUTDIR]

(lab1's are written by make_lab1.py.) Run it again after a solution changes, so each
stays "the solution plus one defect"; an edit that no longer applies stops it.
"""
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# The trees are generated, never committed: `grader known-wrong` writes them
# under its build root.
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "build-known-wrong" / "trees"
FILES = {
    "lab2": ("lab2_divergence", "divergence_kernels.cu"),
    "lab3": ("lab3_reduction", "reduce_kernels.cu"),
    "lab4": ("lab4_power_array", "power_kernels.cu"),
    "lab5": ("lab5_matmul", "matmul_kernels.cu"),
}

WRITTEN = []


def variant(lab, name, header, *edits):
    """Write OUT/<lab>_<name>/<folder>/<file>: the solution with `edits` (old, new) applied."""
    folder, filename = FILES[lab]
    text = (REPO / "solutions" / folder / filename).read_text()
    for old, new in edits:
        assert text.count(old) == 1, (lab, name, old)
        text = text.replace(old, new)
    first, rest = text.split("\n", 1)
    assert first.startswith(f"// {lab} reference solution"), (lab, first)
    while rest.startswith("//"):  # the rest of the solution's opening comment
        rest = rest.split("\n", 1)[1]
    banner = (textwrap.fill(f"KNOWN WRONG ({lab}_{name}): {header}", 88, initial_indent="// ",
                            subsequent_indent="// ") + "\n"
              "// The reference solution with exactly this one defect; the grader must\n"
              "// reject it for this reason (submissions/known_wrong/manifest.json).\n")
    path = OUT / f"{lab}_{name}" / folder / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(banner + rest)
    WRITTEN.append(path)


# ---- lab2 ------------------------------------------------------------------------
variant("lab2", "tail", "even_odd launches n / threads blocks, rounded down: when n is not a "
        "multiple of the block, the last elements are never written.",
        ("void even_odd(const float* in, int n, float* out, Launch launch) {\n"
         "  even_odd_kernel<<<blocks_for(n, launch.threads), launch.threads>>>(in, n, out);\n",
         "void even_odd(const float* in, int n, float* out, Launch launch) {\n"
         "  // DEFECT: rounds the grid down.\n"
         "  even_odd_kernel<<<n / launch.threads, launch.threads>>>(in, n, out);\n"))

variant("lab2", "no_guard", "even_odd's kernel has no `i < n` guard: the spare threads of the "
        "last block read and write past the end of the arrays. The answer is right (the bytes "
        "past n are never checked), memcheck finds it.",
        ("  const long long i = global_tid();\n  if (i >= n) return;\n  if (i % 2 == 0) {\n",
         "  const long long i = global_tid();  // DEFECT: no bounds check\n  if (i % 2 == 0) {\n"))

# ---- lab3 ------------------------------------------------------------------------
variant("lab3", "race", "block_sum reads the warps' partial sums from shared memory without the "
        "__syncthreads() that waits for every warp to write its own: a shared-memory race that "
        "racecheck reports, whether or not the sum happens to come out right.",
        ("  if (lane == 0) warp_sums[warp] = v;\n  __syncthreads();\n",
         "  if (lane == 0) warp_sums[warp] = v;  // DEFECT: no __syncthreads() after this\n"))

variant("lab3", "tail", "the in-place kernels assume n is a multiple of the block: the padding "
        "past n is not zeroed, so the garbage there is added to the last block's sum.",
        ("  if (chunk_start(1) + threadIdx.x >= n) idata[threadIdx.x] = 0;\n",
         "  // DEFECT: the elements past n are not zeroed.\n"))

variant("lab3", "cub", "reduce_shuffle calls CUB's DeviceReduce::Sum instead of a kernel of its "
        "own.",
        ('#include "reduction.cuh"\n', '#include "reduction.cuh"\n\n#include <cub/cub.cuh>\n'),
        ("void reduce_shuffle(int* data, int n, int* partial, Launch launch) {\n",
         "void reduce_shuffle(int* data, int n, int* partial, Launch launch) {\n"
         "  // DEFECT: a library computes the answer.\n"
         "  static void* scratch = nullptr;\n"
         "  static size_t scratch_bytes = 0;\n"
         "  size_t need = 0;\n"
         "  cub::DeviceReduce::Sum(nullptr, need, data, partial, n);\n"
         "  if (need > scratch_bytes) {\n"
         "    cudaFree(scratch);\n"
         "    cudaMalloc(&scratch, need);\n"
         "    scratch_bytes = need;\n"
         "  }\n"
         "  cub::DeviceReduce::Sum(scratch, need, data, partial, n);\n"
         "  return;\n"))

# ---- lab4 ------------------------------------------------------------------------
variant("lab4", "oob_write", "power_register writes element i far past the end of out (the "
        "index is shifted instead of used): an illegal memory access.",
        ("    for (int j = 0; j < k; j++) c *= x;\n    out[i] = c;\n  }\n}\n\n// (c)",
         "    for (int j = 0; j < k; j++) c *= x;\n"
         "    out[static_cast<long long>(i) << 36] = c;  // DEFECT: far outside out\n"
         "  }\n}\n\n// (c)"))

variant("lab4", "race", "window_shared reads its neighbours' tile entries without the "
        "__syncthreads() that waits for the whole tile to be loaded: a shared-memory race "
        "that racecheck reports, whether or not the window happens to come out right.",
        ("  __syncthreads();  // the whole tile is loaded before anyone reads a neighbour's "
         "value\n",
         "  // DEFECT: no __syncthreads() between loading the tile and reading it.\n"))

variant("lab4", "slow", "window_shared is correct but thread 0 loads the whole tile alone, one "
        "element after the other, while the block waits: slower than the global-memory window.",
        ("  for (int t = threadIdx.x; t < kBlockSize + 2 * radius; t += kBlockSize) {\n",
         "  // DEFECT: one thread loads the whole tile.\n"
         "  for (int t = 0; threadIdx.x == 0 && t < kBlockSize + 2 * radius; t++) {\n"))

# ---- lab5 ------------------------------------------------------------------------
variant("lab5", "tail", "the tiled kernels assume k is a multiple of the tile: the last, "
        "partial tile of the inner dimension is never multiplied.",
        ("  for (int t0 = 0; t0 < k; t0 += Tile) {\n",
         "  for (int t0 = 0; t0 + Tile <= k; t0 += Tile) {  // DEFECT: drops the partial tile\n"))

variant("lab5", "cublas", "matmul_best calls cuBLAS's SGEMM instead of a kernel of its own.",
        ('#include "matmul.cuh"\n', '#include "matmul.cuh"\n\n#include <cublas_v2.h>\n'),
        ("void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {\n",
         "void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {\n"
         "  // DEFECT: a library computes the answer (C^T = B^T A^T in column-major terms).\n"
         "  static cublasHandle_t handle = nullptr;\n"
         "  if (handle == nullptr) cublasCreate(&handle);\n"
         "  const float one = 1.0f, zero = 0.0f;\n"
         "  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, B, m, A, k, &zero, C,\n"
         "              m);\n"
         "  return;\n"))

variant("lab5", "host_answer", "matmul_best copies A and B to the host, multiplies them in a "
        "host loop and copies C back.",
        ('#include "matmul.cuh"\n', '#include "matmul.cuh"\n\n#include <vector>\n'),
        ("void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {\n",
         "void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {\n"
         "  // DEFECT: the answer is computed on the host.\n"
         "  std::vector<float> a(static_cast<size_t>(n) * k), b(static_cast<size_t>(k) * m);\n"
         "  std::vector<float> c(static_cast<size_t>(n) * m, 0.0f);\n"
         "  cudaMemcpy(a.data(), A, a.size() * sizeof(float), cudaMemcpyDeviceToHost);\n"
         "  cudaMemcpy(b.data(), B, b.size() * sizeof(float), cudaMemcpyDeviceToHost);\n"
         "  for (int i = 0; i < n; ++i)\n"
         "    for (int l = 0; l < k; ++l)\n"
         "      for (int j = 0; j < m; ++j) c[(size_t)i * m + j] += a[(size_t)i * k + l] * "
         "b[(size_t)l * m + j];\n"
         "  cudaMemcpy(C, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice);\n"
         "  return;\n"))

# The repository's style (.clang-format), as CI checks it.
if shutil.which("clang-format"):
    subprocess.run(["clang-format", "-i", *map(str, WRITTEN)], check=True, cwd=REPO)
