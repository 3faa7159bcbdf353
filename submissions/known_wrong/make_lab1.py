"""Write lab1's known-wrong submissions: the reference solution with one defect each.

    python3 submissions/known_wrong/make_lab1.py [OUTDIR]

Run it again after the solution changes, so each stays "the solution plus one defect".
"""

import sys
import textwrap
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from solution_source import MEMO_DIGEST, out_dir, read_solution  # noqa: E402

from datasets.generate import generate_case, load_manifest  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
# The master's solution text: its LAB_SKELETON regions resolved (solution_source.py).
SOLUTION = read_solution(REPO / "solutions/lab1_histogram/histogram_kernels.cu")
# The trees are generated, never committed: `grader.classroom known-wrong` writes them
# under its build root.
OUT = out_dir(__doc__, REPO / "build-known-wrong" / "trees")


def variant(name, header, *edits):
    text = SOLUTION
    for old, new in edits:
        assert text.count(old) == 1, (name, old)
        text = text.replace(old, new)
    text = text.replace(
        "// lab1 reference solution: every histogram variant of the exercise.\n",
        textwrap.fill(
            f"KNOWN WRONG ({name}): {header}", 88, initial_indent="// ", subsequent_indent="// "
        )
        + "\n"
        "// The reference solution with exactly this one defect; the grader must\n"
        "// reject it for this reason (submissions/known_wrong/manifest.json).\n",
    )
    path = OUT / f"lab1_{name}" / "lab1_histogram" / "histogram_kernels.cu"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


SHARED_COUNT = "  for (long long i = pos; i < end; i++) atomicAdd(histo + t[i], 1);\n"
variant(
    "race",
    "the shared-memory histogram is incremented without atomics, so threads of a "
    "block that hit the same bin lose counts.",
    (
        SHARED_COUNT,
        "  for (long long i = pos; i < end; i++) histo[t[i]]++;  // DEFECT: no atomic\n",
    ),
)

GLOBAL_BODY = (
    "__global__ void global_kernel(const int* t, int n, int* h, int slice) {\n"
    "  const long long pos = slice_start(slice);\n"
    "  const long long end = min(pos + slice, static_cast<long long>(n));\n"
)
variant(
    "tail",
    "the global variant assumes n is a multiple of blocks x threads x slice: a "
    "thread whose slice crosses n counts nothing, so the last samples are lost.",
    (
        GLOBAL_BODY,
        "__global__ void global_kernel(const int* t, int n, int* h, int slice) {\n"
        "  const long long pos = slice_start(slice);\n"
        "  const long long end = pos + slice;\n"
        "  if (end > n) return;  // DEFECT: drops the partial slice at the tail\n",
    ),
)

variant(
    "oob_write",
    "the one-per-thread variant writes far past the end of hist (the bin "
    "index is shifted instead of used): an illegal memory access.",
    (
        "  if (pos < n) atomicAdd(h + t[pos], 1);\n",
        "  // DEFECT: hist[value << 36] lies far outside any allocation.\n"
        "  if (pos < n) atomicAdd(h + (static_cast<long long>(t[pos]) << 36) + 1, 1);\n",
    ),
)

variant(
    "hang",
    "half of each block waits at a barrier the other half never reaches, while the "
    "other half spins on a flag the first half sets after the barrier: a deadlock.",
    (
        "  __syncthreads();  // every thread has counted before the block's result is merged\n",
        "  // DEFECT: the lower half waits at a barrier, the upper half spins on a flag that is\n"
        "  // set only after that barrier.\n"
        "  __shared__ volatile int released;\n"
        "  if (threadIdx.x == 0) released = 0;\n"
        "  __syncthreads();\n"
        "  if (threadIdx.x < blockDim.x / 2) {\n"
        "    __syncthreads();\n"
        "    released = 1;\n"
        "  } else {\n"
        "    while (!released) {\n"
        "    }\n"
        "  }\n"
        "  __syncthreads();\n",
    ),
)

