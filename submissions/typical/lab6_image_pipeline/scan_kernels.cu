// lab6 steps 1-3: the compaction (a typical student solution, written from the
// README, the contract image_pipeline.cuh and the skeleton's hints).
#include <cstdint>

#include "image_pipeline.cuh"

namespace lab6 {
namespace {

// Both scans: 256 threads, 8 elements per thread, tiles of 2048 elements.
constexpr int kScanThreads = 256;
constexpr int kScanItems = 8;
constexpr int kScanTile = kScanThreads * kScanItems;
constexpr int kScanWarps = kScanThreads / 32;

// The three-kernel scan's shape, used by its launcher.
constexpr int kThreeKernelThreads = kScanThreads;
constexpr int kThreeKernelTile = kScanTile;
constexpr int kScanBlocksPerSm = 2;

constexpr int kThreads = 256;  // the element-wise kernels

int blocks_for(long long n, long long per_block) {
  long long blocks = (n + per_block - 1) / per_block;
  if (blocks < 1) blocks = 1;
  return static_cast<int>(blocks);
}

// (1) Grid-stride loop, a grid four times smaller than one element per thread.
__global__ void predicate_kernel(const int* buffer, int n, int* predicate) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    predicate[i] = buffer[i] != kGarbage ? 1 : 0;
  }
}

// Inclusive scan of one value per lane over the warp.
__device__ int warp_inclusive_scan(int x) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const int y = __shfl_up_sync(0xffffffffu, x, offset);
    if (lane >= offset) x += y;
  }
  return x;
}

// Inclusive scan, in place, of the kScanTile values in shared memory s (written
// by the whole block before the call: the caller syncs). Each thread scans its
// kScanItems consecutive values in registers; the threads' totals are scanned
// with warp shuffles. Returns the tile's total to every thread. Ends with a
// barrier, so s may be read by any thread afterwards.
__device__ int block_scan_shared(int* s) {
  __shared__ int warp_totals[kScanWarps];
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;

  int v[kScanItems];
  int sum = 0;
#pragma unroll
  for (int j = 0; j < kScanItems; ++j) {
    sum += s[tid * kScanItems + j];
    v[j] = sum;
  }

  const int inclusive = warp_inclusive_scan(sum);
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    int t = lane < kScanWarps ? warp_totals[lane] : 0;
    t = warp_inclusive_scan(t);
    if (lane < kScanWarps) warp_totals[lane] = t;
  }
  __syncthreads();

  const int prefix = (inclusive - sum) + (warp > 0 ? warp_totals[warp - 1] : 0);
#pragma unroll
  for (int j = 0; j < kScanItems; ++j) s[tid * kScanItems + j] = v[j] + prefix;
  const int total = warp_totals[kScanWarps - 1];
  __syncthreads();
  return total;
}

// Loads tile [base, base + kScanTile) of in into s, coalesced, 0 past n.
__device__ void load_tile(const int* in, int n, long long base, int* s) {
#pragma unroll
  for (int j = 0; j < kScanItems; ++j) {
    const int local = j * kScanThreads + threadIdx.x;
    const long long g = base + local;
    s[local] = g < n ? in[g] : 0;
  }
  __syncthreads();
}

// (2a) Block b scans tile b into out and writes the tile's total.
__global__ void __launch_bounds__(kThreeKernelThreads, kScanBlocksPerSm)
    scan_tile_kernel(const int* in, int* out, int n, int* tile_totals) {
  __shared__ int s[kScanTile];
  const long long base = static_cast<long long>(blockIdx.x) * kScanTile;
  load_tile(in, n, base, s);
  const int total = block_scan_shared(s);
#pragma unroll
  for (int j = 0; j < kScanItems; ++j) {
    const int local = j * kScanThreads + threadIdx.x;
    const long long g = base + local;
    if (g < n) out[g] = s[local];
  }
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = total;
}

// (2a) Block b > 0 adds the total of the tiles before it to its tile.
__global__ void add_tile_prefix_kernel(int* out, int n, const int* scanned_totals) {
  if (blockIdx.x == 0) return;
  const int prefix = scanned_totals[blockIdx.x - 1];
  const long long base = static_cast<long long>(blockIdx.x) * kThreeKernelTile;
  for (int local = threadIdx.x; local < kThreeKernelTile; local += blockDim.x) {
    const long long g = base + local;
    if (g < n) out[g] += prefix;
  }
}

