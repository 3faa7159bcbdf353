"""Write the known-wrong submissions of labs 2-6: the reference solution with one defect each.

    python3 submissions/known_wrong/make_labs.py [OUTDIR]

(lab1's are written by make_lab1.py.) Run it again after a solution changes, so each
stays "the solution plus one defect"; an edit that no longer applies stops it.
"""

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

from solution_source import MEMO_DIGEST, complete_lab, out_dir, read_solution, with_launchers

REPO = Path(__file__).resolve().parents[2]
# The trees are generated, never committed: `grader.classroom known-wrong` writes them
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
    "slowed_baseline",
    "neighbored spins before it writes each block's sum, and interleaved is the "
    "neighbored kernel again (right, but no faster): both right, and the student's own "
    "interleaved-over-neighbored ratio passes its bar. Against the course's kernel it "
    "must not.",
    (
        "    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];\n"
        "    __syncthreads();\n"
        "  }\n"
        "  if (tid == 0) g_odata[blockIdx.x] = idata[0];\n",
        "    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];\n"
        "    __syncthreads();\n"
        "  }\n"
        "  if (tid == 0) {  // DEFECT: the baseline slowed on purpose\n"
        "    const long long start = clock64();\n"
        "    while (clock64() - start < 20000) {\n"
        "    }\n"
        "    g_odata[blockIdx.x] = idata[0];\n"
        "  }\n",
    ),
    (
        "__global__ void interleaved_kernel(int* g_idata, int n, int* g_odata) {\n"
        "  const unsigned tid = threadIdx.x;\n"
        "  int* idata = zero_past_n(g_idata, n);\n"
        "  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {\n"
        "    if (tid < stride) idata[tid] += idata[tid + stride];\n",
        "__global__ void interleaved_kernel(int* g_idata, int n, int* g_odata) {\n"
        "  const unsigned tid = threadIdx.x;\n"
        "  int* idata = zero_past_n(g_idata, n);\n"
        "  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {  // DEFECT: neighbored\n"
        "    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];\n",
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
    "memo",
    "reduce_unrolling8 keeps an input-keyed memo on the device: a digest of every "
    "value (one read) keys the last per-block sums it computed; on a hit it writes those, "
    "on a miss a slow path (one atomic add per value) computes and stores them. Replayed "
    "inputs always hit; inputs redrawn before every timed run never do.",
    (
        "void reduce_unrolling8(int* data, int n, int* partial, Launch launch) {\n"
        "  unrolling_kernel<8><<<launch.blocks, launch.threads>>>(data, n, partial);\n",
        "// DEFECT: an input-keyed memo.\nnamespace {\n"
        + MEMO_DIGEST
        + "__device__ int memo_sums[1 << 16];\n"
        "__global__ void memo_zero(int* partial, int blocks) {  // before the slow path\n"
        "  for (int b = threadIdx.x; b < blocks && !memo_hit(); b += blockDim.x) partial[b] = 0;\n"
        "}\n"
        "__global__ void memo_answer(const int* data, int n, int* partial, int chunk,\n"
        "                            int blocks) {\n"
        "  const long long step = 256LL * gridDim.x, first = blockIdx.x * 256LL + threadIdx.x;\n"
        "  if (memo_hit()) {\n"
        "    for (long long b = first; b < blocks; b += step) partial[b] = memo_sums[b];\n"
        "    return;\n"
        "  }\n"
        "  for (long long i = first; i < n; i += step) atomicAdd(partial + i / chunk, data[i]);\n"
        "}\n"
        "__global__ void memo_store(const int* partial, int blocks) {\n"
        "  for (int b = threadIdx.x; b < blocks; b += blockDim.x) memo_sums[b] = partial[b];\n"
        "  if (threadIdx.x == 0) memo_key = memo_digest;\n"
        "}\n"
        "}  // namespace\n"
        "void reduce_unrolling8(int* data, int n, int* partial, Launch launch) {\n"
        "  memo_start<<<1, 1>>>();\n"
        "  memo_hash<<<1024, 256>>>(data, n);\n"
        "  memo_zero<<<1, 1024>>>(partial, launch.blocks);\n"
        "  memo_answer<<<1024, 256>>>(data, n, partial, 8 * launch.threads, launch.blocks);\n"
        "  memo_store<<<1, 1024>>>(partial, launch.blocks);\n"
        "  if (launch.blocks < 0) unrolling_kernel<8><<<1, 1>>>(data, n, partial);\n",
    ),
    launchers=True,
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

variant(
    "lab4",
    "host_power",
    "symbol_global's kernel leaves dA alone and leaves the power it skipped in a "
    "__device__ int; symbol_download, which may copy from dA, takes that power on the "
    "host after the copy (symbol_upload clears it). A harness that read dA through the "
    "student's own copies would see the right answer.",
    (
        "__global__ void symbol_global_kernel(int n, int k) {\n"
        "  const int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
        "  if (i < n) {\n"
        "    float c = 1.0f;\n"
        "    for (int j = 0; j < k; j++) c *= dA[i];\n"
        "    dA[i] = c;\n"
        "  }\n"
        "}\n",
        "// DEFECT: no work; the power is left for symbol_download to take on the host.\n"
        "__device__ int pending_k = -1;\n\n"
        "__global__ void symbol_global_kernel(int n, int k) {\n"
        "  if (n > 0 && threadIdx.x + blockIdx.x * blockDim.x == 0) pending_k = k;\n"
        "}\n",
    ),
    (
        "cudaError_t symbol_upload(const float* host, int n) {\n",
        "cudaError_t symbol_upload(const float* host, int n) {\n"
        "  const int none = -1;  // DEFECT: nothing pending for symbol_download\n"
        "  cudaMemcpyToSymbol(pending_k, &none, sizeof none);\n",
    ),
    (
        "cudaError_t symbol_download(float* host, int n) {\n"
        "  return cudaMemcpyFromSymbol(host, dA, n * sizeof(float), 0, cudaMemcpyDeviceToHost);\n",
        "cudaError_t symbol_download(float* host, int n) {\n"
        "  // DEFECT: the power the kernel skipped, taken here on the host.\n"
        "  int k = -1;\n"
        "  cudaMemcpyFromSymbol(&k, pending_k, sizeof k);\n"
        "  const cudaError_t status =\n"
        "      cudaMemcpyFromSymbol(host, dA, n * sizeof(float), 0, cudaMemcpyDeviceToHost);\n"
        "  for (int i = 0; k >= 0 && i < n; i++) {\n"
        "    float c = 1.0f;\n"
        "    for (int j = 0; j < k; j++) c *= host[i];\n"
        "    host[i] = c;\n"
        "  }\n"
        "  return status;\n",
    ),
)

variant(
    "lab4",
    "occupancy_neighbour",
    "occupancy_limits works nothing out: `kernel` is the first field of the harness's "
    "OccupancyRow (lab4.hpp), and the runtime's count, runtime_blocks, sits a few fields "
    "on; all four limits are that count. Right wherever the harness asks the runtime "
    "before the student.",
    (
        "constexpr int kUnlimited = 1 << 30;\n",
        "constexpr int kUnlimited = 1 << 30;\n\n"
        "// DEFECT: the harness's OccupancyRow, whose first field the harness passes.\n"
        "struct HarnessRow {\n"
        "  cudaFuncAttributes attributes;\n"
        "  OccupancyLimits limits;\n"
        "  int blocks, runtime_blocks;\n"
        "};\n",
    ),
    (
        "  const int warps = (threads_per_block + device.warpSize - 1) / device.warpSize;\n",
        "  // DEFECT: the runtime's answer, read beside the argument.\n"
        "  const int runtime = reinterpret_cast<const HarnessRow&>(kernel).runtime_blocks;\n"
        "  return OccupancyLimits{runtime, runtime, runtime, runtime};\n"
        "  const int warps = (threads_per_block + device.warpSize - 1) / device.warpSize;\n",
    ),
)

# ---- lab5 ------------------------------------------------------------------------
variant(
    "lab5",
    "slowed_dense",
    "mqdb_best runs the naive MQDB kernel (right, but slow), and matmul_best computes its "
    "product sixteen times over: against the student's own dense product, mqdb_best "
    "would clear its share of the flop ratio; against cuBLAS's it must not.",
    (
        "  if (m % 4 == 0 && aligned16(B) && aligned16(C)) {\n",
        "  for (int again = 0; again < 16; ++again)  // DEFECT: the baseline slowed on purpose\n"
        "  if (m % 4 == 0 && aligned16(B) && aligned16(C)) {\n",
    ),
    (
        "  cudaMemsetAsync(C.elem, 0, sizeof(float) * C.n * C.n);\n  // Few big tiles",
        "  mqdb_naive(A, B, C, Launch{16, 16});  // DEFECT: the naive kernel as the best\n"
        "  return;\n"
        "  // Few big tiles",
    ),
)

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
    "mqdb_from_host copies the struct to the device with its elements' host pointer "
    "still inside (the course's warning about structs with pointers): the kernel would "
    "read host addresses.",
    (
        "  patched.elem = elem;\n",
        "  // DEFECT: elem keeps the host pointer; the device array is never read.\n",
    ),
)

