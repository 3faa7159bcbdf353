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
// One kernel reads the keys once and counts, for all 16 digit positions, how many
// keys have each digit: where each digit's keys start in the output of every pass.
// A pass is then one kernel (a "onesweep" pass). Each block of 256 threads takes
// the next tile of 4096 keys from an atomic counter (so the tiles before it have
// started), warp w loading keys w * 512 .. w * 512 + 511 of the tile, coalesced:
//   - it ranks its keys stably by digit (ballots within a warp, running counts
//     across the warp's rounds, the warps' counts scanned in shared memory) and
//     places them in shared memory in digit order;
//   - it publishes its count of each digit and looks back over the tiles before
//     it (decoupled look-back, per digit) for how many keys of that digit they
//     hold, then publishes its inclusive count;
//   - it writes its keys out, each digit's run from the digit's start plus that
//     prefix: runs of consecutive addresses, so the writes stay coalesced.
#endif
#include "image_pipeline.cuh"
#if !LAB_SKELETON
#include <cuda/atomic>
#endif

namespace lab6 {
namespace {

#if !LAB_SKELETON
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;
constexpr int kWarpKeys = 32 * kItems;  // each warp's run of consecutive keys in a tile
constexpr int kDigits = 4;
constexpr int kPasses = 32 / 2;
constexpr int kCountBlocks = 1024;  // the counting kernel's grid at most: about one wave
static_assert(kPasses % 2 == 0, "an even number of passes ends in keys");

__host__ __device__ int tiles_for(int n) { return n <= kTile ? 1 : (n - 1) / kTile + 1; }

__device__ unsigned digit_of(unsigned key, int shift) { return (key >> shift) & 3u; }

// The warp's sum of v: one instruction from sm_80, shuffles before it (a T4, say).
__device__ __forceinline__ unsigned warp_sum(unsigned v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
#endif
}

// The scratch area, cleared by the launcher (it arrives poisoned):
//   bits[3][16]  over all keys, per digit position p: the keys with the digit's
//                low bit set, with its high bit set, with both (the counts of
//                digits 1, 2 and 3 follow, and digit 0's from n);
//   counter[16]  per pass, the next tile to take;
//   states[passes][tiles][4]  per pass, tile and digit, the look-back state.
// For n keys: 512 + 512 bytes per tile of 4096 keys for all 16 passes, well
// within scratch_bytes(n) (16 bytes per 64 keys, plus 1 MiB).
struct SortScratch {
  unsigned* bits;
  unsigned* counter;
  unsigned long long* states;
};
constexpr std::size_t kStatesOffset = 512;
std::size_t sort_scratch_bytes(int tiles, int passes) {
  return kStatesOffset + sizeof(unsigned long long) * kDigits * tiles * passes;
}
SortScratch sort_scratch(Scratch scratch) {
  char* base = static_cast<char*>(scratch.data);
  return {reinterpret_cast<unsigned*>(base), reinterpret_cast<unsigned*>(base + 256),
          reinterpret_cast<unsigned long long*>(base + kStatesOffset)};
}

// A look-back state: the flag in the high word, the count in the low word, one
// 64-bit word written and read whole, so a reader that sees the flag sees its
// count: no fence is needed. Zero (the cleared scratch) is "not yet published".
constexpr unsigned long long kAggregate = 1ull << 32;  // the tile's own count
constexpr unsigned long long kInclusive = 2ull << 32;  // the tiles up to it, included
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
// The counts of every digit position, in one read of the keys. Per key, the low
// bits of its 16 digits (key & 0x55555555), the high bits (moved down one) and
// both: each thread adds them up in bytes (4 positions to a word, positions s,
// s + 4, s + 8, s + 12 in word s), which cannot overflow within a tile of 16 keys
// per thread, then in 16-bit halves (at most 8192 keys per thread: n < 2^31 and
// kCountBlocks blocks), then in 32 bits across the warp, the block and the grid.
__global__ void count_bits_kernel(const unsigned* keys, int n, unsigned* bits) {
  __shared__ unsigned block_bits[3 * 16];
  if (threadIdx.x < 3 * 16) block_bits[threadIdx.x] = 0;
  unsigned halves[24] = {};  // word q's even bytes in 2q, its odd bytes in 2q + 1
  const int tiles = tiles_for(n);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    unsigned bytes[12] = {};  // [kind * 4 + s], kind 0: low bit, 1: high bit, 2: both
    const long long base = static_cast<long long>(tile) * kTile + threadIdx.x;
#pragma unroll
    for (int j = 0; j < kItems; ++j) {
      const long long e = base + j * kThreads;
      if (e < n) {
        const unsigned key = keys[e];
        const unsigned low = key & 0x55555555u, high = (key >> 1) & 0x55555555u;
        const unsigned kinds[3] = {low, high, low & high};
#pragma unroll
        for (int kind = 0; kind < 3; ++kind)
#pragma unroll
          for (int s = 0; s < 4; ++s) bytes[kind * 4 + s] += (kinds[kind] >> (2 * s)) & 0x01010101u;
      }
    }
#pragma unroll
    for (int q = 0; q < 12; ++q) {
      halves[2 * q] += bytes[q] & 0x00ff00ffu;
      halves[2 * q + 1] += (bytes[q] >> 8) & 0x00ff00ffu;
    }
  }
  __syncthreads();  // block_bits cleared
#pragma unroll
  for (int h = 0; h < 24; ++h) {
    const int kind = h / 8, s = (h / 2) % 4, odd = h % 2;
#pragma unroll
    for (int upper = 0; upper < 2; ++upper) {
      const unsigned sum = warp_sum((halves[h] >> (16 * upper)) & 0xffffu);
      const int byte = odd + 2 * upper;
      if (threadIdx.x % 32 == 0) atomicAdd(&block_bits[kind * 16 + 4 * byte + s], sum);
    }
  }
  __syncthreads();
  if (threadIdx.x < 3 * 16) atomicAdd(&bits[threadIdx.x], block_bits[threadIdx.x]);
}

// Where the keys of digit d start in the output of the pass at `shift`: the keys
// of smaller digits, from the counts of the low bit, the high bit and both.
__device__ unsigned digit_start(const unsigned* bits, int n, int shift, unsigned d) {
  const int p = shift / 2;
  const unsigned low = bits[p], high = bits[16 + p], both = bits[32 + p];
  const unsigned starts[kDigits] = {0, n - low - high + both, n - high, n - both};
  return d == 0 ? starts[0] : d == 1 ? starts[1] : d == 2 ? starts[2] : starts[3];
}

// Decoupled look-back for one digit by one warp: the keys of that digit in the
// tiles before `tile`. Lane i watches tile - 1 - i (32 tiles at a time, nearest
// first), waits until each has published, and the warp adds the counts up to the
// nearest inclusive one.
__device__ unsigned look_back(const unsigned long long* states, int tile, int digit) {
  const int lane = threadIdx.x % 32;
  unsigned prefix = 0;
  for (int last = tile - 1;; last -= 32) {
    const int watched = last - lane;
    unsigned long long state = kInclusive;  // before tile 0: nothing, and final
    if (watched >= 0) {
      const cuda::atomic_ref<const unsigned long long, cuda::thread_scope_device> slot(
          states[static_cast<long long>(watched) * kDigits + digit]);
      do {
        state = slot.load(cuda::memory_order_relaxed);
      } while (state == 0);
    }
    const unsigned inclusive = __ballot_sync(0xffffffffu, state >= kInclusive);
    const int stop = inclusive ? __ffs(inclusive) - 1 : 31;  // the nearest inclusive
    prefix += warp_sum(lane <= stop ? static_cast<unsigned>(state) : 0u);
    if (inclusive) return prefix;
  }
}

__device__ void publish(unsigned long long* states, int tile, int digit, unsigned long long state) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(
      states[static_cast<long long>(tile) * kDigits + digit])
      .store(state, cuda::memory_order_relaxed);
}