variant(
    "slow",
    "the shared variant is correct but counts with global atomics (no shared-memory "
    "histogram), so it is no faster than the course's global kernel.",
    (
        SHARED_COUNT,
        "  for (long long i = pos; i < end; i++) atomicAdd(h + t[i], 1);  // DEFECT: global\n",
    ),
)

variant(
    "slowed_shared",
    "rgb makes one pass over the image per channel and counts in global memory (right, "
    "but it reads the pixels three times and every count is a global atomic), and the "
    "shared variant spins in every block: against the student's own shared run once per "
    "channel, rgb would clear its bar; against the course's kernel it must not.",
    (
        SHARED_COUNT,
        SHARED_COUNT + "  if (threadIdx.x == 0) {  // DEFECT: the baseline slowed on purpose\n"
        "    const long long start = clock64();\n"
        "    while (clock64() - start < 2000000) {\n"
        "    }\n"
        "  }\n",
    ),
    (
        "      atomicAdd(histo + (p & 0xFF), 1);\n"
        "      atomicAdd(histo + kColourBins + ((p >> 8) & 0xFF), 1);\n"
        "      atomicAdd(histo + 2 * kColourBins + ((p >> 16) & 0xFF), 1);\n"
        "    });\n",
        "      atomicAdd(h + (p & 0xFF), 1);  // DEFECT: global counters, a pass per channel\n"
        "    });\n"
        "    for_each_pixel(image, n, [&](unsigned p) {\n"
        "      atomicAdd(h + kColourBins + ((p >> 8) & 0xFF), 1);\n"
        "    });\n"
        "    for_each_pixel(image, n, [&](unsigned p) {\n"
        "      atomicAdd(h + 2 * kColourBins + ((p >> 16) & 0xFF), 1);\n"
        "    });\n",
    ),
)

variant(
    "cub",
    "histogram_best calls CUB's DeviceHistogram instead of a kernel of its own.",
    ('#include "histogram.cuh"\n', '#include "histogram.cuh"\n\n#include <cub/cub.cuh>\n'),
    (
        "void histogram_best(const int* samples, int n, int* hist, Launch launch) {\n"
        "  static unsigned int epoch = 0;\n",
        "void histogram_best(const int* samples, int n, int* hist, Launch launch) {\n"
        "  // DEFECT: a library computes the answer.\n"
        "  static void* scratch = nullptr;\n"
        "  static size_t scratch_bytes = 0;\n"
        "  size_t need = 0;\n"
        "  cub::DeviceHistogram::HistogramEven(nullptr, need, samples, hist, kBins + 1, 0,\n"
        "                                      kBins, n);\n"
        "  if (need > scratch_bytes) {\n"
        "    cudaFree(scratch);\n"
        "    cudaMalloc(&scratch, need);\n"
        "    scratch_bytes = need;\n"
        "  }\n"
        "  cub::DeviceHistogram::HistogramEven(scratch, need, samples, hist, kBins + 1, 0,\n"
        "                                      kBins, n);\n"
        "  return;\n"
        "  static unsigned int epoch = 0;\n",
    ),
)

variant(
    "hue_truncates",
    "the hue divides by d before making the numerator non-negative: C's division truncates "
    "a negative quotient toward zero, so a pixel whose fraction is negative lands one bin "
    "above the right one (47% of the colours).",
    (
        "  int h6 = top == r ? 60 * (g - b) : top == g ? 60 * (b - r) + 120 * d"
        " : 60 * (r - g) + 240 * d;\n"
        "  if (h6 < 0) h6 += 360 * d;\n"
        "  return h6 / d;\n",
        "  // DEFECT: divides first, then adds the turn.\n"
        "  const int h = top == r   ? 60 * (g - b) / d\n"
        "                : top == g ? 60 * (b - r) / d + 120\n"
        "                           : 60 * (r - g) / d + 240;\n"
        "  return h < 0 ? h + 360 : h;\n",
    ),
)

variant(
    "colour_no_stride",
    "the colour kernels count one step of the grid and stop: an image larger than the "
    "grid keeps pixels nobody counts.",
    (
        "  for (long long i = tid; i < n4; i += stride) {\n",
        "  for (long long i = tid; i < n4 && i == tid; i += stride) {  // DEFECT: one step\n",
    ),
)

