#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab6 steps 1-3: the compaction. Read labs/lab6_image_pipeline/README.md and the
// contract labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the kernels and their launchers, except the three-kernel scan's
// launcher, which the lab fixes (image_pipeline_launchers.cuh, included at the
// end): you write the two kernels it launches and choose its two constants.
// Every launcher follows the contract's rules. Put your helpers in the anonymous
// namespace below.
#else
// lab6 reference solution, steps 1-3: the predicate, the two inclusive scans and
// the shift, the scatter.
//
// The look-back scan keeps its tile in registers (its kernel says how). The
// three-kernel scan's tile scan: 256 threads load a tile of 8192 ints with
// coalesced 16-byte loads into shared memory, each thread scans 32 consecutive
// ones in registers, and warps scan the threads' totals, then the warps' totals,
// with shuffles. Shared memory holds one padding int per 32, so that both the
// coalesced (striped) writes and each thread's 32 consecutive reads hit 32
// different banks. The tiles are read and written once: streaming loads and
// stores (__ldcs, __stcs) keep them from evicting what L2 must keep, the
// look-back's states.
#endif
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

#if LAB_SKELETON
// The three-kernel scan's shape, used by its launcher: threads per block and
// elements per tile (at least 256). Change them as your kernels need.
constexpr int kThreeKernelThreads = 256;
constexpr int kThreeKernelTile = 256;
// The blocks per SM the compiler leaves registers for in the scan kernels
// (__launch_bounds__): raise it when `nvcc -Xptxas -v` shows that registers
// limit how many blocks an SM holds.
constexpr int kScanBlocksPerSm = 1;
#else
constexpr int kThreads = 256;
constexpr int kItems = 32;  // per thread: the tile's 8192 ints in 32 registers each
constexpr int kTile = kThreads * kItems;
constexpr int kWarps = kThreads / 32;
// The scan kernels' blocks per SM: their registers capped for three, not two (the
// scans are memory-bound: more tiles in flight).
constexpr int kScanBlocksPerSm = 3;
constexpr int kThreeKernelThreads = kThreads;
constexpr int kThreeKernelTile = kTile;
// Blocks of the element-wise kernels: each thread takes 4 loads of 16 bytes.
constexpr int kMapThreads = 256;
constexpr int kMapItems = 16;
#endif

#if !LAB_SKELETON
// Enough blocks for `per_block` elements each, at least one.
int blocks_for(long long n, long long per_block) {
  const long long blocks = (n + per_block - 1) / per_block;
  return static_cast<int>(blocks > 0 ? blocks : 1);
}

__device__ long long global_thread() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ long long grid_threads() { return static_cast<long long>(gridDim.x) * blockDim.x; }
#endif

#if LAB_SKELETON
// (1) predicate[i] = (buffer[i] != kGarbage) for every i < n. Start with one element
// per thread, then try a grid-stride loop over several elements per thread with a
// grid that many times smaller (the course's report: four), and 16-byte loads (int4).
#else
// (1) A grid-stride loop over int4s (four elements per 16-byte load), the grid
// sized for four of them per thread; the last n % 4 elements one by one.
#endif
__global__ void predicate_kernel(const int* buffer, int n, int* predicate) {
#if LAB_SKELETON
  // TODO
#else
  const long long quads = n / 4;
  const int4* in = reinterpret_cast<const int4*>(buffer);
  int4* out = reinterpret_cast<int4*>(predicate);
  for (long long q = global_thread(); q < quads; q += grid_threads()) {
    const int4 v = in[q];
    out[q] = make_int4(v.x != kGarbage, v.y != kGarbage, v.z != kGarbage, v.w != kGarbage);
  }
  const long long i = quads * 4 + global_thread();
  if (i < n) predicate[i] = buffer[i] != kGarbage;
#endif
}

#if !LAB_SKELETON
// ---- The tile scan both scans share -------------------------------------------

// Where element e of the tile lives in shared memory: one padding int per 32.
__device__ __forceinline__ int padded(int e) { return e + e / 32; }