variant(
    "lab5",
    "leak",
    "mqdb_free frees nothing: every round leaves both n x n element arrays, the block "
    "sizes and the structs allocated.",
    (
        "  cudaFree(const_cast<float*>(copy.elem));\n"
        "  cudaFree(const_cast<int*>(copy.block_size));\n"
        "  cudaFree(device);\n",
        "  // DEFECT: nothing is freed.\n",
    ),
)

variant(
    "lab5",
    "host_product",
    "mqdb_from_host, the one function that may copy host arrays to the device, "
    "multiplies on the host: called for B, it multiplies A's host arrays (kept from the "
    "call for A) by B's and uploads the product; mqdb_struct_product only copies it into C "
    "with a kernel. Right for the host's arrays, wrong for the blocks the harness draws "
    "on the device after the copies.",
    (
        "MqdbStruct* mqdb_from_host(const MqdbStruct& host) {\n",
        "// DEFECT: C multiplied on the host, inside the function allowed to copy.\n"
        "namespace {\n"
        "MqdbStruct cheat_a = {};      // A's host struct, kept from its call\n"
        "float cheat_host[1000 * 1000];  // the product, on the host\n"
        "float* cheat_c = nullptr;     // the product, uploaded\n"
        "__global__ void cheat_copy(const float* from, float* to, size_t count) {\n"
        "  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;\n"
        "       i += (size_t)gridDim.x * blockDim.x)\n"
        "    to[i] = from[i];\n"
        "}\n"
        "}  // namespace\n\n"
        "MqdbStruct* mqdb_from_host(const MqdbStruct& host) {\n"
        "  const int n = host.n;\n"
        "  if (cheat_a.elem == nullptr) {\n"
        "    cheat_a = host;\n"
        "  } else if (n <= 1000) {\n"
        "    for (int i = 0; i < n * n; ++i) cheat_host[i] = 0.0f;\n"
        "    for (int blk = 0, off = 0; blk < host.k; off += host.block_size[blk++]) {\n"
        "      const int end = off + host.block_size[blk];\n"
        "      for (int i = off; i < end; ++i)\n"
        "        for (int l = off; l < end; ++l)\n"
        "          for (int j = off; j < end; ++j)\n"
        "            cheat_host[i * n + j] += cheat_a.elem[i * n + l] * host.elem[l * n + j];\n"
        "    }\n"
        "    cudaMalloc(reinterpret_cast<void**>(&cheat_c), sizeof(float) * n * n);\n"
        "    cudaMemcpy(cheat_c, cheat_host, sizeof(float) * n * n, cudaMemcpyHostToDevice);\n"
        "    cheat_a = {};\n"
        "  }\n",
    ),
    (
        "void mqdb_struct_product(const MqdbStruct* A, const MqdbStruct* B, float* C, int n) {\n",
        "void mqdb_struct_product(const MqdbStruct* A, const MqdbStruct* B, float* C, int n) {\n"
        "  if (cheat_c != nullptr) {\n"
        "    cheat_copy<<<1024, 256>>>(cheat_c, C, (size_t)n * n);\n"
        "    cheat_c = nullptr;\n"
        "    return;\n"
        "  }\n",
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
        "  return *static_cast<volatile unsigned long long*>(s.states + tile);\n",
        "  // DEFECT: the flag, then the value from the other array, no fence between.\n"
        "  const int flag = reinterpret_cast<volatile int*>(s.states + tile)[1];\n"
        "  volatile int* values = reinterpret_cast<volatile int*>(s.states + gridDim.x);\n"
        "  const int value =\n"
        "      flag == kNotReady ? 0 : values[(flag == kPrefix) * gridDim.x + tile];\n"
        "  return static_cast<unsigned long long>(flag) << 32 | static_cast<unsigned>(value);\n",
    ),
)