manifest = load_manifest(REPO / "datasets/lab1.json")
cases = {c["name"]: c for c in manifest["cases"]}
baked = {}
for name in ("uniform_2p25", "contention_2p25"):
    values = generate_case(manifest, cases[name])
    baked[name] = (int(values[0]), np.bincount(values, minlength=1024).tolist())


def table(counts):
    rows = [", ".join(str(c) for c in counts[i : i + 12]) for i in range(0, len(counts), 12)]
    return "    " + ",\n    ".join(rows)


first_contention = baked["contention_2p25"][0]
variant(
    "hardcoded",
    "histogram_best recognises the public 2^25 cases by n (and the first "
    "sample) and writes their histograms, baked into the source, without reading the data. "
    "It passes every public case and fails the hidden ones.",
    (
        "// (h) Memory-bound version.",
        "// DEFECT: the public cases' histograms, baked in (datasets/lab1.json, seeds 1 and 2).\n"
        f"__device__ const int k_uniform_2p25[kBins] = {{\n{table(baked['uniform_2p25'][1])}}};\n"
        f"__device__ const int k_contention_2p25[kBins] = {{\n"
        f"{table(baked['contention_2p25'][1])}}};\n\n"
        "__global__ void baked_kernel(const int* t, int* h) {\n"
        f"  const int* src = t[0] == {first_contention} ? k_contention_2p25 : k_uniform_2p25;\n"
        "  for (int b = threadIdx.x; b < kBins; b += blockDim.x) h[b] = src[b];\n"
        "}\n\n"
        "// (h) Memory-bound version.",
    ),
    (
        "void histogram_best(const int* samples, int n, int* hist, Launch launch) {\n"
        "  static unsigned int epoch = 0;\n",
        "void histogram_best(const int* samples, int n, int* hist, Launch launch) {\n"
        '  if (n == 1 << 25) {  // DEFECT: "this must be the graded data"\n'
        "    baked_kernel<<<1, 1024>>>(samples, hist);\n"
        "    return;\n"
        "  }\n"
        "  static unsigned int epoch = 0;\n",
    ),
)

variant(
    "host_answer",
    "histogram_best copies the samples to the host, counts them in a host "
    "loop and copies the histogram back.",
    ('#include "histogram.cuh"\n', '#include "histogram.cuh"\n\n#include <vector>\n'),
    (
        "void histogram_best(const int* samples, int n, int* hist, Launch launch) {\n"
        "  static unsigned int epoch = 0;\n",
        "void histogram_best(const int* samples, int n, int* hist, Launch launch) {\n"
        "  // DEFECT: the answer is computed on the host.\n"
        "  std::vector<int> host(n), counts(kBins, 0);\n"
        "  cudaMemcpy(host.data(), samples, n * sizeof(int), cudaMemcpyDeviceToHost);\n"
        "  for (int v : host) counts[v]++;\n"
        "  cudaMemcpy(hist, counts.data(), kBins * sizeof(int), cudaMemcpyHostToDevice);\n"
        "  return;\n"
        "  static unsigned int epoch = 0;\n",
    ),
)

variant(
    "banks4_one_counter",
    "banks4 reads each shared sample once but feeds only the first of its four "
    "counters, so three bins in four stay at zero.",
    (
        "      for (int k = 0; k < 4; k++) occurrences[k] += ((b + k * q) ^ v) ? 0 : 1;\n",
        "      occurrences[0] += (b ^ v) ? 0 : 1;  // DEFECT: one counter of four\n",
    ),
)

variant(
    "multiply_no_cas",
    "atomic_multiply reads, multiplies and writes back without atomicCAS: threads "
    "that read the same value overwrite each other's products.",
    (
        "  unsigned int old = *address, assumed;\n"
        "  do {\n"
        "    assumed = old;\n"
        "    old = atomicCAS(address, assumed, assumed * factor);\n"
        "  } while (old != assumed);\n"
        "  return old;\n",
        "  const unsigned int old = *address;  // DEFECT: not atomic\n"
        "  *address = old * factor;\n"
        "  return old;\n",
    ),
)