// Loads tile `tile` of `in` (0 past n) into shared memory, coalesced: 16-byte
// loads where the four elements lie below n, single ones at the end.
__device__ void load_tile(const int* in, long long n, long long tile, int* shared) {
  const long long base = tile * kTile;
  const int4* in4 = reinterpret_cast<const int4*>(in + base);
#pragma unroll
  for (int j = 0; j < kItems / 4; ++j) {
    const int q = j * kThreads + threadIdx.x;  // the tile's q-th int4
    const long long e = base + 4LL * q;
    int4 v;
    if (e + 3 < n) {
      v = __ldcs(in4 + q);
    } else {
      v.x = e < n ? in[e] : 0;
      v.y = e + 1 < n ? in[e + 1] : 0;
      v.z = e + 2 < n ? in[e + 2] : 0;
      v.w = 0;
    }
    const int at = padded(4 * q);  // the four share one group of 32: consecutive slots
    shared[at] = v.x;
    shared[at + 1] = v.y;
    shared[at + 2] = v.z;
    shared[at + 3] = v.w;
  }
  __syncthreads();
}

// Stores the tile from shared memory to `out`, coalesced, each element plus `add`.
__device__ void store_tile(const int* shared, int add, int* out, long long n, long long tile) {
  const long long base = tile * kTile;
  int4* out4 = reinterpret_cast<int4*>(out + base);
#pragma unroll
  for (int j = 0; j < kItems / 4; ++j) {
    const int q = j * kThreads + threadIdx.x;
    const long long e = base + 4LL * q;
    const int at = padded(4 * q);
    const int4 v = make_int4(shared[at] + add, shared[at + 1] + add, shared[at + 2] + add,
                             shared[at + 3] + add);
    if (e + 3 < n) {
      __stcs(out4 + q, v);
    } else {
      if (e < n) out[e] = v.x;
      if (e + 1 < n) out[e + 1] = v.y;
      if (e + 2 < n) out[e + 2] = v.z;
    }
  }
}

// The tile scan, in registers: thread t's kItems elements of the tile in shared
// memory (t * kItems on), scanned inclusively within the tile once `before` is
// added to each. Returns the tile's total to every thread. `warp_sums` holds
// kWarps ints.
__device__ int scan_tile(const int* shared, int* warp_sums, int (&items)[kItems], int* before) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int sum = 0;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    sum += shared[padded(threadIdx.x * kItems + k)];
    items[k] = sum;
  }
  // The warp's inclusive scan of the threads' totals.
  int inclusive = sum;
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int other = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += other;
  }
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  // Every warp scans the warps' totals: no second barrier.
  const int mine = lane < kWarps ? warp_sums[lane] : 0;
  int scanned = mine;
#pragma unroll
  for (int d = 1; d < kWarps; d *= 2) {
    const int other = __shfl_up_sync(0xffffffffu, scanned, d);
    if (lane >= d) scanned += other;
  }
  *before = __shfl_sync(0xffffffffu, scanned - mine, warp) + inclusive - sum;
  return __shfl_sync(0xffffffffu, scanned, kWarps - 1);
}

// Writes thread t's scanned elements back where they came from, `before` added.
// Only t reads those places: no barrier between scan_tile and this.
__device__ void write_items(int* shared, const int (&items)[kItems], int before) {
#pragma unroll
  for (int k = 0; k < kItems; ++k) shared[padded(threadIdx.x * kItems + k)] = items[k] + before;
}

constexpr int kSharedInts = kTile + kTile / 32;
#endif

#if LAB_SKELETON
// (2a) The three-kernel scan's first and third kernels (the launcher is fixed,
// image_pipeline_launchers.cuh: read it). Block b scans tile b of
// kThreeKernelTile elements inclusively into out (0 past n) and, when tile_totals
// is not null, writes the tile's total to tile_totals[b]. Start with a simple
// block scan in shared memory (Hillis-Steele or Blelloch, one element per
// thread, kThreeKernelTile == kThreeKernelThreads); then several elements per
// thread.
#else
// (2a) Kernel 1: each block scans its tile; the totals go to tile_totals.
#endif
__global__ void __launch_bounds__(kThreeKernelThreads, kScanBlocksPerSm)
    scan_tile_kernel(const int* in, int* out, int n, int* tile_totals) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ int shared[kSharedInts];
  __shared__ int warp_sums[kWarps];
  load_tile(in, n, blockIdx.x, shared);
  int items[kItems], before = 0;
  const int total = scan_tile(shared, warp_sums, items, &before);
  write_items(shared, items, before);
  __syncthreads();
  store_tile(shared, 0, out, n, blockIdx.x);
  if (tile_totals != nullptr && threadIdx.x == 0) tile_totals[blockIdx.x] = total;
#endif
}

