// lab6 steps 1-3: the compaction (contract: labs/lab6_image_pipeline/image_pipeline.cuh).
// The three-kernel scan's launcher is the lab's (image_pipeline_launchers.cuh).
//
// Both scans share one tile scan: each warp owns 32 x kItems consecutive elements,
// loaded warp-striped (element j * 32 + lane of the warp's chunk, so every load is
// coalesced), scanned round by round with warp shuffles and a running carry, then
// offset by the totals of the warps before it.
#include <cuda/std/atomic>

#include "image_pipeline.cuh"

namespace lab6 {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

// The three-kernel scan's shape, used by its launcher: 256 threads, 8 elements each.
constexpr int kThreeKernelThreads = 256;
constexpr int kThreeKernelTile = 2048;
// The blocks per SM the compiler leaves registers for in the scan kernels.
constexpr int kScanBlocksPerSm = 4;

// The look-back scan's shape: 256 threads, 16 elements each, tiles of 4096.
constexpr int kLookbackThreads = 256;
constexpr int kLookbackItems = 16;
constexpr int kLookbackTile = kLookbackThreads * kLookbackItems;

__device__ int warp_inclusive_scan(int x) {
  const int lane = threadIdx.x % kWarp;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset <<= 1) {
    const int y = __shfl_up_sync(kFullMask, x, offset);
    if (lane >= offset) x += y;
  }
  return x;
}

// What a block's tile scan leaves: each thread's values, scanned within its warp's
// chunk, the total of the warps before this one, and the tile's total.
struct TileSums {
  int warp_offset;
  int total;
};

// Loads the tile starting at `base` (0 past n) into v and scans it in place within
// each warp's chunk. Ends with a barrier: warp_totals (one int per warp) is read back.
template <int kThreads, int kItems>
__device__ TileSums scan_tile(const int* in, long long base, int n, int (&v)[kItems],
                              int* warp_totals) {
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const long long chunk = base + static_cast<long long>(warp) * kWarp * kItems + lane;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const long long i = chunk + j * kWarp;
    v[j] = i < n ? in[i] : 0;
  }
  int carry = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int x = warp_inclusive_scan(v[j]) + carry;
    carry = __shfl_sync(kFullMask, x, kWarp - 1);
    v[j] = x;
  }
  if (lane == 0) warp_totals[warp] = carry;
  __syncthreads();
  TileSums sums{0, 0};
#pragma unroll
  for (int w = 0; w < kThreads / kWarp; ++w) {
    const int t = warp_totals[w];
    if (w < warp) sums.warp_offset += t;
    sums.total += t;
  }
  return sums;
}

// Writes v plus `add` back to the tile's places below n.
template <int kItems>
__device__ void store_tile(int* out, long long base, int n, const int (&v)[kItems], int add) {
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  const long long chunk = base + static_cast<long long>(warp) * kWarp * kItems + lane;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const long long i = chunk + j * kWarp;
    if (i < n) out[i] = v[j] + add;
  }
}

// (1) The predicate: a grid-stride loop over int4s (a grid four times smaller than
// one int4 per thread, as the report's), then the last n % 4 values.
constexpr int kPredicateThreads = 256;
constexpr int kPredicateSteps = 4;

__global__ void predicate_kernel(const int* buffer, int n, int* predicate) {
  const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long quads = n / 4;
  const int4* in4 = reinterpret_cast<const int4*>(buffer);
  int4* out4 = reinterpret_cast<int4*>(predicate);
  for (long long q = tid; q < quads; q += stride) {
    const int4 v = in4[q];
    out4[q] = make_int4(v.x != kGarbage, v.y != kGarbage, v.z != kGarbage, v.w != kGarbage);
  }
  const long long i = 4 * quads + tid;
  if (i < n) predicate[i] = buffer[i] != kGarbage;
}

// (2a) Tile b scanned into out; its total to tile_totals[b].
__global__ void __launch_bounds__(kThreeKernelThreads, kScanBlocksPerSm)
    scan_tile_kernel(const int* in, int* out, int n, int* tile_totals) {
  constexpr int kItems = kThreeKernelTile / kThreeKernelThreads;
  __shared__ int warp_totals[kThreeKernelThreads / kWarp];
  const long long base = static_cast<long long>(blockIdx.x) * kThreeKernelTile;
  int v[kItems];
  const TileSums sums = scan_tile<kThreeKernelThreads, kItems>(in, base, n, v, warp_totals);
  store_tile(out, base, n, v, sums.warp_offset);
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = sums.total;
}

// (2a) Tile b > 0 adds the total of the tiles before it.
__global__ void add_tile_prefix_kernel(int* out, int n, const int* scanned_totals) {
  if (blockIdx.x == 0) return;
  const int add = scanned_totals[blockIdx.x - 1];
  const long long base = static_cast<long long>(blockIdx.x) * kThreeKernelTile;
  for (int j = threadIdx.x; j < kThreeKernelTile; j += blockDim.x) {
    const long long i = base + j;
    if (i < n) out[i] += add;
  }
}

