#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab6 step 9: the radix sort. Read labs/lab6_image_pipeline/README.md and the
// contract labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the kernels and their launchers, by the contract's rules for every
// launcher. Put your kernels and helpers in the anonymous namespace below.
#else
// lab6 reference solution, step 9: the order check and the radix sort, 2 bits
// per pass.
//
// A pass is three kernels. Each block of 256 threads owns a tile of 4096 keys,
// 16 per thread, loaded coalesced (key j * 256 + t of the tile to thread t):
//   1. count: the tile's number of keys of each digit, into counts[digit * tiles
//      + tile];
//   2. scan: one block scans counts exclusively, in place: each (digit, tile)
//      gets where its keys start in the output, the keys of smaller digits and
//      of the same digit in earlier tiles before them;
//   3. scatter: the tile ranks its keys by digit, stably, in shared memory, and
//      writes them out in that order, each digit's run to its place: runs of
//      consecutive addresses, so the writes stay coalesced.
#endif
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

#if !LAB_SKELETON
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;
constexpr int kDigits = 4;
constexpr int kPasses = 32 / 2;
constexpr int kScanThreads = 1024;
constexpr int kScanItems = 8;  // per thread and round of the counts' scan
static_assert(kPasses % 2 == 0, "an even number of passes ends in keys");

int tiles_for(int n) { return n <= kTile ? 1 : (n - 1) / kTile + 1; }

__device__ unsigned digit_of(unsigned key, int shift) { return (key >> shift) & 3u; }
#endif

#if LAB_SKELETON
// (9a) Writes 0 to *sorted where keys[i] > keys[i + 1]; *sorted must be 1
// otherwise (it arrives poisoned: set it first, e.g. with a kernel of one thread).
#else
// (9a) Every thread compares one key with the next; a block that finds a descent
// writes 0 (all such writes are the same value: the race is benign).
__global__ void set_one_kernel(int* flag) { *flag = 1; }
#endif
__global__ void order_kernel(const unsigned* keys, int n, int* sorted) {
#if LAB_SKELETON
  // TODO
#else
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool descent = i + 1 < n && keys[i] > keys[i + 1];
  if (__syncthreads_or(descent) && threadIdx.x == 0) *sorted = 0;
#endif
}

#if LAB_SKELETON
// (9b) Suggested: three kernels per pass. Count the keys of each digit per block
// (its tile of keys); scan those counts exclusively in digit-major order
// (counts[digit * blocks + block]), which gives every (digit, block) the place its
// keys start in out; then each block writes its keys there, in their order
// within the tile (stable: rank them, e.g. with __ballot_sync and __popc per
// digit). The counts live in `scratch`. Write your kernels here.
#else
// Kernel 1: counts[d * tiles + tile] = the tile's keys of digit d.
__global__ void count_digits_kernel(const unsigned* in, int n, int shift, int* counts, int tiles) {
  __shared__ int warp_counts[kWarps][kDigits];
  const long long base = static_cast<long long>(blockIdx.x) * kTile;
  int count[kDigits] = {0, 0, 0, 0};
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const long long e = base + j * kThreads + threadIdx.x;
    if (e < n) {
      const unsigned d = digit_of(in[e], shift);
#pragma unroll
      for (int k = 0; k < kDigits; ++k) count[k] += d == static_cast<unsigned>(k);
    }
  }
#pragma unroll
  for (int k = 0; k < kDigits; ++k) {
    for (int d = 16; d > 0; d /= 2) count[k] += __shfl_down_sync(0xffffffffu, count[k], d);
    if (threadIdx.x % 32 == 0) warp_counts[threadIdx.x / 32][k] = count[k];
  }
  __syncthreads();
  if (threadIdx.x < kDigits) {
    int sum = 0;
    for (int w = 0; w < kWarps; ++w) sum += warp_counts[w][threadIdx.x];
    counts[threadIdx.x * tiles + blockIdx.x] = sum;
  }
}

// Kernel 2, one block: the exclusive scan of counts[0 .. m), in place, in rounds
// of kScanThreads * kScanItems; thread t scans kScanItems consecutive counts.
__global__ void scan_counts_kernel(int* counts, int m) {
  __shared__ int warp_totals[kScanThreads / 32];
  __shared__ int carry;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int round = 0; round < m; round += kScanThreads * kScanItems) {
    const int first = round + threadIdx.x * kScanItems;
    int items[kScanItems];
    int sum = 0;
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      items[k] = first + k < m ? counts[first + k] : 0;
      sum += items[k];
    }
    int inclusive = sum;  // over the warp's threads
    for (int d = 1; d < 32; d *= 2) {
      const int other = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += other;
    }
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
      const int mine = warp_totals[lane];  // kScanThreads / 32 == 32 warps
      int scanned = mine;
      for (int d = 1; d < 32; d *= 2) {
        const int other = __shfl_up_sync(0xffffffffu, scanned, d);
        if (lane >= d) scanned += other;
      }
      warp_totals[lane] = scanned - mine;  // exclusive
    }
    __syncthreads();
    int before = carry + warp_totals[warp] + inclusive - sum;
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      if (first + k < m) counts[first + k] = before;
      before += items[k];
    }
    __syncthreads();  // every thread has read carry and warp_totals
    if (threadIdx.x == kScanThreads - 1) carry = before;
    __syncthreads();
  }
}
static_assert(kScanThreads == 32 * 32, "the counts' scan: one warp scans the 32 warp totals");