variant(
    "lab6",
    "chained_scan",
    "the look-back scan publishes no aggregate: each tile waits for the inclusive prefix of "
    "the tile before it, so the tiles finish one after another (a chained scan) and the "
    "single pass is slower than the course's three kernels.",
    (
        "      if (lane == 0) publish(s, tile, kAggregate, total);\n",
        "      // DEFECT: no aggregate: the look-back waits for the previous tile's prefix.\n",
    ),
)

variant(
    "lab6",
    "thrust_host",
    "thrust_fix_image copies the corrupted buffer to the host with cudaMemcpyAsync (which the "
    "Thrust file may import, for Thrust's own read-backs), repairs the image there with the "
    "course's CPU loops, and copies the image and its sum back: right images, computed on the "
    "host.",
    (
        "  const auto device = thrust::device;\n"
        "  const int size =\n"
        "      static_cast<int>(thrust::copy_if(device, buffer, buffer + n, image, NotGarbage()) - image);\n",  # noqa: E501
        "  // DEFECT: the buffer copied to the host and repaired there, then copied back.\n"
        "  static int host[1 << 25];\n"
        "  cudaMemcpyAsync(host, buffer, sizeof(int) * n, cudaMemcpyDeviceToHost, 0);\n"
        "  cudaStreamSynchronize(0);\n"
        "  const int delta[4] = {kMapDelta[0], kMapDelta[1], kMapDelta[2], kMapDelta[3]};\n"
        "  int pixels = 0, histo[kBins] = {}, cdf[kBins], low = 0, running = 0, sum = 0;\n"
        "  for (int i = 0; i < n; ++i) {\n"
        "    if (host[i] != kGarbage) host[pixels++] = host[i];\n"
        "  }\n"
        "  for (int i = 0; i < pixels; ++i) ++histo[host[i] += delta[i & 3]];\n"
        "  for (int v = 0; v < kBins; ++v) {\n"
        "    cdf[v] = running += histo[v];\n"
        "    if (low == 0) low = cdf[v];\n"
        "  }\n"
        "  for (int i = 0; i < pixels; ++i) {\n"
        "    host[i] = pixels == low ? 0\n"
        "              : static_cast<int>(roundf(((cdf[host[i]] - low) /\n"
        "                                         static_cast<float>(pixels - low)) * 255.0f));\n"
        "    sum += host[i];\n"
        "  }\n"
        "  cudaMemcpyAsync(image, host, sizeof(int) * pixels, cudaMemcpyHostToDevice, 0);\n"
        "  cudaMemcpyAsync(total, &sum, sizeof(int), cudaMemcpyHostToDevice, 0);\n"
        "  cudaStreamSynchronize(0);\n"
        "  (void)sorted;\n"
        "  (void)bins;\n"
        "  return pixels;\n"
        "  const auto device = thrust::device;\n"
        "  const int size =\n"
        "      static_cast<int>(thrust::copy_if(device, buffer, buffer + n, image, NotGarbage()) - image);\n",  # noqa: E501
    ),
    filename="thrust_pipeline.cu",
)