// One pass: out holds the keys of `in` in the order of their digit at `shift`,
// stable. bits: the counts of count_bits_kernel; counter and states: this pass's,
// cleared.
__global__ void __launch_bounds__(kThreads, 4)
    onesweep_kernel(const unsigned* in, unsigned* out, int n, int shift, const unsigned* bits,
                    unsigned* counter, unsigned long long* states) {
  __shared__ unsigned sorted[kTile];
  // warp_start[w][d]: warp w's keys of digit d, then (scanned) where they start
  // within the tile's run of digit d.
  __shared__ int warp_start[kWarps][kDigits];
  __shared__ int run_start[kDigits];  // where each digit's run starts in `sorted`
  __shared__ int tile_count[kDigits];
  __shared__ long long out_shift[kDigits];  // out index of sorted[e] = out_shift[d] + e
  __shared__ int tile_index;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned lanes_below = (1u << lane) - 1;
  if (threadIdx.x == 0) tile_index = atomicAdd(counter, 1);
  __syncthreads();
  const int tile = tile_index;
  const long long base = static_cast<long long>(tile) * kTile;
  const int tile_keys = static_cast<int>(n - base < kTile ? n - base : kTile);
  const int first = warp * kWarpKeys + lane;

  const unsigned* warp_in = in + base + first;
  unsigned key[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) key[j] = first + j * 32 < tile_keys ? warp_in[j * 32] : 0;
  // The warp's keys in order: round j, then lane. rank: the key's place among the
  // warp's keys of its digit (at most 511: two to a word).
  unsigned rank[kItems / 2];
  int count[kDigits] = {0, 0, 0, 0};  // the same in every lane
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const unsigned d = digit_of(key[j], shift);
    const unsigned valid = __ballot_sync(0xffffffffu, first + j * 32 < tile_keys);
    const unsigned low = __ballot_sync(0xffffffffu, d & 1u),
                   high = __ballot_sync(0xffffffffu, d & 2u);
    const unsigned of_digit[kDigits] = {~low & ~high & valid, low & ~high & valid,
                                        ~low & high & valid, low & high & valid};
    const unsigned mine = (d & 1u ? low : ~low) & (d & 2u ? high : ~high) & valid;
    const int before = d == 0 ? count[0] : d == 1 ? count[1] : d == 2 ? count[2] : count[3];
    const unsigned r = before + __popc(mine & lanes_below);
    if (j % 2 == 0)
      rank[j / 2] = r;
    else
      rank[j / 2] |= r << 16;
#pragma unroll
    for (int k = 0; k < kDigits; ++k) count[k] += __popc(of_digit[k]);
  }
  if (lane == 0) {
#pragma unroll
    for (int k = 0; k < kDigits; ++k) warp_start[warp][k] = count[k];
  }
  __syncthreads();
  if (warp == 0) {
    int total = 0;
    if (lane < kDigits) {
      for (int w = 0; w < kWarps; ++w) {
        const int c = warp_start[w][lane];
        warp_start[w][lane] = total;
        total += c;
      }
      // Published as soon as known, so that later tiles wait as little as possible.
      publish(states, tile, lane,
              (tile == 0 ? kInclusive : kAggregate) | static_cast<unsigned>(total));
      tile_count[lane] = total;
    }
    int inclusive = total;  // over the digits, lanes 0 .. 3
    for (int d = 1; d < kDigits; d *= 2) {
      const int other = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += other;
    }
    if (lane < kDigits) run_start[lane] = inclusive - total;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (first + j * 32 < tile_keys) {
      const unsigned d = digit_of(key[j], shift);
      const unsigned r = (rank[j / 2] >> (16 * (j % 2))) & 0xffffu;
      sorted[run_start[d] + warp_start[warp][d] + r] = key[j];
    }
  }
  // Warp d finds where the tile's keys of digit d go: the digit's start plus the
  // keys of that digit in the tiles before.
  if (warp < kDigits) {
    const unsigned prefix = tile == 0 ? 0 : look_back(states, tile, warp);
    if (lane == 0) {
      if (tile != 0) publish(states, tile, warp, kInclusive | (prefix + tile_count[warp]));
      out_shift[warp] =
          static_cast<long long>(digit_start(bits, n, shift, warp)) + prefix - run_start[warp];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const int e = j * kThreads + threadIdx.x;
    if (e < tile_keys) {
      const unsigned k = sorted[e];
      out[out_shift[digit_of(k, shift)] + e] = k;
    }
  }
}