// Kernel 3: the tile's keys ranked stably by digit in shared memory, then written
// to out in that order, each digit's run from offsets[d * tiles + tile].
__global__ void scatter_digits_kernel(const unsigned* in, unsigned* out, int n, int shift,
                                      const int* offsets, int tiles) {
  __shared__ unsigned sorted[kTile];
  // Per digit, the keys of that digit in each (round j, warp w), j-major: the
  // order of the keys in the tile. Scanned in place to where each starts.
  __shared__ int before[kDigits][kItems * kWarps];
  __shared__ int run_start[kDigits];  // where each digit's run starts in `sorted`
  __shared__ int out_start[kDigits];  // and in out
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_below = (1u << lane) - 1;
  const long long base = static_cast<long long>(blockIdx.x) * kTile;
  const int tile_keys = static_cast<int>(n - base < kTile ? n - base : kTile);

  unsigned key[kItems];
  int rank[kItems];  // among the keys of its digit in its warp and round
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int e = j * kThreads + threadIdx.x;
    const bool valid = e < tile_keys;
    key[j] = valid ? in[base + e] : 0;
    const unsigned d = digit_of(key[j], shift);
    rank[j] = 0;
#pragma unroll
    for (int k = 0; k < kDigits; ++k) {
      const unsigned mask = __ballot_sync(0xffffffffu, valid && d == static_cast<unsigned>(k));
      if (d == static_cast<unsigned>(k)) rank[j] = __popc(mask & lanes_below);
      if (lane == 0) before[k][j * kWarps + warp] = __popc(mask);
    }
  }
  __syncthreads();
  // Warp k scans digit k's kItems * kWarps counts (4 per lane) exclusively.
  if (warp < kDigits) {
    constexpr int kPerLane = kItems * kWarps / 32;
    int c[kPerLane];
    int sum = 0;
#pragma unroll
    for (int q = 0; q < kPerLane; ++q) {
      c[q] = before[warp][lane * kPerLane + q];
      sum += c[q];
    }
    int inclusive = sum;
    for (int d = 1; d < 32; d *= 2) {
      const int other = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += other;
    }
    int at = inclusive - sum;
#pragma unroll
    for (int q = 0; q < kPerLane; ++q) {
      before[warp][lane * kPerLane + q] = at;
      at += c[q];
    }
    if (lane == 31) run_start[warp] = inclusive;  // the digit's total, for now
    if (lane == 0) out_start[warp] = offsets[warp * tiles + blockIdx.x];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int start = 0;
    for (int k = 0; k < kDigits; ++k) {
      const int total = run_start[k];
      run_start[k] = start;
      start += total;
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int e = j * kThreads + threadIdx.x;
    if (e < tile_keys) {
      const unsigned d = digit_of(key[j], shift);
      sorted[run_start[d] + before[d][j * kWarps + warp] + rank[j]] = key[j];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int e = j * kThreads + threadIdx.x;
    if (e < tile_keys) {
      const unsigned k = sorted[e];
      const unsigned d = digit_of(k, shift);
      out[out_start[d] + (e - run_start[d])] = k;
    }
  }
}
#endif

}  // namespace

void check_order(const unsigned* keys, int n, int* sorted) {
#if LAB_SKELETON
  // TODO: set *sorted to 1 first
  order_kernel<<<1, 256>>>(keys, n, sorted);  // TODO: your grid
#else
  set_one_kernel<<<1, 1>>>(sorted);
  const int blocks = n <= kThreads ? 1 : (n - 1) / kThreads + 1;
  order_kernel<<<blocks, kThreads>>>(keys, n, sorted);
#endif
}

void radix_pass(const unsigned* in, unsigned* out, int n, int shift, Scratch scratch) {
#if LAB_SKELETON
  // TODO: your kernels (see above), the counts in scratch
#else
  const int tiles = tiles_for(n);
  int* counts = static_cast<int*>(scratch.data);  // every entry written by kernel 1
  count_digits_kernel<<<tiles, kThreads>>>(in, n, shift, counts, tiles);
  scan_counts_kernel<<<1, kScanThreads>>>(counts, kDigits * tiles);
  scatter_digits_kernel<<<tiles, kThreads>>>(in, out, n, shift, counts, tiles);
#endif
}

void radix_sort(unsigned* keys, int n, unsigned* temp, Scratch scratch) {
#if LAB_SKELETON
  // TODO: 16 passes of radix_pass, least significant digit first, between keys
  // and temp; the result ends in keys
#else
  for (int pass = 0; pass < kPasses; ++pass) {
    const bool from_keys = pass % 2 == 0;
    radix_pass(from_keys ? keys : temp, from_keys ? temp : keys, n, 2 * pass, scratch);
  }
#endif
}

}  // namespace lab6