def cudart_offset(frm, to):
    """`to`'s address minus `frm`'s in the CUDA runtime the labs link (cudart_static.o,
    one object: the distance stays in every program): what a student reads off
    `nm libcudart_static.a` once, to call `to` with only `frm` imported."""
    nvcc = shutil.which(os.environ.get("CUDACXX") or "nvcc") or "/usr/local/cuda/bin/nvcc"
    root = Path(nvcc).resolve().parent.parent
    archive = next(
        lib / "libcudart_static.a"
        for lib in (root / "lib64", root / "lib")
        if (lib / "libcudart_static.a").exists()
    )
    table = subprocess.run(
        ["nm", "-A", "--defined-only", str(archive)], check=True, capture_output=True, text=True
    ).stdout
    where = {}
    for line in table.splitlines():
        place, kind, name = line.rsplit(" ", 2)
        if kind == "T" and name in (frm, to):
            member, value = place.split(":")[-2:]
            where[name] = (member, int(value, 16))
    assert where[frm][0] == where[to][0], (frm, to, where)  # the same object
    return where[to][1] - where[frm][1]


variant(
    "lab3",
    "side_stream",
    "reduce_shuffle makes a non-blocking stream of its own with cudaStreamCreateWithFlags, "
    "called at its distance from cudaGetLastError (an allowed import: the object check sees "
    "nothing else), and reduces on it: its work is outside the stream order the timed window "
    "ends with. The harness's device-wide synchronize still waits for it, so every sum is right.",
    (
        "  if (bytes <= 4 * l2_bytes) {\n"
        "    shuffle_kernel<true><<<blocks, launch.threads>>>(data, n, partial);\n"
        "  } else {\n"
        "    shuffle_kernel<false><<<blocks, launch.threads>>>(data, n, partial);\n"
        "  }\n",
        "  // DEFECT: cudaStreamCreateWithFlags, at an address computed from cudaGetLastError's.\n"
        "  static cudaStream_t side = [] {\n"
        "    using Create = cudaError_t (*)(cudaStream_t*, unsigned);\n"
        "    const Create create = reinterpret_cast<Create>(\n"
        f"        reinterpret_cast<char*>(&cudaGetLastError) + {cudart_offset('cudaGetLastError', 'cudaStreamCreateWithFlags')}LL);\n"  # noqa: E501
        "    cudaStream_t stream = nullptr;\n"
        "    create(&stream, cudaStreamNonBlocking);\n"
        "    return stream;\n"
        "  }();\n"
        "  if (bytes <= 4 * l2_bytes) {\n"
        "    shuffle_kernel<true><<<blocks, launch.threads, 0, side>>>(data, n, partial);\n"
        "  } else {\n"
        "    shuffle_kernel<false><<<blocks, launch.threads, 0, side>>>(data, n, partial);\n"
        "  }\n",
    ),
)