// ---- (2b) The decoupled look-back, as the course's report writes it: per tile a
// flag, a cuda::std::atomic<char> in an array of its own, beside two arrays of
// values (the tile's aggregate, its inclusive prefix). A value is written, then
// __threadfence(), then its flag; a reader reads the flag, __threadfence(), then the
// value. One thread per block looks back, one tile at a time.
enum TileFlag : char { kEmpty = 0, kAggregate = 1, kInclusive = 2 };

using Flag = cuda::std::atomic<char>;

struct LookbackState {
  int* counter;     // the next tile index (cleared by the launcher)
  Flag* flags;      // one per tile (cleared by the launcher)
  int* aggregates;  // a tile's own total, valid once its flag is kAggregate
  int* inclusive;   // the total of tiles 0 .. t, valid once its flag is kInclusive
};

// The state's place in scratch: the counter, the flags, then the values.
constexpr std::size_t kCounterBytes = 256;
// (libcu++ pads an atomic<char> to 4 bytes: count sizeof, not 1.)
std::size_t flag_bytes(int tiles) {
  return (static_cast<std::size_t>(tiles) * sizeof(Flag) + 255) / 256 * 256;
}

LookbackState lookback_state(Scratch scratch, int tiles) {
  char* base = static_cast<char*>(scratch.data);
  int* values = reinterpret_cast<int*>(base + kCounterBytes + flag_bytes(tiles));
  return LookbackState{reinterpret_cast<int*>(base), reinterpret_cast<Flag*>(base + kCounterBytes),
                       values, values + tiles};
}

// Thread 0's part: publish the aggregate, walk back to an inclusive prefix, publish
// this tile's inclusive prefix; returns the total of the tiles before this one.
__device__ int look_back(const LookbackState& st, int tile, int total) {
  volatile int* aggregates = st.aggregates;
  volatile int* inclusive = st.inclusive;
  if (tile == 0) {
    inclusive[0] = total;
    __threadfence();
    st.flags[0].store(kInclusive, cuda::std::memory_order_relaxed);
    return 0;
  }
  aggregates[tile] = total;
  __threadfence();  // the aggregate is visible before its flag
  st.flags[tile].store(kAggregate, cuda::std::memory_order_relaxed);

  int prefix = 0;
  for (int j = tile - 1;; --j) {
    char flag;
    do {
      flag = st.flags[j].load(cuda::std::memory_order_relaxed);
    } while (flag == kEmpty);
    __threadfence();  // the value read after the flag that announced it
    if (flag == kInclusive) {
      prefix += inclusive[j];
      break;
    }
    prefix += aggregates[j];
  }
  inclusive[tile] = prefix + total;
  __threadfence();
  st.flags[tile].store(kInclusive, cuda::std::memory_order_relaxed);
  return prefix;
}

__global__ void __launch_bounds__(kLookbackThreads, kScanBlocksPerSm)
    lookback_kernel(const int* in, int* out, int n, LookbackState st) {
  __shared__ int warp_totals[kLookbackThreads / kWarp];
  __shared__ int tile_index;
  __shared__ int tile_prefix;
  // Tiles in the order blocks start: every tile waited on has started before.
  if (threadIdx.x == 0) tile_index = atomicAdd(st.counter, 1);
  __syncthreads();
  const int tile = tile_index;
  const long long base = static_cast<long long>(tile) * kLookbackTile;
  int v[kLookbackItems];
  const TileSums sums = scan_tile<kLookbackThreads, kLookbackItems>(in, base, n, v, warp_totals);
  if (threadIdx.x == 0) tile_prefix = look_back(st, tile, sums.total);
  __syncthreads();
  store_tile(out, base, n, v, tile_prefix + sums.warp_offset);
}

// (2c) exclusive[0] = 0, exclusive[i] = inclusive[i - 1].
__global__ void shift_kernel(const int* inclusive, int* exclusive, int n) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    exclusive[i] = i == 0 ? 0 : inclusive[i - 1];
  }
}

// (3) Every kept value to its address, in another buffer.
__global__ void scatter_kernel(const int* buffer, const int* addresses, int n, int* out) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const int v = buffer[i];
    if (v != kGarbage) out[addresses[i]] = v;
  }
}

int blocks_for(long long work, int threads) {
  const long long blocks = (work + threads - 1) / threads;
  return blocks < 1 ? 1 : static_cast<int>(blocks);
}

constexpr int kThreads = 256;

}  // namespace

void build_predicate(const int* buffer, int n, int* predicate) {
  const int blocks = blocks_for(n / 4, kPredicateThreads * kPredicateSteps);
  predicate_kernel<<<blocks, kPredicateThreads>>>(buffer, n, predicate);
}

void scan_lookback(const int* in, int* out, int n, Scratch scratch) {
  const int tiles = blocks_for(n, kLookbackTile);
  const LookbackState st = lookback_state(scratch, tiles);
  cudaMemsetAsync(scratch.data, 0, kCounterBytes + flag_bytes(tiles));  // counter and flags
  lookback_kernel<<<tiles, kLookbackThreads>>>(in, out, n, st);
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
