// lab6 step 9: the radix sort, 2 bits per pass (a typical student solution,
// written from the README, the contract image_pipeline.cuh and the skeleton's hints).
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kRounds = 4;                     // keys per thread in a pass
constexpr int kSortTile = kThreads * kRounds;  // keys per block
constexpr int kDigits = 4;                     // 2 bits
constexpr int kScanCountThreads = 1024;

int blocks_for(long long n, long long per_block) {
  long long blocks = (n + per_block - 1) / per_block;
  if (blocks < 1) blocks = 1;
  return static_cast<int>(blocks);
}

// (9a) *sorted starts at 1 ...
__global__ void set_one_kernel(int* sorted) { *sorted = 1; }

// ... and any descent writes 0.
__global__ void order_kernel(const unsigned* keys, int n, int* sorted) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i + 1 < n && keys[i] > keys[i + 1]) *sorted = 0;
}

// (9b) Pass, kernel 1: each block counts the digits of its tile of keys;
// counts[digit * blocks + block].
__global__ void count_kernel(const unsigned* in, int n, int shift, int* counts) {
  __shared__ int block_counts[kDigits];
  if (threadIdx.x < kDigits) block_counts[threadIdx.x] = 0;
  __syncthreads();

  int c[kDigits] = {0, 0, 0, 0};
  const long long base = static_cast<long long>(blockIdx.x) * kSortTile;
  for (int r = 0; r < kRounds; ++r) {
    const long long i = base + r * kThreads + threadIdx.x;
    if (i < n) {
      const unsigned digit = (in[i] >> shift) & 3u;
#pragma unroll
      for (int d = 0; d < kDigits; ++d) c[d] += digit == static_cast<unsigned>(d) ? 1 : 0;
    }
  }
  // Warp sums, then one shared atomicAdd per warp and digit.
#pragma unroll
  for (int d = 0; d < kDigits; ++d) {
    int v = c[d];
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) atomicAdd(&block_counts[d], v);
  }
  __syncthreads();
  if (threadIdx.x < kDigits)
    counts[threadIdx.x * gridDim.x + blockIdx.x] = block_counts[threadIdx.x];
}

// (9b) Pass, kernel 2: exclusive scan of the counts, in place, by one block of
// 1024 threads walking over them 1024 at a time with a running carry.
__global__ void scan_counts_kernel(int* counts, int total) {
  __shared__ int warp_totals[kScanCountThreads / 32];
  __shared__ int carry;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  if (tid == 0) carry = 0;
  __syncthreads();
  for (int start = 0; start < total; start += kScanCountThreads) {
    const int i = start + tid;
    const int v = i < total ? counts[i] : 0;
    int x = v;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, x, offset);
      if (lane >= offset) x += y;
    }
    if (lane == 31) warp_totals[warp] = x;
    __syncthreads();
    if (warp == 0) {
      int t = warp_totals[lane];
#pragma unroll
      for (int offset = 1; offset < 32; offset <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, t, offset);
        if (lane >= offset) t += y;
      }
      warp_totals[lane] = t;
    }
    __syncthreads();
    const int inclusive = x + (warp > 0 ? warp_totals[warp - 1] : 0);
    if (i < total) counts[i] = carry + inclusive - v;
    __syncthreads();  // everyone has read carry and warp_totals
    if (tid == 0) carry += warp_totals[kScanCountThreads / 32 - 1];
    __syncthreads();
  }
}

// (9b) Pass, kernel 3: each block writes its keys to their places, in order. The
// tile is taken in rounds of kThreads keys (thread t takes key t of the round, so
// the rounds and the threads follow the input order); a key's rank among the keys
// of its digit before it comes from __ballot_sync within its warp, from the warps
// before it in the round, and from the rounds before.
__global__ void scatter_kernel(const unsigned* in, unsigned* out, int n, int shift,
                               const int* offsets) {
  __shared__ int warp_counts[kDigits][kWarps];
  __shared__ int warp_offsets[kDigits][kWarps];
  __shared__ int running[kDigits];
  __shared__ int block_base[kDigits];
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  if (tid < kDigits) {
    running[tid] = 0;
    block_base[tid] = offsets[tid * gridDim.x + blockIdx.x];
  }
  const unsigned lanes_before = (1u << lane) - 1u;
  const long long base = static_cast<long long>(blockIdx.x) * kSortTile;

  for (int r = 0; r < kRounds; ++r) {
    const long long i = base + r * kThreads + tid;
    const bool valid = i < n;
    const unsigned key = valid ? in[i] : 0u;
    const int digit = valid ? static_cast<int>((key >> shift) & 3u) : -1;

    int rank = 0;
#pragma unroll
    for (int d = 0; d < kDigits; ++d) {
      const unsigned mask = __ballot_sync(0xffffffffu, digit == d);
      if (digit == d) rank = __popc(mask & lanes_before);
      if (lane == 0) warp_counts[d][warp] = __popc(mask);
    }
    __syncthreads();
    if (tid < kDigits) {
      int sum = running[tid];
      for (int w = 0; w < kWarps; ++w) {
        warp_offsets[tid][w] = sum;
        sum += warp_counts[tid][w];
      }
      running[tid] = sum;
    }
    __syncthreads();
    if (valid) out[block_base[digit] + warp_offsets[digit][warp] + rank] = key;
    __syncthreads();  // warp_counts and warp_offsets are reused by the next round
  }
}

}  // namespace

void check_order(const unsigned* keys, int n, int* sorted) {
  set_one_kernel<<<1, 1>>>(sorted);
  order_kernel<<<blocks_for(n, kThreads), kThreads>>>(keys, n, sorted);
}

void radix_pass(const unsigned* in, unsigned* out, int n, int shift, Scratch scratch) {
  const int blocks = blocks_for(n, kSortTile);
  int* counts = static_cast<int*>(scratch.data);  // kDigits * blocks ints
  count_kernel<<<blocks, kThreads>>>(in, n, shift, counts);
  scan_counts_kernel<<<1, kScanCountThreads>>>(counts, kDigits * blocks);
  scatter_kernel<<<blocks, kThreads>>>(in, out, n, shift, counts);
}

void radix_sort(unsigned* keys, int n, unsigned* temp, Scratch scratch) {
  // 16 passes (an even number): keys -> temp -> keys ..., the result ends in keys.
  for (int shift = 0; shift < 32; shift += 2) {
    if ((shift / 2) % 2 == 0) {
      radix_pass(keys, temp, n, shift, scratch);
    } else {
      radix_pass(temp, keys, n, shift, scratch);
    }
  }
}

}  // namespace lab6