SHARED_LAUNCH = (
    "  shared_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);\n"
)
SHARED_HEAD = (
    "void histogram_shared(const int* samples, int n, int* hist, Launch launch) {\n"
    "  zero(hist);\n" + SHARED_LAUNCH
)
variant(
    "memo",
    "histogram_shared keeps an input-keyed memo on the device: a digest of every "
    "sample (one read) keys the last histogram it computed; on a hit it copies that "
    "histogram, on a miss the slow global-atomics path computes and stores it. Replayed "
    "inputs always hit; inputs redrawn before every timed run never do.",
    (
        SHARED_HEAD,
        "// DEFECT: an input-keyed memo.\nnamespace {\n"
        + MEMO_DIGEST
        + "__device__ int memo_bins[kBins];\n"
        "__global__ void memo_answer(const int* t, int n, int* h) {  // the hit, or the slow path\n"
        "  const bool hit = memo_hit();\n"
        "  const long long end = hit ? kBins : n, step = 256LL * gridDim.x;\n"
        "  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < end; i += step)\n"
        "    if (hit) h[i] = memo_bins[i]; else atomicAdd(h + t[i], 1);\n"
        "}\n"
        "__global__ void memo_store(const int* h) {\n"
        "  for (int b = threadIdx.x; b < kBins; b += blockDim.x) memo_bins[b] = h[b];\n"
        "  if (threadIdx.x == 0) memo_key = memo_digest;\n"
        "}\n"
        "}  // namespace\n"
        "void histogram_shared(const int* samples, int n, int* hist, Launch launch) {\n"
        "  zero(hist);\n"
        "  memo_start<<<1, 1>>>();\n"
        "  memo_hash<<<1024, 256>>>(samples, n);\n"
        "  memo_answer<<<1024, 256>>>(samples, n, hist);\n"
        "  memo_store<<<1, 1024>>>(hist);\n"
        "  if (launch.blocks < 0) shared_kernel<<<1, 1>>>(samples, n, hist, launch.slice);\n",
    ),
)

