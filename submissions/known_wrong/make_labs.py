"""Write the known-wrong submissions of labs 2-6: the reference solution with one defect each.

    python3 submissions/known_wrong/make_labs.py [OUTDIR]

(lab1's are written by make_lab1.py.) Run it again after a solution changes, so each
stays "the solution plus one defect"; an edit that no longer applies stops it.
"""

import shutil
import subprocess
import textwrap
from pathlib import Path

from solution_source import complete_lab, out_dir, read_solution, with_launchers

REPO = Path(__file__).resolve().parents[2]
# The trees are generated, never committed: `grader known-wrong` writes them
# under its build root.
OUT = out_dir(__doc__, REPO / "build-known-wrong" / "trees")
FILES = {
    "lab2": ("lab2_divergence", "divergence_kernels.cu"),
    "lab3": ("lab3_reduction", "reduce_kernels.cu"),
    "lab4": ("lab4_power_array", "power_kernels.cu"),
    "lab5": ("lab5_matmul", "matmul_kernels.cu"),
    "lab6": ("lab6_image_pipeline", "scan_kernels.cu"),
}

WRITTEN = []


def variant(lab, name, header, *edits, launchers=False, filename=None):
    """Write OUT/<lab>_<name>/<folder>/<file>: the solution with `edits` (old, new) applied,
    and the lab's other student files as the solution has them.

    With `launchers`, the lab's launcher header is written into the file first, so
    that an edit can reach a launcher the lab fixes. `filename`: another student file
    of the lab than FILES names."""
    folder, main_file = FILES[lab]
    filename = filename or main_file
    text = read_solution(REPO / "solutions" / folder / filename)  # regions resolved
    if launchers:
        text = with_launchers(text, REPO / "labs" / folder)
    for old, new in edits:
        assert text.count(old) == 1, (lab, name, old)
        text = text.replace(old, new)
    first, rest = text.split("\n", 1)
    assert first.startswith(f"// {lab} reference solution"), (lab, first)
    while rest.startswith("//"):  # the rest of the solution's opening comment
        rest = rest.split("\n", 1)[1]
    banner = (
        textwrap.fill(
            f"KNOWN WRONG ({lab}_{name}): {header}",
            88,
            initial_indent="// ",
            subsequent_indent="// ",
        )
        + "\n"
        "// The reference solution with exactly this one defect; the grader must\n"
        "// reject it for this reason (submissions/known_wrong/manifest.json).\n"
    )
    path = OUT / f"{lab}_{name}" / folder / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(banner + rest)
    complete_lab(path.parent, REPO / "solutions" / folder)
    WRITTEN.append(path)


# ---- lab2 ------------------------------------------------------------------------
variant(
    "lab2",
    "tail",
    "even_odd launches n / threads blocks, rounded down: when n is not a "
    "multiple of the block, the last elements are never written.",
    (
        "void even_odd(const float* in, int n, float* out, Launch launch) {\n"
        "  even_odd_kernel<<<blocks_for(n, launch.threads), launch.threads>>>(in, n, out);\n",
        "void even_odd(const float* in, int n, float* out, Launch launch) {\n"
        "  // DEFECT: rounds the grid down.\n"
        "  even_odd_kernel<<<n / launch.threads, launch.threads>>>(in, n, out);\n",
    ),
    launchers=True,
)

variant(
    "lab2",
    "no_guard",
    "even_odd's kernel has no `i < n` guard: the spare threads of the "
    "last block read and write past the end of the arrays. The answer is right (the bytes "
    "past n are never checked), memcheck finds it.",
    (
        "  const long long i = global_tid();\n  if (i >= n) return;\n  if (i % 2 == 0) {\n",
        "  const long long i = global_tid();  // DEFECT: no bounds check\n  if (i % 2 == 0) {\n",
    ),
)

# ---- lab3 ------------------------------------------------------------------------
variant(
    "lab3",
    "race",
    "block_sum reads the warps' partial sums from shared memory without the "
    "__syncthreads() that waits for every warp to write its own: a shared-memory race that "
    "racecheck reports, whether or not the sum happens to come out right.",
    (
        "  if (lane == 0) warp_sums[warp] = v;\n  __syncthreads();\n",
        "  if (lane == 0) warp_sums[warp] = v;  // DEFECT: no __syncthreads() after this\n",
    ),
)

variant(
    "lab3",
    "tail",
    "the in-place kernels assume n is a multiple of the block: the padding "
    "past n is not zeroed, so the garbage there is added to the last block's sum.",
    (
        "  if (chunk_start(1) + threadIdx.x >= n) idata[threadIdx.x] = 0;\n",
        "  // DEFECT: the elements past n are not zeroed.\n",
    ),
)