// A pass's work after the counts: the onesweep kernel, one block per tile.
void onesweep(const unsigned* in, unsigned* out, int n, int shift, const SortScratch& s, int pass) {
  const int tiles = tiles_for(n);
  onesweep_kernel<<<tiles, kThreads>>>(in, out, n, shift, s.bits, s.counter + pass,
                                       s.states + static_cast<long long>(pass) * tiles * kDigits);
}

// Clears what the sort accumulates into (for `passes` passes) and counts the digits.
SortScratch prepare(const unsigned* keys, int n, Scratch scratch, int passes) {
  const SortScratch s = sort_scratch(scratch);
  const int tiles = tiles_for(n);
  cudaMemsetAsync(scratch.data, 0, sort_scratch_bytes(tiles, passes));
  const int blocks = tiles < kCountBlocks ? tiles : kCountBlocks;
  count_bits_kernel<<<blocks, kThreads>>>(keys, n, s.bits);
  return s;
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
  // The counts of all 16 positions, though this pass needs one: the same kernel
  // as the sort's, and the pass is timed only within the sort.
  onesweep(in, out, n, shift, prepare(in, n, scratch, 1), 0);
#endif
}

void radix_sort(unsigned* keys, int n, unsigned* temp, Scratch scratch) {
#if LAB_SKELETON
  // TODO: 16 passes of radix_pass, least significant digit first, between keys
  // and temp; the result ends in keys
#else
  // The keys are counted once, for every pass: a pass permutes them, so the
  // counts of each digit position stay the same.
  const SortScratch s = prepare(keys, n, scratch, kPasses);
  for (int pass = 0; pass < kPasses; ++pass) {
    const bool from_keys = pass % 2 == 0;
    onesweep(from_keys ? keys : temp, from_keys ? temp : keys, n, 2 * pass, s, pass);
  }
#endif
}

}  // namespace lab6