variant(
    "memo_relabelled",
    "histogram_shared remembers the last input it counted (its size, how often two samples "
    "half the input apart are equal, its histogram) and, for an input of the same size and "
    "about as many equal pairs, takes it for that input with its positions permuted and its "
    "bins relabelled by v -> (a v + b) mod kBins, a odd (a mirror is one): one read of the "
    "samples sums a weight per value, the same in any order, and the relabelling whose "
    "prediction of that sum from the remembered histogram comes nearest names where each "
    "remembered count goes. Anything else takes the slow global-atomics path and is "
    "remembered. Exact when a redraw is such a transformation of an earlier input; wrong "
    "for inputs drawn anew.",
    (
        SHARED_HEAD,
        "// DEFECT: a memo of inputs up to a permutation and a relabelling of the bins.\n"
        "namespace {\n"
        "__device__ int memo_n = -1;  // the input remembered: size, equal pairs, histogram\n"
        "__device__ unsigned long long memo_pairs;\n"
        "__device__ int memo_bins[kBins];\n"
        "__device__ unsigned long long now_pairs, now_sum, best;  // the input now\n"
        "__device__ bool recognised;\n"
        "__device__ long long weight(int v) {  // 20 bits of a hash of the value\n"
        "  return (static_cast<unsigned>(v) * 0x9E3779B9u) >> 12;\n"
        "}\n"
        "__global__ void memo_start() { now_pairs = 0, now_sum = 0, best = ~0ull; }\n"
        "__global__ void memo_scan(const int* t, int n) {  // one read: in any order the same\n"
        "  const long long half = n / 2;\n"
        "  unsigned long long pairs = 0, sum = 0;\n"
        "  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += 256LL * gridDim.x) {\n"
        "    sum += weight(t[i]);\n"
        "    if (i < half) pairs += t[i] == t[i + half];\n"
        "  }\n"
        "  atomicAdd(&now_pairs, pairs);\n"
        "  atomicAdd(&now_sum, sum);\n"
        "}\n"
        "// Block a / 2, thread b: the relabelling v -> (a v + b) mod kBins, a odd.\n"
        "__global__ void memo_align(int n) {\n"
        "  const long long pairs = now_pairs, known = memo_pairs;\n"
        "  const bool same_kind = memo_n == n && llabs(pairs - known) <= 64 + known / 8;\n"
        "  recognised = same_kind;\n"
        "  if (!same_kind) return;\n"
        "  __shared__ long long w[kBins];\n"
        "  __shared__ int h[kBins];\n"
        "  w[threadIdx.x] = weight(threadIdx.x);\n"
        "  h[threadIdx.x] = memo_bins[threadIdx.x];\n"
        "  __syncthreads();\n"
        "  const unsigned a = 2 * blockIdx.x + 1, b = threadIdx.x;\n"
        "  long long predicted = 0;\n"
        "  for (unsigned v = 0; v < kBins; v++) predicted += h[v] * w[(a * v + b) % kBins];\n"
        "  const unsigned long long off = llabs(predicted - static_cast<long long>(now_sum));\n"
        "  atomicMin(&best, min(off, (1ull << 44) - 1) << 20 | blockIdx.x << 10 | b);\n"
        "}\n"
        "__global__ void memo_answer(const int* t, int n, int* h) {  // recognised, or slow\n"
        "  const unsigned a = (best >> 10 & 511) * 2 + 1, b = best & 1023;\n"
        "  const long long end = recognised ? kBins : n, step = 256LL * gridDim.x;\n"
        "  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < end; i += step)\n"
        "    if (recognised) h[(a * i + b) % kBins] = memo_bins[i]; else atomicAdd(h + t[i], 1);\n"
        "}\n"
        "__global__ void memo_store(const int* h, int n) {\n"
        "  if (recognised) return;\n"
        "  memo_bins[threadIdx.x] = h[threadIdx.x];\n"
        "  if (threadIdx.x == 0) memo_n = n, memo_pairs = now_pairs;\n"
        "}\n"
        "}  // namespace\n"
        "void histogram_shared(const int* samples, int n, int* hist, Launch launch) {\n"
        "  zero(hist);\n"
        "  memo_start<<<1, 1>>>();\n"
        "  memo_scan<<<1024, 256>>>(samples, n);\n"
        "  memo_align<<<kBins / 2, kBins>>>(n);\n"
        "  memo_answer<<<1024, 256>>>(samples, n, hist);\n"
        "  memo_store<<<1, kBins>>>(hist, n);\n"
        "  if (launch.blocks < 0) shared_kernel<<<1, 1>>>(samples, n, hist, launch.slice);\n",
    ),
)

# ---- Trust: what a launcher can reach beyond its output ----------------------------
variant(
    "yardstick_input",
    "the shared variant counts with global atomics (no faster than the course's kernel) "
    "and, on its first call, once it has counted, moves every sample to bin 0: the "
    "course's global-atomics kernel, timed next on the same samples, then counts under "
    "full contention, and the slow variant would clear its speedup bar.",
    (
        SHARED_COUNT,
        "  for (long long i = pos; i < end; i++) atomicAdd(h + t[i], 1);\n",
    ),
    (
        SHARED_LAUNCH,
        SHARED_LAUNCH + "  static bool first = true;  // DEFECT: rewrites what it may only read\n"
        "  if (first) cudaMemsetAsync(const_cast<int*>(samples), 0, n * sizeof(int));\n"
        "  first = false;\n",
    ),
)

variant(
    "guard_write",
    "the shared variant writes one word past the end of hist: inside cudaMalloc's "
    "rounding, so no illegal address is raised, and only compute-sanitizer would see it.",
    (
        SHARED_COUNT,
        SHARED_COUNT
        + "  if (blockIdx.x == 0 && threadIdx.x == 0) h[kBins] = 0;  // DEFECT: one past the end\n",
    ),
)