variant(
    "lab3",
    "cub",
    "reduce_shuffle calls CUB's DeviceReduce::Sum instead of a kernel of its own.",
    ('#include "reduction.cuh"\n', '#include "reduction.cuh"\n\n#include <cub/cub.cuh>\n'),
    (
        "void reduce_shuffle(int* data, int n, int* partial, Launch launch) {\n",
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
        "  return;\n",
    ),
)

variant(
    "lab3",
    "skip_repeat",
    "reduce_shuffle computes the sum on its first call with a set of "
    "buffers and returns without launching anything when called again with the same ones: "
    "the sum from the first call is still in partial[0]. Legal code that cheats at run "
    "time: the timed runs do no work.",
    (
        "void reduce_shuffle(int* data, int n, int* partial, Launch launch) {\n",
        "void reduce_shuffle(int* data, int n, int* partial, Launch launch) {\n"
        '  // DEFECT: "the answer is already there" on a repeated call.\n'
        "  static const int* last_data = nullptr;\n"
        "  static const int* last_partial = nullptr;\n"
        "  static int last_n = -1;\n"
        "  if (data == last_data && partial == last_partial && n == last_n) return;\n"
        "  last_data = data;\n"
        "  last_partial = partial;\n"
        "  last_n = n;\n",
    ),
)

variant(
    "lab3",
    "nested_no_wait",
    "nested_reduce copies the chunks' sums to partial from a grid launched into "
    "cudaStreamFireAndForget instead of cudaStreamTailLaunch: it starts at once and reads "
    "the sums before the child grids have written them, the CUDA 12 form of leaving out "
    "the course's wait for the children.",
    (
        "    gather_sums_kernel<<<(gridDim.x + 255) / 256, 256, 0, cudaStreamTailLaunch>>>(\n",
        "    // DEFECT: does not wait for the child grids.\n"
        "    gather_sums_kernel<<<(gridDim.x + 255) / 256, 256, 0, cudaStreamFireAndForget>>>(\n",
    ),
    filename="nested_kernels.cu",
)

# ---- lab4 ------------------------------------------------------------------------
variant(
    "lab4",
    "oob_write",
    "power_register writes element i far past the end of out (the "
    "index is shifted instead of used): an illegal memory access.",
    (
        "    for (int j = 0; j < k; j++) c *= x;\n    out[i] = c;\n  }\n}\n\n// (c)",
        "    for (int j = 0; j < k; j++) c *= x;\n"
        "    out[static_cast<long long>(i) << 36] = c;  // DEFECT: far outside out\n"
        "  }\n}\n\n// (c)",
    ),
)

variant(
    "lab4",
    "race",
    "window_shared reads its neighbours' tile entries without the "
    "__syncthreads() that waits for the whole tile to be loaded: a shared-memory race "
    "that racecheck reports, whether or not the window happens to come out right.",
    (
        "  __syncthreads();  // the whole tile is loaded before anyone reads a neighbour's value\n",
        "  // DEFECT: no __syncthreads() between loading the tile and reading it.\n",
    ),
)

variant(
    "lab4",
    "slow",
    "window_shared is correct but thread 0 loads the whole tile alone, one "
    "element after the other, while the block waits: slower than the global-memory window.",
    (
        "  for (int t = threadIdx.x; t < kBlockSize + 2 * radius; t += kBlockSize) {\n",
        "  // DEFECT: one thread loads the whole tile.\n"
        "  for (int t = 0; threadIdx.x == 0 && t < kBlockSize + 2 * radius; t++) {\n",
    ),
)

# Two launchers that are right on their first call with a set of buffers and then
# let the timed runs do something else, each with a plausible time.
POWER_BEST = "void power_best(const float* in, float* out, int n, int k, Launch launch) {\n"
REPEATED = (
    "  static const float* last_in = nullptr;\n"
    "  static float* last_out = nullptr;\n"
    "  static int last_n = -1, last_k = -1;\n"
    "  const bool again = in == last_in && out == last_out && n == last_n && k == last_k &&\n"
    "                     n <= kSymbolCapacity;\n"
    "  last_in = in;\n"
    "  last_out = out;\n"
    "  last_n = n;\n"
    "  last_k = k;\n"
)
variant(
    "lab4",
    "write_elsewhere",
    "power_best is right on its first call with a set of "
    "buffers; called again with the same ones, it computes the same powers into an array "
    "of its own instead of out, which still holds the first call's answer. The timed runs "
    "take the right time and write nothing to the output.",
    (
        "// (h) Every neighbour from global memory",
        "// DEFECT: where the repeated calls write.\n"
        "__device__ float g_elsewhere[kSymbolCapacity];\n\n"
        "__global__ void elsewhere_kernel(const float* in, int n, int k) {\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;"
        " i += gridDim.x * blockDim.x)\n"
        "    g_elsewhere[i] = ipow(in[i], k);\n"
        "}\n\n"
        "// (h) Every neighbour from global memory",
    ),
    (
        POWER_BEST,
        POWER_BEST + REPEATED + "  if (again) {\n"
        "    elsewhere_kernel<<<1024, 256>>>(in, n, k);\n"
        "    return;\n"
        "  }\n",
    ),
)

