// lab6 reference only: the best radix sort, beside the course's 2 bits per pass
// (sort_kernels.cu). Not in the contract and not an exercise: the reference's own
// test (tests/reference_test.cpp) declares it and measures it against CUB, and it
// lives outside the master files, so no skeleton has it. CUB's one-sweep design
// with 8-bit digits, 4 passes. One kernel counts the keys' digits for all 4
// positions; then, per pass, a block of 512 threads takes the next tile of 8192
// keys from an atomic counter and:
//   - loads them warp-striped (warp w's run of 512 consecutive keys, lane l holding
//     keys l, l + 32, ...: coalesced, and in the keys' order, which keeps it stable);
//   - counts each warp's digits in shared memory, and per digit (one thread each)
//     offsets the warps, publishes the tile's count to the look-back and scans the
//     counts with the digits' global starts in one 64-bit block scan;
//   - ranks each key within its warp (8 ballots find the lanes with its digit, the
//     lowest of them bumps the warp's count) and places it in shared memory in
//     digit order;
//   - looks back per digit, thread d over the tiles before it (a 32-bit word per
//     tile and digit, the flag in its 2 high bits), and publishes its inclusive count;
//   - writes the tile out: each digit's run to consecutive addresses.
// The look-back words of pass p + 1 are cleared during pass p (each block its own
// tile's), in a second region of the scratch, where the scratch holds two.
#include "image_pipeline.cuh"