#if LAB_SKELETON
// (2a) The third kernel: block b > 0 adds scanned_totals[b - 1] to every element
// of its tile of out (below n).
#else
// (2a) Kernel 3: tile b adds the scanned total of the tiles before it.
#endif
__global__ void add_tile_prefix_kernel(int* out, int n, const int* scanned_totals) {
#if LAB_SKELETON
  // TODO
#else
  if (blockIdx.x == 0) return;
  const int add = scanned_totals[blockIdx.x - 1];
  const long long base = static_cast<long long>(blockIdx.x) * kTile;
  int4* out4 = reinterpret_cast<int4*>(out + base);
#pragma unroll
  for (int j = 0; j < kItems / 4; ++j) {
    const int q = j * kThreads + threadIdx.x;
    const long long e = base + 4LL * q;
    if (e + 3 < n) {
      int4 v = out4[q];
      v.x += add, v.y += add, v.z += add, v.w += add;
      out4[q] = v;
    } else {
      for (long long k = e; k < n && k < e + 4; ++k) out[k] += add;
    }
  }
#endif
}

#if LAB_SKELETON
// (2b) The single-pass scan with decoupled look-back. In `scratch` (poisoned:
// clear what must start at zero with cudaMemsetAsync in the launcher, before the
// kernel): a tile counter, and per tile a flag and two values (its aggregate, its
// inclusive prefix). Each block:
//   - takes its tile index from atomicAdd on the counter (blockIdx.x gives no
//     order in which blocks start: waiting on a block that has not started hangs);
//   - scans its tile, publishes its aggregate (flag 1; tile 0 publishes its
//     inclusive prefix at once, flag 2);
//   - looks back at the tiles before it, adding aggregates until it meets an
//     inclusive prefix, waiting on tiles whose flag is still 0;
//   - publishes its own inclusive prefix (flag 2) and writes its tile plus the
//     prefix of the tiles before it.
// A value must be visible to other blocks before its flag: __threadfence()
// between writing a value and its flag, and between reading a flag and its
// value; flags and values read while other blocks write them are `volatile`.
// Then make it fast enough for the timing bar: the fences cost time, and a flag
// and its value packed in one 64-bit word, written with one store and read with
// one load, need none (the README's question 4).
#else
// (2b) A tile's look-back state is one 64-bit word, its flag in the high half
// and the value the flag names in the low half. One store publishes both and one
// load reads both, so no block sees a flag with a value older than it, and no
// fence is needed. (With the flag and the value in two words, __threadfence()
// must order the two writes and the two reads, and the fences cost time: the
// README's figures.)
constexpr int kNotReady = 0, kAggregate = 1, kPrefix = 2;

// The look-back kernel's own tile, held in registers, not shared memory: 128
// threads of 24 ints each (six 16-byte loads), so that eight blocks fit an SM and
// many tiles are in flight while the look-back waits (tuned on the H100:
// 128 x 24 with 8 blocks per SM beat 256 x 16, 256 x 24 and 256 x 32).
constexpr int kLookbackThreads = 128;
constexpr int kLookbackItems = 24;
constexpr int kLookbackBlocksPerSm = 8;
constexpr int kLookbackWarps = kLookbackThreads / 32;
constexpr int kLookbackQuads = kLookbackItems / 4;  // int4s per thread
constexpr int kLookbackTile = kLookbackThreads * kLookbackItems;

struct LookbackState {
  int* counter;                // the next tile index to hand out
  unsigned long long* states;  // per tile: flag << 32 | value
};

// The scratch's layout: the counter, then the states, both cleared before the kernel.
LookbackState lookback_state(Scratch scratch, int tiles, std::size_t* cleared_bytes) {
  int* base = static_cast<int*>(scratch.data);
  *cleared_bytes = 64 * sizeof(int) + static_cast<std::size_t>(tiles) * sizeof(unsigned long long);
  return {base, reinterpret_cast<unsigned long long*>(base + 64)};
}

__device__ void publish(const LookbackState& s, int tile, int flag, int value) {
  const unsigned long long state =
      static_cast<unsigned long long>(flag) << 32 | static_cast<unsigned>(value);
  *static_cast<volatile unsigned long long*>(s.states + tile) = state;
}

__device__ unsigned long long read_state(const LookbackState& s, int tile) {
  return *static_cast<volatile unsigned long long*>(s.states + tile);
}