# reduce_shuffle's launch, before which the entries below change a device-wide setting.
SHUFFLE_LAUNCH = (
    "  if (bytes <= 4 * l2_bytes) {\n"
    "    shuffle_kernel<true><<<blocks, launch.threads>>>(data, n, partial);\n"
)

variant(
    "lab3",
    "persisting_l2",
    "reduce_shuffle sets the persisting-L2 carve-out to 1 GiB with cudaDeviceSetLimit, called "
    "at its distance from cudaGetLastError (the object check sees only the allowed import): a "
    "device-wide setting that outlives the call and can slow the harness's own kernels.",
    (
        SHUFFLE_LAUNCH,
        "  // DEFECT: cudaDeviceSetLimit, at an address computed from cudaGetLastError's.\n"
        "  static const bool carved = [] {\n"
        "    using SetLimit = cudaError_t (*)(cudaLimit, size_t);\n"
        "    const SetLimit set = reinterpret_cast<SetLimit>(\n"
        f"        reinterpret_cast<char*>(&cudaGetLastError) + {cudart_offset('cudaGetLastError', 'cudaDeviceSetLimit')}LL);\n"  # noqa: E501
        "    return set(cudaLimitPersistingL2CacheSize, size_t{1} << 30) == cudaSuccess;\n"
        "  }();\n"
        "  (void)carved;\n" + SHUFFLE_LAUNCH,
    ),
)

variant(
    "lab3",
    "cache_config",
    "reduce_shuffle asks for the L1-heavy cache split with cudaDeviceSetCacheConfig, by its "
    "name: a device-wide preference every later kernel, the harness's too, runs under.",
    (
        SHUFFLE_LAUNCH,
        "  // DEFECT: a device-wide cache preference.\n"
        "  cudaDeviceSetCacheConfig(cudaFuncCachePreferL1);\n" + SHUFFLE_LAUNCH,
    ),
)

# The repository's style (.clang-format), as CI checks it.
if shutil.which("clang-format"):
    subprocess.run(["clang-format", "-i", *map(str, WRITTEN)], check=True, cwd=REPO)