variant(
    "lab4",
    "cached",
    "power_best keeps a copy of its result; called again with the same "
    "buffers and size, it copies the cached result into out instead of computing: as fast "
    "as the real kernel (both read and write n floats), right as long as the input does "
    "not change.",
    (
        "// (h) Every neighbour from global memory",
        "// DEFECT: a cache of the last result.\n"
        "__device__ float g_cache[kSymbolCapacity];\n\n"
        "__global__ void save_kernel(const float* from, int n) {\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;"
        " i += gridDim.x * blockDim.x)\n"
        "    g_cache[i] = from[i];\n"
        "}\n\n"
        "__global__ void replay_kernel(float* to, int n) {\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;"
        " i += gridDim.x * blockDim.x)\n"
        "    to[i] = g_cache[i];\n"
        "}\n\n"
        "// (h) Every neighbour from global memory",
    ),
    (
        POWER_BEST,
        POWER_BEST + REPEATED + "  if (again) {\n"
        "    replay_kernel<<<1024, 256>>>(out, n);\n"
        "    return;\n"
        "  }\n",
    ),
    (
        "  best_kernel<<<blocks, threads>>>(in, out, n, k);\n",
        "  best_kernel<<<blocks, threads>>>(in, out, n, k);\n"
        "  if (n <= kSymbolCapacity) save_kernel<<<1024, 256>>>(out, n);\n",
    ),
)

# ---- lab5 ------------------------------------------------------------------------
variant(
    "lab5",
    "tail",
    "the tiled kernels assume k is a multiple of the tile: the last, "
    "partial tile of the inner dimension is never multiplied.",
    (
        "  for (int t0 = 0; t0 < k; t0 += Tile) {\n",
        "  for (int t0 = 0; t0 + Tile <= k; t0 += Tile) {  // DEFECT: drops the partial tile\n",
    ),
)

variant(
    "lab5",
    "cublas",
    "matmul_best calls cuBLAS's SGEMM instead of a kernel of its own.",
    ('#include "matmul.cuh"\n', '#include "matmul.cuh"\n\n#include <cublas_v2.h>\n'),
    (
        "void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {\n",
        "void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {\n"
        "  // DEFECT: a library computes the answer (C^T = B^T A^T in column-major terms).\n"
        "  static cublasHandle_t handle = nullptr;\n"
        "  if (handle == nullptr) cublasCreate(&handle);\n"
        "  const float one = 1.0f, zero = 0.0f;\n"
        "  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, B, m, A, k, &zero, C,\n"
        "              m);\n"
        "  return;\n",
    ),
)

variant(
    "lab5",
    "host_answer",
    "matmul_best copies A and B to the host, multiplies them in a host loop and copies C back.",
    ('#include "matmul.cuh"\n', '#include "matmul.cuh"\n\n#include <vector>\n'),
    (
        "void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {\n",
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
        "  return;\n",
    ),
)

variant(
    "lab5",
    "cache_c",
    "matmul_regblock keeps a copy of C; called again with the same "
    "pointers and sizes, it copies the cached C back instead of multiplying: right, and "
    "faster than any product could be.",
    (
        "void matmul_regblock(const float* A, const float* B, float* C, int n, int k, int m) {\n",
        "// DEFECT: a cache of the last product.\n"
        "namespace {\n"
        "constexpr long long kCached = 1 << 24;\n"
        "__device__ float g_cache[kCached];\n\n"
        "__global__ void save_kernel(const float* from, long long count) {\n"
        "  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < count;\n"
        "       i += static_cast<long long>(gridDim.x) * blockDim.x)\n"
        "    g_cache[i] = from[i];\n"
        "}\n\n"
        "__global__ void replay_kernel(float* to, long long count) {\n"
        "  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < count;\n"
        "       i += static_cast<long long>(gridDim.x) * blockDim.x)\n"
        "    to[i] = g_cache[i];\n"
        "}\n"
        "}  // namespace\n\n"
        "void matmul_regblock(const float* A, const float* B, float* C, int n, int k, int m) {\n"
        "  static const float* last_a = nullptr;\n"
        "  static const float* last_b = nullptr;\n"
        "  static float* last_c = nullptr;\n"
        "  static long long last_shape = -1;\n"
        "  const long long shape =\n"
        "      (static_cast<long long>(n) << 40) ^ (static_cast<long long>(k) << 20) ^ m;\n"
        "  const long long count = static_cast<long long>(n) * m;\n"
        "  const bool again = A == last_a && B == last_b && C == last_c && shape == last_shape;\n"
        "  last_a = A;\n"
        "  last_b = B;\n"
        "  last_c = C;\n"
        "  last_shape = shape;\n"
        "  if (again && count <= kCached) {\n"
        "    replay_kernel<<<1024, 256>>>(C, count);\n"
        "    return;\n"
        "  }\n",
    ),
    (
        "  regblock_kernel<<<grid, 256>>>(A, B, C, n, k, m);\n}\n",
        "  regblock_kernel<<<grid, 256>>>(A, B, C, n, k, m);\n"
        "  if (count <= kCached) save_kernel<<<1024, 256>>>(C, count);\n}\n",
    ),
)