// The first warp's look-back for `tile` > 0: lane l watches tile - 1 - l, 32 tiles
// at a time, nearest first, and the warp waits only on the tiles up to the nearest
// one that holds a prefix. Returns the sum of every tile before `tile`.
__device__ int look_back(const LookbackState& s, int tile) {
  const int lane = threadIdx.x % 32;
  int prefix = 0;
  for (int window = tile - 1;; window -= 32) {
    const int mine = window - lane;
    // Past tile 0: a prefix of 0 (tile 0 stops the walk first).
    const unsigned long long past = static_cast<unsigned long long>(kPrefix) << 32;
    unsigned long long state = mine >= 0 ? read_state(s, mine) : past;
    unsigned prefixes;
    for (;;) {
      const unsigned ready = __ballot_sync(0xffffffffu, (state >> 32) != kNotReady);
      prefixes = __ballot_sync(0xffffffffu, (state >> 32) == kPrefix);
      // Lanes up to the nearest prefix (all 32 without one) must have published.
      const unsigned needed = prefixes ? (2u << (__ffs(prefixes) - 1)) - 1u : 0xffffffffu;
      if ((ready & needed) == needed) break;
      if ((state >> 32) == kNotReady) state = read_state(s, mine);
    }
    const int stop = prefixes ? __ffs(prefixes) - 1 : 31;
    int sum = lane <= stop ? static_cast<int>(static_cast<unsigned>(state)) : 0;
#pragma unroll
    for (int d = 16; d > 0; d /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, d);
    prefix += sum;
    if (prefixes) return prefix;
  }
}
#endif

#if LAB_SKELETON
// (2b) Your look-back scan kernel (the state's layout in `scratch` is yours).
__global__ void lookback_kernel(const int* in, int* out, int n) {
  // TODO
}
#else
// (2b) The single-pass kernel: one tile per block, in the order the blocks start.
// Warp w scans its run of 32 x kLookbackItems consecutive ints in registers: lane l
// holds the int4s l, l + 32, ..., each a chunk of 128 ints across the warp. Each
// lane scans its four, each chunk is scanned across the warp with shuffles (the
// chunks independently: their shuffles overlap), and the chunks' totals carry
// from one to the next. The warps' totals meet in shared memory; the first warp
// looks back, and every thread adds the prefix to its registers and stores them.
__global__ void __launch_bounds__(kLookbackThreads, kLookbackBlocksPerSm)
    lookback_kernel(const int* in, int* out, int n, LookbackState s) {
  __shared__ int tile_index, tile_prefix;
  __shared__ int warp_totals[kLookbackWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) tile_index = atomicAdd(s.counter, 1);
  __syncthreads();
  const int tile = tile_index;
  const long long run = static_cast<long long>(tile) * kLookbackTile + warp * 32LL * kLookbackItems;
  // 16-byte loads need in and out aligned to 16 bytes and the whole run below n.
  const bool whole =
      run + 32LL * kLookbackItems <= n &&
      (reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) % 16 ==
          0;
  int4 v[kLookbackQuads];
#pragma unroll
  for (int j = 0; j < kLookbackQuads; ++j) {
    const long long e = run + 4LL * (j * 32 + lane);
    if (whole) {
      v[j] = __ldcs(reinterpret_cast<const int4*>(in + e));
    } else {
      v[j] = make_int4(e < n ? in[e] : 0, e + 1 < n ? in[e + 1] : 0, e + 2 < n ? in[e + 2] : 0,
                       e + 3 < n ? in[e + 3] : 0);
    }
  }
  int chunk[kLookbackQuads];  // per chunk, the lane's inclusive sum across the warp
#pragma unroll
  for (int j = 0; j < kLookbackQuads; ++j) {
    v[j].y += v[j].x;
    v[j].z += v[j].y;
    v[j].w += v[j].z;
    chunk[j] = v[j].w;
  }
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
#pragma unroll
    for (int j = 0; j < kLookbackQuads; ++j) {
      const int other = __shfl_up_sync(0xffffffffu, chunk[j], d);
      if (lane >= d) chunk[j] += other;
    }
  }
  int carried = 0;  // the totals of the warp's chunks before chunk j
#pragma unroll
  for (int j = 0; j < kLookbackQuads; ++j) {
    const int add = carried + chunk[j] - v[j].w;
    v[j].x += add, v[j].y += add, v[j].z += add, v[j].w += add;
    carried += __shfl_sync(0xffffffffu, chunk[j], 31);
  }
  if (lane == 0) warp_totals[warp] = carried;
  __syncthreads();
  int before = 0, total = 0;  // the warps before this one, the whole tile