namespace lab6 {

void radix_sort_best(unsigned* keys, int n, unsigned* temp, Scratch scratch);

namespace {
namespace byte_digits {

constexpr int kRadix = 256;
constexpr int kPasses = 4;
constexpr int kThreads = 512;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;
constexpr int kWarps = kThreads / 32;
constexpr int kBlocksPerSm = 3;
constexpr int kCountThreads = 512;
constexpr int kCountBlocksPerSm = 4;
constexpr unsigned kAggregate = 1u << 30;
constexpr unsigned kInclusive = 2u << 30;
constexpr unsigned kCountMask = (1u << 30) - 1;
// The scratch: the 4 passes' tile counters, the 4 x 256 digit counts, then the
// look-back words (tiles x 256 per region).
constexpr std::size_t kCountsOffset = 4096;
constexpr std::size_t kStatesOffset = 8192;
constexpr std::size_t kDynamicShared = (kTile + kWarps * kRadix) * sizeof(unsigned);

__device__ unsigned digit(unsigned key, int shift) { return (key >> shift) & 0xffu; }

__device__ void count_key(unsigned* counts, unsigned k) {
  atomicAdd(&counts[k & 0xffu], 1u);
  atomicAdd(&counts[256 + ((k >> 8) & 0xffu)], 1u);
  atomicAdd(&counts[512 + ((k >> 16) & 0xffu)], 1u);
  atomicAdd(&counts[768 + (k >> 24)], 1u);
}

// The digit counts of all 4 positions (16-byte loads where aligned), added to
// `global_counts`; the grid also clears `clear` (the first look-back region).
__global__ void __launch_bounds__(kCountThreads)
    count_kernel(const unsigned* __restrict__ keys, int n, unsigned* global_counts, uint4* clear,
                 long long clear_quads) {
  __shared__ unsigned counts[kPasses * kRadix];
  for (int i = threadIdx.x; i < kPasses * kRadix; i += kCountThreads) counts[i] = 0;
  __syncthreads();
  const long long first = static_cast<long long>(blockIdx.x) * kCountThreads + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * kCountThreads;
  long long done = 0;
  if (reinterpret_cast<unsigned long long>(keys) % 16 == 0) {
    const long long quads = n / 4;
    const uint4* keys4 = reinterpret_cast<const uint4*>(keys);
    for (long long i = first; i < quads; i += stride) {
      const uint4 q = __ldg(keys4 + i);
      count_key(counts, q.x);
      count_key(counts, q.y);
      count_key(counts, q.z);
      count_key(counts, q.w);
    }
    done = quads * 4;
  }
  for (long long i = done + first; i < n; i += stride) count_key(counts, keys[i]);
  for (long long i = first; i < clear_quads; i += stride) clear[i] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  for (int i = threadIdx.x; i < kPasses * kRadix; i += kCountThreads)
    if (counts[i] != 0) atomicAdd(&global_counts[i], counts[i]);
}

__device__ void publish(unsigned* word, unsigned value) {
  *static_cast<volatile unsigned*>(word) = value;
}
__device__ unsigned read_word(const unsigned* word) {
  return *static_cast<const volatile unsigned*>(word);
}

// One pass: `counts` are this pass's 256 digit counts over all keys.
__global__ void __launch_bounds__(kThreads, kBlocksPerSm)
    pass_kernel(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n, int shift,
                const unsigned* __restrict__ counts, unsigned* counter, unsigned* states,
                unsigned* clear_next, bool huge) {
  extern __shared__ unsigned dynamic_shared[];
  unsigned* sorted = dynamic_shared;               // the tile's keys, in digit order
  unsigned* warp_counts = dynamic_shared + kTile;  // [kWarps][kRadix]
  __shared__ unsigned long long warp_sums[kRadix / 32];
  __shared__ unsigned out_base[kRadix];  // key e of `sorted` goes to out[out_base[d] + e]
  __shared__ unsigned prefixes[kRadix];
  __shared__ int tile_index;

  // & and >>, not % and /, on the signed index: with them ptxas spills under the
  // 40-register cap of three blocks of 512 threads per SM.
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  for (int i = t; i < kWarps * kRadix; i += kThreads) warp_counts[i] = 0;
  if (t == 0) tile_index = static_cast<int>(atomicAdd(counter, 1u));
  __syncthreads();
  const int tile = tile_index;
  const long long tile_base = static_cast<long long>(tile) * kTile;
  const int tile_keys = static_cast<int>(min(static_cast<long long>(kTile), n - tile_base));
  unsigned* my_states = states + static_cast<long long>(tile) * kRadix;
  if (clear_next != nullptr && t < kRadix)
    clear_next[static_cast<long long>(tile) * kRadix + t] = 0;

  const int first = warp * 32 * kItems + lane;  // this lane's first key in the tile
  const unsigned* src = in + tile_base + first;
  unsigned key[kItems];
  if (tile_keys == kTile) {
#pragma unroll
    for (int j = 0; j < kItems; ++j) key[j] = src[j * 32];
  } else {
#pragma unroll
    for (int j = 0; j < kItems; ++j) key[j] = first + j * 32 < tile_keys ? src[j * 32] : 0u;
  }
  unsigned* my_counts = warp_counts + warp * kRadix;
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    if (first + j * 32 < tile_keys) atomicAdd(&my_counts[digit(key[j], shift)], 1u);
  __syncthreads();

  // Per digit: the warps' offsets, the tile's count published, and one block scan
  // of (global count << 32 | tile count) giving the global and the tile starts.
  unsigned tile_count = 0;
  unsigned long long pair = 0, scanned = 0;
  if (t < kRadix) {
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const unsigned c = warp_counts[w * kRadix + t];
      warp_counts[w * kRadix + t] = tile_count;
      tile_count += c;
    }
    publish(my_states + t, (tile == 0 ? kInclusive : kAggregate) | tile_count);
    pair = static_cast<unsigned long long>(counts[t]) << 32 | tile_count;
    scanned = pair;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const unsigned long long other = __shfl_up_sync(0xffffffffu, scanned, d);
      if (lane >= d) scanned += other;
    }
    if (lane == 31) warp_sums[warp] = scanned;
  }
  __syncthreads();
  unsigned tile_start = 0, global_start = 0;
  if (t < kRadix) {
    unsigned long long exclusive = scanned - pair;
#pragma unroll
    for (int w = 0; w < kRadix / 32; ++w) exclusive += w < warp ? warp_sums[w] : 0ull;
    tile_start = static_cast<unsigned>(exclusive);
    global_start = static_cast<unsigned>(exclusive >> 32);
#pragma unroll
    for (int w = 0; w < kWarps; ++w) warp_counts[w * kRadix + t] += tile_start;
  }
  __syncthreads();

  // Rank each key among its warp's keys of the same digit, in order, and place it.
  const unsigned below = (1u << lane) - 1u;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const bool valid = first + j * 32 < tile_keys;
    const unsigned d = digit(key[j], shift);
    unsigned peers = __ballot_sync(0xffffffffu, valid);
#pragma unroll
    for (int b = 0; b < 8; ++b) {
      const bool bit = (d >> b) & 1u;
      const unsigned m = __ballot_sync(0xffffffffu, bit);
      peers &= bit ? m : ~m;
    }
    const int leader = __ffs(peers) - 1;  // unused by invalid lanes
    unsigned base = 0;
    if (valid && lane == leader) {
      base = my_counts[d];
      my_counts[d] = base + __popc(peers);
    }
    base = __shfl_sync(0xffffffffu, base, leader & 31);
    if (valid) sorted[base + __popc(peers & below)] = key[j];
    __syncwarp();
  }

