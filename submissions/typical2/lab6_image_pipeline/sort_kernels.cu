// lab6 step 9: the radix sort, 2 bits per pass (contract:
// labs/lab6_image_pipeline/image_pipeline.cuh).
//
// A pass is three kernels: each block counts the digits of its tile of keys, one
// block scans the counts exclusively in digit-major order (counts[digit * tiles +
// tile]: where each tile's keys of each digit start in out), then each block writes
// its keys there, ranked within the tile in their order (stable) with __ballot_sync.
// A tile is kRounds rounds of kThreads consecutive keys, one key per thread.
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kDigits = 4;
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / kWarp;
constexpr int kRounds = 16;
constexpr int kTile = kThreads * kRounds;
constexpr int kScanThreads = 1024;

int blocks_for(long long work, int threads) {
  const long long blocks = (work + threads - 1) / threads;
  return blocks < 1 ? 1 : static_cast<int>(blocks);
}

// (9a) *sorted starts at 1 (one thread), then any descent writes 0.
__global__ void set_one_kernel(int* flag) { *flag = 1; }

__global__ void order_kernel(const unsigned* keys, int n, int* sorted) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i + 1 < n;
       i += stride) {
    if (keys[i] > keys[i + 1]) *sorted = 0;
  }
}

// The key of this thread in round r of its block's tile, and whether there is one.
__device__ bool key_at(const unsigned* in, int n, int round, unsigned* key) {
  const long long i = static_cast<long long>(blockIdx.x) * kTile +
                      static_cast<long long>(round) * kThreads + threadIdx.x;
  if (i >= n) return false;
  *key = in[i];
  return true;
}

// (9b, 1) counts[d * tiles + tile] = the keys of digit d in the tile.
__global__ void count_kernel(const unsigned* in, int n, int shift, int* counts) {
  __shared__ int warp_counts[kWarps][kDigits];
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  int mine[kDigits] = {0, 0, 0, 0};  // lane 0's counts for its warp
  for (int r = 0; r < kRounds; ++r) {
    unsigned key = 0;
    const bool valid = key_at(in, n, r, &key);
    const int digit = (key >> shift) & 3;
#pragma unroll
    for (int d = 0; d < kDigits; ++d)
      mine[d] += __popc(__ballot_sync(kFullMask, valid && digit == d));
  }
  if (lane == 0) {
#pragma unroll
    for (int d = 0; d < kDigits; ++d) warp_counts[warp][d] = mine[d];
  }
  __syncthreads();
  if (threadIdx.x < kDigits) {
    int total = 0;
    for (int w = 0; w < kWarps; ++w) total += warp_counts[w][threadIdx.x];
    counts[threadIdx.x * gridDim.x + blockIdx.x] = total;
  }
}

// (9b, 2) One block scans the `size` counts exclusively, kScanThreads at a time,
// carrying the running total from chunk to chunk.
__global__ void exclusive_scan_kernel(int* counts, int size) {
  __shared__ int warp_totals[kScanThreads / kWarp];
  __shared__ int carry;
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < size; base += kScanThreads) {
    const int i = base + threadIdx.x;
    const int value = i < size ? counts[i] : 0;
    int x = value;
#pragma unroll
    for (int offset = 1; offset < kWarp; offset <<= 1) {
      const int y = __shfl_up_sync(kFullMask, x, offset);
      if (lane >= offset) x += y;
    }
    if (lane == kWarp - 1) warp_totals[warp] = x;
    __syncthreads();
    int before = carry;
    for (int w = 0; w < warp; ++w) before += warp_totals[w];
    if (i < size) counts[i] = before + x - value;  // exclusive
    __syncthreads();                               // every thread has read carry
    if (threadIdx.x == kScanThreads - 1) carry = before + x;
    __syncthreads();
  }
}

// (9b, 3) Each key to its place: its digit's start for this tile, plus the keys of
// that digit before it in the tile (earlier rounds, earlier warps, earlier lanes).
__global__ void scatter_kernel(const unsigned* in, unsigned* out, int n, int shift,
                               const int* starts) {
  __shared__ int warp_counts[kWarps][kDigits];
  __shared__ int base[kDigits];
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const unsigned lanes_before = (1u << lane) - 1;
  if (threadIdx.x < kDigits) base[threadIdx.x] = starts[threadIdx.x * gridDim.x + blockIdx.x];
  for (int r = 0; r < kRounds; ++r) {
    unsigned key = 0;
    const bool valid = key_at(in, n, r, &key);
    const int digit = (key >> shift) & 3;
    int rank = 0;
#pragma unroll
    for (int d = 0; d < kDigits; ++d) {
      const unsigned same = __ballot_sync(kFullMask, valid && digit == d);
      if (digit == d) rank = __popc(same & lanes_before);
      if (lane == 0) warp_counts[warp][d] = __popc(same);
    }
    __syncthreads();  // this round's counts, and base after the last round's update
    if (valid) {
      int place = base[digit] + rank;
      for (int w = 0; w < warp; ++w) place += warp_counts[w][digit];
      out[place] = key;
    }
    int round_total = 0;
    if (threadIdx.x < kDigits) {
      for (int w = 0; w < kWarps; ++w) round_total += warp_counts[w][threadIdx.x];
    }
    // Every thread has read base and this round's warp_counts: the next round may
    // overwrite warp_counts, and base moves on.
    __syncthreads();
    if (threadIdx.x < kDigits) base[threadIdx.x] += round_total;
  }
}

}  // namespace

void check_order(const unsigned* keys, int n, int* sorted) {
  set_one_kernel<<<1, 1>>>(sorted);
  const int blocks = blocks_for(n, kThreads * 4);
  const int grid = blocks < 1024 ? blocks : 1024;
  order_kernel<<<grid, kThreads>>>(keys, n, sorted);
}

void radix_pass(const unsigned* in, unsigned* out, int n, int shift, Scratch scratch) {
  const int tiles = blocks_for(n, kTile);
  int* counts = static_cast<int*>(scratch.data);  // kDigits * tiles ints, all written
  count_kernel<<<tiles, kThreads>>>(in, n, shift, counts);
  exclusive_scan_kernel<<<1, kScanThreads>>>(counts, kDigits * tiles);
  scatter_kernel<<<tiles, kThreads>>>(in, out, n, shift, counts);
}

void radix_sort(unsigned* keys, int n, unsigned* temp, Scratch scratch) {
  // 16 passes: an even number, so the last one writes back into keys.
  for (int shift = 0; shift < 32; shift += 2) {
    const bool forward = (shift / 2) % 2 == 0;
    radix_pass(forward ? keys : temp, forward ? temp : keys, n, shift, scratch);
  }
}

}  // namespace lab6