variant(
    "lab5",
    "shallow_copy",
    "mqdb_from_host copies each struct to the device with its elements' host pointer "
    "still inside (the course's warning about structs with pointers): the kernel reads "
    "host addresses.",
    (
        "    patched.elem = elems[i];\n",
        "    // DEFECT: elem keeps the host pointer; the device array is never read.\n",
    ),
)

variant(
    "lab5",
    "leak",
    "mqdb_from_host never frees its device copies: every call leaves both n x n element "
    "arrays, the block sizes and the structs allocated.",
    (
        "    cudaFree(*dev[i]);\n    cudaFree(elems[i]);\n    cudaFree(sizes[i]);\n",
        "    // DEFECT: nothing is freed.\n",
    ),
)

# ---- lab6 ------------------------------------------------------------------------
variant(
    "lab6",
    "unstable_pass",
    "radix_pass ranks the keys of a digit within each warp from the last lane down: "
    "every key lands among its digit's, but not in its order in the input, so the pass "
    "is not stable and the passes after the first undo the ones before.",
    (
        "    const unsigned r = before + __popc(mine & lanes_below);\n",
        "    // DEFECT: the lanes above, not below: a rank, but not the keys' order.\n"
        "    const unsigned r = before + __popc(mine & ~(lanes_below | (1u << lane)));\n",
    ),
    filename="sort_kernels.cu",
)

variant(
    "lab6",
    "shift_off_by_one",
    "shift_exclusive copies the inclusive scan's own element, not the one before it: "
    "exclusive[i] = inclusive[i] for i > 0, one place off.",
    (
        "    exclusive[i] = i == 0 ? 0 : inclusive[i - 1];\n",
        "    // DEFECT: inclusive[i], not inclusive[i - 1].\n"
        "    exclusive[i] = i == 0 ? 0 : inclusive[i];\n",
    ),
)

variant(
    "lab6",
    "lookback_no_fence",
    "the look-back scan keeps a tile's flag and its values in separate arrays and publishes "
    "the value, then the flag, with no fence between them (nor between reading a flag "
    "and its value): another block may see the flag before the value it announces, and "
    "add the poison the value's place still holds.",
    (
        "  *static_cast<volatile unsigned long long*>(s.states + tile) = state;\n",
        "  // DEFECT: the value (aggregates, then prefixes: two arrays past the flags) and\n"
        "  // its flag as two stores, no fence between.\n"
        "  volatile int* values = reinterpret_cast<volatile int*>(s.states + gridDim.x);\n"
        "  values[(flag == kPrefix) * gridDim.x + tile] = value;\n"
        "  reinterpret_cast<volatile int*>(s.states + tile)[1] = flag;\n"
        "  (void)state;\n",
    ),
    (
        "  unsigned long long state;\n"
        "  do {\n"
        "    state = *static_cast<volatile unsigned long long*>(s.states + tile);\n"
        "  } while (static_cast<int>(state >> 32) == kNotReady);\n"
        "  *flag = static_cast<int>(state >> 32);\n"
        "  *value = static_cast<int>(static_cast<unsigned>(state));\n",
        "  // DEFECT: the flag, then the value from the other array, no fence between.\n"
        "  do {\n"
        "    *flag = reinterpret_cast<volatile int*>(s.states + tile)[1];\n"
        "  } while (*flag == kNotReady);\n"
        "  volatile int* values = reinterpret_cast<volatile int*>(s.states + gridDim.x);\n"
        "  *value = values[(*flag == kPrefix) * gridDim.x + tile];\n",
    ),
)

# The repository's style (.clang-format), as CI checks it.
if shutil.which("clang-format"):
    subprocess.run(["clang-format", "-i", *map(str, WRITTEN)], check=True, cwd=REPO)