  // Look back, one thread per digit, over the tiles before this one.
  if (t < kRadix) {
    unsigned prefix = 0;
    if (tile > 0) {
      const unsigned* word = my_states - kRadix + t;
      for (;;) {
        const unsigned state = read_word(word);
        if (state == 0) continue;  // not published yet
        prefix = (prefix + (state & kCountMask)) & kCountMask;
        if (state & kInclusive) break;
        word -= kRadix;
      }
      publish(my_states + t, kInclusive | ((prefix + tile_count) & kCountMask));
    }
    prefixes[t] = prefix;
    out_base[t] = global_start + prefix - tile_start;
  }
  if (huge) {         // n >= 2^30: one digit may hold 2^30 keys or more; its prefix is
    __syncthreads();  // what the tiles before hold that the other digits do not
    if (t < kRadix && counts[t] > kCountMask) {
      unsigned others = 0;
      for (int d = 0; d < kRadix; ++d) others += d == t ? 0u : prefixes[d];
      out_base[t] = global_start + (static_cast<unsigned>(tile_base) - others) - tile_start;
    }
  }
  __syncthreads();
#pragma unroll 4
  for (int i = 0; i < kItems; ++i) {
    const int e = i * kThreads + t;
    if (e < tile_keys) {
      const unsigned k = sorted[e];
      out[out_base[digit(k, shift)] + static_cast<unsigned>(e)] = k;
    }
  }
}

int sm_count() {
  static const int count = [] {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms > 0 ? sms : 1;
  }();
  return count;
}

void sort(unsigned* keys, int n, unsigned* temp, Scratch scratch) {
  if (n <= 1) return;
  static const bool shared_set = [] {  // the tile and the warps' counts: 64 KiB
    cudaFuncSetAttribute(pass_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         static_cast<int>(kDynamicShared));
    return true;
  }();
  (void)shared_set;
  const long long tiles = (static_cast<long long>(n) + kTile - 1) / kTile;
  const std::size_t region = static_cast<std::size_t>(tiles) * kRadix * sizeof(unsigned);
  char* base = static_cast<char*>(scratch.data);
  unsigned* counters = reinterpret_cast<unsigned*>(base);
  unsigned* counts = reinterpret_cast<unsigned*>(base + kCountsOffset);
  unsigned* regions[2] = {reinterpret_cast<unsigned*>(base + kStatesOffset),
                          reinterpret_cast<unsigned*>(base + kStatesOffset + region)};
  const bool two = kStatesOffset + 2 * region <= scratch.bytes;
  cudaMemsetAsync(base, 0, kStatesOffset);
  const long long wanted =
      (static_cast<long long>(n) + kCountThreads * 16 - 1) / (kCountThreads * 16);
  const long long most = static_cast<long long>(sm_count()) * kCountBlocksPerSm;
  count_kernel<<<static_cast<int>(wanted < most ? wanted : most), kCountThreads>>>(
      keys, n, counts, reinterpret_cast<uint4*>(regions[0]),
      two ? static_cast<long long>(region / sizeof(uint4)) : 0);
  for (int pass = 0; pass < kPasses; ++pass) {
    unsigned* states = two ? regions[pass % 2] : regions[0];
    if (!two) cudaMemsetAsync(states, 0, region);
    unsigned* clear_next = two && pass + 1 < kPasses ? regions[(pass + 1) % 2] : nullptr;
    pass_kernel<<<static_cast<unsigned>(tiles), kThreads, kDynamicShared>>>(
        pass % 2 == 0 ? keys : temp, pass % 2 == 0 ? temp : keys, n, 8 * pass,
        counts + pass * kRadix, counters + pass, states, clear_next,
        n > static_cast<int>(kCountMask));
  }
}
}  // namespace byte_digits
}  // namespace

void radix_sort_best(unsigned* keys, int n, unsigned* temp, Scratch scratch) {
  byte_digits::sort(keys, n, temp, scratch);
}

}  // namespace lab6