// (2b) The look-back state of a tile: one 64-bit word, the flag in the high half
// and the value in the low half, written with one store and read with one load,
// so that a flag is never seen without its value (no fence needed).
constexpr unsigned long long kFlagAggregate = 1ull;
constexpr unsigned long long kFlagPrefix = 2ull;

__device__ void publish(unsigned long long* state, unsigned long long flag, int value) {
  const unsigned long long word = (flag << 32) | static_cast<unsigned int>(value);
  *reinterpret_cast<volatile unsigned long long*>(state) = word;
}

// The single-pass scan: scratch holds the tile counter (8 bytes), then one state
// word per tile, all cleared by the launcher.
__global__ void __launch_bounds__(kScanThreads, kScanBlocksPerSm)
    lookback_kernel(const int* in, int* out, int n, unsigned int* counter,
                    unsigned long long* states) {
  __shared__ int s[kScanTile];
  __shared__ int s_tile;
  __shared__ int s_prefix;

  // Tiles in the order the blocks start, so that a tile only waits on running ones.
  if (threadIdx.x == 0) s_tile = static_cast<int>(atomicAdd(counter, 1u));
  __syncthreads();
  const int tile = s_tile;
  const long long base = static_cast<long long>(tile) * kScanTile;

  load_tile(in, n, base, s);
  const int aggregate = block_scan_shared(s);

  if (threadIdx.x == 0) {
    int exclusive = 0;
    if (tile == 0) {
      publish(&states[0], kFlagPrefix, aggregate);
    } else {
      publish(&states[tile], kFlagAggregate, aggregate);
      // Look back, one tile at a time, until a tile with its inclusive prefix.
      const volatile unsigned long long* vstates = states;
      int p = tile - 1;
      while (true) {
        const unsigned long long word = vstates[p];
        const unsigned long long flag = word >> 32;
        if (flag == 0) continue;  // not published yet: wait
        exclusive += static_cast<int>(static_cast<unsigned int>(word & 0xffffffffull));
        if (flag == kFlagPrefix) break;
        --p;
      }
      publish(&states[tile], kFlagPrefix, exclusive + aggregate);
    }
    s_prefix = exclusive;
  }
  __syncthreads();

  const int prefix = s_prefix;
#pragma unroll
  for (int j = 0; j < kScanItems; ++j) {
    const int local = j * kScanThreads + threadIdx.x;
    const long long g = base + local;
    if (g < n) out[g] = s[local] + prefix;
  }
}

// (2c) exclusive[0] = 0, exclusive[i] = inclusive[i - 1].
__global__ void shift_kernel(const int* inclusive, int* exclusive, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) exclusive[i] = i == 0 ? 0 : inclusive[i - 1];
}

// (3) Each kept value to its address.
__global__ void scatter_kernel(const int* buffer, const int* addresses, int n, int* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const int v = buffer[i];
    if (v != kGarbage) out[addresses[i]] = v;
  }
}

}  // namespace

void build_predicate(const int* buffer, int n, int* predicate) {
  predicate_kernel<<<blocks_for(n, 4LL * kThreads), kThreads>>>(buffer, n, predicate);
}

void scan_lookback(const int* in, int* out, int n, Scratch scratch) {
  const int tiles = blocks_for(n, kScanTile);
  auto* counter = static_cast<unsigned int*>(scratch.data);
  auto* states = reinterpret_cast<unsigned long long*>(static_cast<char*>(scratch.data) + 8);
  cudaMemsetAsync(scratch.data, 0, 8 + sizeof(unsigned long long) * static_cast<size_t>(tiles));
  lookback_kernel<<<tiles, kScanThreads>>>(in, out, n, counter, states);
}

void shift_exclusive(const int* inclusive, int* exclusive, int n) {
  shift_kernel<<<blocks_for(n, kThreads), kThreads>>>(inclusive, exclusive, n);
}

void scatter(const int* buffer, const int* addresses, int n, int* out) {
  scatter_kernel<<<blocks_for(n, kThreads), kThreads>>>(buffer, addresses, n, out);
}

}  // namespace lab6

// The three-kernel scan's launcher, fixed by the lab: it launches scan_tile_kernel
// and add_tile_prefix_kernel.
#include "image_pipeline_launchers.cuh"