#pragma unroll
  for (int w = 0; w < kLookbackWarps; ++w) {
    before += w < warp ? warp_totals[w] : 0;
    total += warp_totals[w];
  }
  if (warp == 0) {
    int prefix = 0;
    if (tile == 0) {
      if (lane == 0) publish(s, tile, kPrefix, total);
    } else {
      if (lane == 0) publish(s, tile, kAggregate, total);
      prefix = look_back(s, tile);
      if (lane == 0) publish(s, tile, kPrefix, prefix + total);
    }
    if (lane == 0) tile_prefix = prefix;
  }
  __syncthreads();
  const int add = tile_prefix + before;
#pragma unroll
  for (int j = 0; j < kLookbackQuads; ++j) {
    const long long e = run + 4LL * (j * 32 + lane);
    const int4 w = make_int4(v[j].x + add, v[j].y + add, v[j].z + add, v[j].w + add);
    if (whole) {
      __stcs(reinterpret_cast<int4*>(out + e), w);
    } else {
      if (e < n) out[e] = w.x;
      if (e + 1 < n) out[e + 1] = w.y;
      if (e + 2 < n) out[e + 2] = w.z;
      if (e + 3 < n) out[e + 3] = w.w;
    }
  }
}
#endif

#if LAB_SKELETON
// (2c) exclusive[0] = 0, exclusive[i] = inclusive[i - 1].
#else
// (2c) The shift: a grid-stride copy one element to the right.
#endif
__global__ void shift_kernel(const int* inclusive, int* exclusive, int n) {
#if LAB_SKELETON
  // TODO
#else
  for (long long i = global_thread(); i < n; i += grid_threads()) {
    exclusive[i] = i == 0 ? 0 : inclusive[i - 1];
  }
#endif
}

#if LAB_SKELETON
// (3) For every i < n whose buffer[i] is not kGarbage: out[addresses[i]] = buffer[i].
#else
// (3) The scatter: each kept element to its address; reads coalesced, writes
// coalesced within runs of kept elements.
#endif
__global__ void scatter_kernel(const int* buffer, const int* addresses, int n, int* out) {
#if LAB_SKELETON
  // TODO
#else
  for (long long i = global_thread(); i < n; i += grid_threads()) {
    const int v = buffer[i];
    if (v != kGarbage) out[addresses[i]] = v;
  }
#endif
}

}  // namespace

void build_predicate(const int* buffer, int n, int* predicate) {
#if LAB_SKELETON
  predicate_kernel<<<1, 256>>>(buffer, n, predicate);  // TODO: your grid
#else
  predicate_kernel<<<blocks_for(n, kMapThreads * kMapItems), kMapThreads>>>(buffer, n, predicate);
#endif
}

void scan_lookback(const int* in, int* out, int n, Scratch scratch) {
#if LAB_SKELETON
  // TODO: clear your state in scratch (cudaMemsetAsync) and hand it to the kernel
  lookback_kernel<<<1, 256>>>(in, out, n);  // TODO: one block per tile
#else
  const int tiles = blocks_for(n, kLookbackTile);
  std::size_t cleared = 0;
  const LookbackState s = lookback_state(scratch, tiles, &cleared);
  cudaMemsetAsync(scratch.data, 0, cleared);
  lookback_kernel<<<tiles, kLookbackThreads>>>(in, out, n, s);
#endif
}

void shift_exclusive(const int* inclusive, int* exclusive, int n) {
#if LAB_SKELETON
  shift_kernel<<<1, 256>>>(inclusive, exclusive, n);  // TODO: your grid
#else
  shift_kernel<<<blocks_for(n, kMapThreads * kMapItems), kMapThreads>>>(inclusive, exclusive, n);
#endif
}

void scatter(const int* buffer, const int* addresses, int n, int* out) {
#if LAB_SKELETON
  scatter_kernel<<<1, 256>>>(buffer, addresses, n, out);  // TODO: your grid
#else
  scatter_kernel<<<blocks_for(n, kMapThreads * kMapItems), kMapThreads>>>(buffer, addresses, n,
                                                                          out);
#endif
}

}  // namespace lab6

// The three-kernel scan's launcher, fixed by the lab: it launches scan_tile_kernel
// and add_tile_prefix_kernel.
#include "image_pipeline_launchers.cuh"
