#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab1: your histogram kernels. Read labs/lab1_histogram/README.md and the
// contract labs/lab1_histogram/histogram.cuh first.
//
// Every launcher must (1) zero `hist` (it arrives full of garbage), then
// (2) launch its kernel with launch.blocks blocks of launch.threads threads.
// Don't synchronize or allocate: the harness does that. Every kernel must work
// for any n >= 1: the grid may cover more samples than n, so check bounds.
#else
// lab1 reference solution: every histogram variant of the exercise.
#endif
#include "histogram.cuh"

namespace lab1 {
namespace {

#if !LAB_SKELETON
void zero(int* hist) { cudaMemsetAsync(hist, 0, kBins * sizeof(int)); }

// First sample of thread `tid`'s slice; 64-bit because blocks*threads*slice may
// exceed 2^31 when the grid is larger than needed.
__device__ long long slice_start(int slice) {
  return (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * slice;
}
#endif

#if LAB_SKELETON
// (a) Thread number tid = blockIdx.x * blockDim.x + threadIdx.x handles the samples
// [tid * slice, (tid + 1) * slice) and counts each with atomicAdd(h + t[i], 1).
// Hint: compute positions in 64-bit (long long) and stop at n.
#else
// (a) The course's kernel, with the bound check that makes any n work.
#endif
__global__ void global_kernel(const int* t, int n, int* h, int slice) {
#if LAB_SKELETON
  // TODO
#else
  const long long pos = slice_start(slice);
  const long long end = min(pos + slice, static_cast<long long>(n));
  for (long long i = pos; i < end; i++) atomicAdd(h + t[i], 1);
#endif
}

#if LAB_SKELETON
// (b) The same loop, preceded by `#pragma unroll <factor>`. Compare the SASS
// (cuobjdump -sass) and the time with (a): what did unrolling change?
#else
// (b) Unrolling removes the loop's compare-and-branch, but every iteration is an
// atomic on global memory: the atomics, not the loop, set the time.
#endif
__global__ void global_unroll_kernel(const int* t, int n, int* h, int slice) {
#if LAB_SKELETON
  // TODO
#else
  const long long pos = slice_start(slice);
  const long long end = min(pos + slice, static_cast<long long>(n));
#pragma unroll 16
  for (long long i = pos; i < end; i++) atomicAdd(h + t[i], 1);
#endif
}

#if LAB_SKELETON
// (c) The same loop unrolled by hand: four loads and four atomicAdds per iteration,
// then a loop for the samples left over when slice is not a multiple of 4.
#else
// (c) Four independent loads and atomics per iteration (ILP), then the tail.
#endif
__global__ void global_ilp4_kernel(const int* t, int n, int* h, int slice) {
#if LAB_SKELETON
  // TODO
#else
  const long long pos = slice_start(slice);
  const long long end = min(pos + slice, static_cast<long long>(n));
  long long i = pos;
  for (; i + 3 < end; i += 4) {
    const int a = t[i], b = t[i + 1], c = t[i + 2], d = t[i + 3];
    atomicAdd(h + a, 1);
    atomicAdd(h + b, 1);
    atomicAdd(h + c, 1);
    atomicAdd(h + d, 1);
  }
  for (; i < end; i++) atomicAdd(h + t[i], 1);
#endif
}

#if LAB_SKELETON
// (d) One sample per thread: if (tid < n) atomicAdd(h + t[tid], 1).
#else
// (d) One sample per thread: neighbouring threads read neighbouring samples, so
// loads coalesce, but there is still one global atomic per sample.
#endif
__global__ void one_per_thread_kernel(const int* t, int n, int* h) {
#if LAB_SKELETON
  // TODO
#else
  const long long pos = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (pos < n) atomicAdd(h + t[pos], 1);
#endif
}

#if LAB_SKELETON
// (e) A block-local histogram in shared memory (__shared__ int histo[kBins]):
// zero it (a block may have fewer than kBins threads), __syncthreads(), count your
// slice into it with atomicAdd, __syncthreads(), then add each bin to h.
#else
// (e) Privatization: atomics on a block-local histogram in shared memory, then
// one global atomic per bin per block.
#endif
__global__ void shared_kernel(const int* t, int n, int* h, int slice) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ int histo[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();  // the local histogram is zero before anyone counts
  const long long pos = slice_start(slice);
  const long long end = min(pos + slice, static_cast<long long>(n));
  for (long long i = pos; i < end; i++) atomicAdd(histo + t[i], 1);
  __syncthreads();  // every thread has counted before the block's result is merged
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (histo[b]) atomicAdd(h + b, histo[b]);
  }
#endif
}

#if LAB_SKELETON
// (f) Method 2, "inverse": block b loads samples [b * chunk, (b + 1) * chunk) into
// extern __shared__ int local[] (use a value that matches no bin past n),
// __syncthreads(), then thread t scans all of local[] for its bins
// t, t + blockDim.x, ... and adds each count to h.
#else
// Method 2 loads a block's chunk of samples into shared memory; past n, -1 never
// matches a bin.
__device__ void load_chunk(const int* t, int n, int chunk, int* local) {
  const long long pos = static_cast<long long>(blockIdx.x) * chunk;
  for (int r = threadIdx.x; r < chunk; r += blockDim.x) {
    local[r] = pos + r < n ? t[pos + r] : -1;
  }
  __syncthreads();
}

// (f) The course's "inverse" kernel: each thread scans the whole chunk for its bins,
// with a branch and a shared-memory increment per match.
#endif
__global__ void inverse_kernel(const int* t, int n, int* h, int chunk) {
#if LAB_SKELETON
  // TODO
#else
  extern __shared__ int local[];
  __shared__ int histo[kBins];
  load_chunk(t, n, chunk, local);
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    histo[b] = 0;
    for (int i = 0; i < chunk; i++) {
      if (b == local[i]) histo[b]++;
    }
    if (histo[b]) atomicAdd(h + b, histo[b]);
  }
#endif
}

#if LAB_SKELETON
// (g) The same, bank-aware: keep counts in registers, compare without a branch
// (occurrences += (b ^ local[i]) ? 0 : 1), and let every thread of a warp read the
// same local[i] at the same time (a broadcast).
#else
// (g) Every thread of a warp reads the same local[i] at once: a broadcast, no bank
// conflict. The count lives in a register and the comparison has no branch.
#endif
__global__ void banks_kernel(const int* t, int n, int* h, int chunk) {
#if LAB_SKELETON
  // TODO
#else
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    int occurrences = 0;
    for (int i = 0; i < chunk; i++) occurrences += (b ^ local[i]) ? 0 : 1;
    if (occurrences) atomicAdd(h + b, occurrences);
  }
#endif
}

#if LAB_SKELETON
// (g2) banks unrolled by 2, as the course's histogram_banks2: thread t owns the bins
// b and b + kBins / 2 for b = t, t + blockDim.x, ... < kBins / 2, with one counter
// each; every local[i] read once feeds both counters.
#else
// (g2) The course's histogram_banks2: one shared read per sample feeds two counters,
// so the scan does half the reads of (g) for the same comparisons.
#endif
__global__ void banks2_kernel(const int* t, int n, int* h, int chunk) {
#if LAB_SKELETON
  // TODO
#else
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  for (int b = threadIdx.x; b < kBins / 2; b += blockDim.x) {
    const int b1 = b, b2 = b + kBins / 2;
    int occurrences1 = 0, occurrences2 = 0;
    for (int i = 0; i < chunk; i++) {
      const int v = local[i];
      occurrences1 += (b1 ^ v) ? 0 : 1;
      occurrences2 += (b2 ^ v) ? 0 : 1;
    }
    if (occurrences1) atomicAdd(h + b1, occurrences1);
    if (occurrences2) atomicAdd(h + b2, occurrences2);
  }
#endif
}

#if LAB_SKELETON
// (g4) Unrolled by 4, as the course's histogram_banks4: bins b, b + kBins / 4,
// b + kBins / 2 and b + 3 * kBins / 4 for b = t, t + blockDim.x, ... < kBins / 4,
// four counters fed by one read of local[i].
#else
// (g4) The course's histogram_banks4: one shared read feeds four counters.
#endif
__global__ void banks4_kernel(const int* t, int n, int* h, int chunk) {
#if LAB_SKELETON
  // TODO
#else
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  constexpr int q = kBins / 4;
  for (int b = threadIdx.x; b < q; b += blockDim.x) {
    int occurrences[4] = {0, 0, 0, 0};
    for (int i = 0; i < chunk; i++) {
      const int v = local[i];
#pragma unroll
      for (int k = 0; k < 4; k++) occurrences[k] += ((b + k * q) ^ v) ? 0 : 1;
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
      if (occurrences[k]) atomicAdd(h + b + k * q, occurrences[k]);
    }
  }
#endif
}

#if !LAB_SKELETON
// (h) Memory-bound version. One pass over the samples with 16-byte loads, four in
// flight per thread; one shared histogram per warp, so warps never contend; a grid
// of exactly the blocks the GPU holds at once, so blocks stride over the data
// instead of paying a start-up and a merge per 2^13 samples.
// Zeroing `hist` is done inside the kernel (block 0) rather than by a memset: the
// extra launch would cost about as much as 5% of the whole pass. Other blocks wait
// for it only at the very end, and all blocks are resident, so nothing deadlocks.
__device__ unsigned int g_zeroed_epoch = 0;

__device__ __forceinline__ void count4(int* histo, int4 v) {
  atomicAdd(histo + v.x, 1);
  atomicAdd(histo + v.y, 1);
  atomicAdd(histo + v.z, 1);
  atomicAdd(histo + v.w, 1);
}

__global__ void best_kernel(const int* __restrict__ t, int n, int* __restrict__ h,
                            unsigned int epoch) {
  extern __shared__ int per_warp[];
  const int warps = blockDim.x / 32;
  for (int i = threadIdx.x; i < warps * kBins; i += blockDim.x) per_warp[i] = 0;
  if (blockIdx.x == 0) {
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) h[b] = 0;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicExch(&g_zeroed_epoch, epoch);
  }
  __syncthreads();

  int* histo = per_warp + (threadIdx.x / 32) * kBins;
  const int4* t4 = reinterpret_cast<const int4*>(t);
  const int n4 = n / 4;
  const int stride = gridDim.x * blockDim.x;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int i = tid;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const int4 a = __ldcs(t4 + i), b = __ldcs(t4 + i + stride);
    const int4 c = __ldcs(t4 + i + 2 * stride), d = __ldcs(t4 + i + 3 * stride);
    count4(histo, a);
    count4(histo, b);
    count4(histo, c);
    count4(histo, d);
  }
  for (; i < n4; i += stride) count4(histo, __ldcs(t4 + i));
  if (4 * n4 + tid < n) atomicAdd(histo + t[4 * n4 + tid], 1);  // the last n % 4 samples
  __syncthreads();

  if (threadIdx.x == 0) {
    while (atomicAdd(&g_zeroed_epoch, 0) != epoch) {
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    int sum = 0;
    for (int w = 0; w < warps; w++) sum += per_warp[w * kBins + b];
    if (sum) atomicAdd(h + b, sum);
  }
}
#endif

#if LAB_SKELETON
// (l) The three histograms of an image in one kernel:
//   __shared__ int histo[kRgbBins];  // red bins 0..255, then green, then blue
// zero it with a loop (a block may have fewer than kRgbBins threads), __syncthreads(),
// then a grid-stride loop over the pixels: i = blockIdx.x * blockDim.x + threadIdx.x,
// then i += gridDim.x * blockDim.x while i < n (the grid may hold fewer threads than
// pixels, or more). Each pixel p = image[i] (one 4-byte load) adds 1 to three counters:
// histo[p.x], histo[kColourBins + p.y] and histo[2 * kColourBins + p.z], with atomicAdd.
// __syncthreads(), then add each non-zero counter to h[b] with atomicAdd.
#else
// The colour part: a grid-stride loop over the image in 16-byte loads, four pixels at a
// time (the image is 256-byte aligned), then the last n % 4 pixels one by one. `count`
// gets each pixel as its packed 32 bits, red in the low byte.
template <class Count>
__device__ void for_each_pixel(const uchar4* __restrict__ image, int n, Count count) {
  const uint4* quads = reinterpret_cast<const uint4*>(image);
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long n4 = n / 4;
  for (long long i = tid; i < n4; i += stride) {
    const uint4 q = __ldcs(quads + i);
    count(q.x);
    count(q.y);
    count(q.z);
    count(q.w);
  }
  const unsigned* pixels = reinterpret_cast<const unsigned*>(image);
  for (long long i = 4 * n4 + tid; i < n; i += stride) count(pixels[i]);
}

// Zeroes a block's shared counters, runs `count_block` (which counts into them), then
// adds each non-zero counter to h: the barriers on both sides keep the counting apart
// from the zeroing and from the merge.
template <int Bins, class CountBlock>
__device__ void privatized(int* histo, int* h, CountBlock count_block) {
  for (int b = threadIdx.x; b < Bins; b += blockDim.x) histo[b] = 0;
  __syncthreads();
  count_block();
  __syncthreads();
  for (int b = threadIdx.x; b < Bins; b += blockDim.x) {
    if (histo[b]) atomicAdd(h + b, histo[b]);
  }
}

// (l) One pass for the three channels: each pixel read once feeds three shared counters,
// where three single-channel kernels would read the image three times.
#endif
__global__ void rgb_kernel(const uchar4* image, int n, int* h) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ int histo[kRgbBins];
  privatized<kRgbBins>(histo, h, [&] {
    for_each_pixel(image, n, [&](unsigned p) {
      atomicAdd(histo + (p & 0xFF), 1);
      atomicAdd(histo + kColourBins + ((p >> 8) & 0xFF), 1);
      atomicAdd(histo + 2 * kColourBins + ((p >> 16) & 0xFF), 1);
    });
  });
#endif
}

#if LAB_SKELETON
// (m) The hue histogram: the same structure as (l), with __shared__ int histo[kHueBins]
// and one counter per pixel, histo[hue of p]. Compute the hue exactly as the contract
// says, in ints: max and min of the three channels, d = max - min, kHueGrey if d == 0,
// else the sector's formula; add 360 * d when it is negative, and only then divide by
// d (C's division truncates toward zero: -30 / 7 is -4, not the floor -5).
#else
// (m) The contract's hue, in ints: the sector of the largest channel, its fraction
// 60 * (difference) / d, shifted to non-negative before the one division.
__device__ int hue_of(unsigned p) {
  const int r = p & 0xFF, g = (p >> 8) & 0xFF, b = (p >> 16) & 0xFF;
  const int top = max(r, max(g, b));
  const int d = top - min(r, min(g, b));
  if (d == 0) return kHueGrey;
  int h6 = top == r ? 60 * (g - b) : top == g ? 60 * (b - r) + 120 * d : 60 * (r - g) + 240 * d;
  if (h6 < 0) h6 += 360 * d;
  return h6 / d;
}

// (m) The hue histogram, privatized like (l): one shared counter per pixel.
#endif
__global__ void hue_kernel(const uchar4* image, int n, int* h) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ int histo[kHueBins];
  privatized<kHueBins>(histo, h, [&] {
    for_each_pixel(image, n, [&](unsigned p) { atomicAdd(histo + hue_of(p), 1); });
  });
#endif
}

#if LAB_SKELETON
// (i) The course's testAtomic: if tid < n, apply each slot's operation as the
// contract's AtomicSlot list says (atomicAdd(&slots[kSlotAdd], 10), ...), and store
// what atomicExch and atomicCAS return in exch_old[tid] and cas_old[tid].
// atomicInc and atomicDec take an unsigned int*: reinterpret_cast the slot's address.
#else
// (i) The course's testAtomic. Its atomicCAS(slot, tid - 1, tid) chain ends on a value
// that depends on the threads' order, so here every thread tries to claim a slot that
// starts at -1: exactly one wins, which the harness can check exactly.
#endif
__global__ void atomic_catalogue_kernel(int* slots, int* exch_old, int* cas_old, int n) {
#if LAB_SKELETON
  // TODO
#else
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  atomicAdd(&slots[kSlotAdd], 10);
  atomicSub(&slots[kSlotSub], 10);
  exch_old[tid] = atomicExch(&slots[kSlotExch], tid);
  atomicMax(&slots[kSlotMax], tid);
  atomicMin(&slots[kSlotMin], tid);
  atomicInc(reinterpret_cast<unsigned int*>(&slots[kSlotInc]), 17u);
  atomicDec(reinterpret_cast<unsigned int*>(&slots[kSlotDec]), 137u);
  cas_old[tid] = atomicCAS(&slots[kSlotCas], -1, tid);
  atomicAnd(&slots[kSlotAnd], 2 * tid + 7);
  atomicOr(&slots[kSlotOr], 1 << (tid % 32));
  atomicXor(&slots[kSlotXor], tid);
#endif
}

#if LAB_SKELETON
// (j) The course's check_threshold: if values[tid] > threshold, atomicExch(flag, 1).
#else
// (j) The course's check_threshold. Only threads that see a value above write, and all
// write 1: the flag's end value does not depend on who writes last.
#endif
__global__ void check_threshold_kernel(const int* values, int n, int threshold, int* flag) {
#if LAB_SKELETON
  // TODO
#else
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n && values[i] > threshold) atomicExch(flag, 1);
#endif
}

#if LAB_SKELETON
// (k) An atomic multiply from atomicCAS: read *address, then loop: compute the new
// value from the one you assume is there, atomicCAS(address, assumed, new) swaps only
// if *address still holds `assumed`, and returns what it found: retry until it is
// `assumed`. Return the value replaced.
#else
// (k) The CAS loop: atomicCAS writes assumed * factor only if no other thread changed
// *address since it was read; else it returns the newer value and the loop retries.
#endif
__device__ unsigned int atomic_mul(unsigned int* address, unsigned int factor) {
#if LAB_SKELETON
  // TODO
  return *address;
#else
  unsigned int old = *address, assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, assumed * factor);
  } while (old != assumed);
  return old;
#endif
}

}  // namespace

void histogram_global(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist, e.g. cudaMemsetAsync(hist, 0, kBins * sizeof(int));
#else
  zero(hist);
#endif
  global_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_unroll(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist
#else
  zero(hist);
#endif
  global_unroll_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_ilp4(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist
#else
  zero(hist);
#endif
  global_ilp4_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_one_per_thread(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist
#else
  zero(hist);
#endif
  one_per_thread_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist);
}

void histogram_shared(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist
#else
  zero(hist);
#endif
  shared_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_inverse(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist. The third launch parameter sizes extern __shared__ memory.
#else
  zero(hist);
#endif
  inverse_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                                launch.slice);
}

void histogram_banks(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist
#else
  zero(hist);
#endif
  banks_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                              launch.slice);
}

void histogram_banks2(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist
#else
  zero(hist);
#endif
  banks2_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                               launch.slice);
}

void histogram_banks4(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist
#else
  zero(hist);
#endif
  banks4_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                               launch.slice);
}

#if LAB_SKELETON
// (h) Your fastest histogram. Start from (e); then read the README's hints
// (grid-stride loop, 16-byte loads, one shared histogram per warp).
#endif
void histogram_best(const int* samples, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  (void)launch;  // TODO: your own kernel and grid; until then, the shared-memory one
  histogram_shared(samples, n, hist, Launch{(n + 256 * 32 - 1) / (256 * 32), 256, 32});
#else
  static unsigned int epoch = 0;
  const int threads = launch.threads >= 32 ? launch.threads / 32 * 32 : 32;
  const int shared_bytes = threads / 32 * kBins * static_cast<int>(sizeof(int));
  cudaFuncSetAttribute(best_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes);
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, best_kernel, threads, shared_bytes);
  const int resident = sms * (per_sm > 0 ? per_sm : 1);
  const int blocks = launch.blocks > 0 && launch.blocks < resident ? launch.blocks : resident;
  best_kernel<<<blocks, threads, shared_bytes>>>(samples, n, hist, ++epoch);
#endif
}

void histogram_rgb(const uchar4* image, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist (kRgbBins ints)
#else
  cudaMemsetAsync(hist, 0, kRgbBins * sizeof(int));
#endif
  rgb_kernel<<<launch.blocks, launch.threads>>>(image, n, hist);
}

void histogram_hue(const uchar4* image, int n, int* hist, Launch launch) {
#if LAB_SKELETON
  // TODO: zero hist (kHueBins ints)
#else
  cudaMemsetAsync(hist, 0, kHueBins * sizeof(int));
#endif
  hue_kernel<<<launch.blocks, launch.threads>>>(image, n, hist);
}

void check_threshold(const int* values, int n, int threshold, int* flag, Launch launch) {
#if LAB_SKELETON
  // TODO: zero flag (it arrives full of garbage)
#else
  cudaMemsetAsync(flag, 0, sizeof(int));
#endif
  check_threshold_kernel<<<launch.blocks, launch.threads>>>(values, n, threshold, flag);
}

}  // namespace lab1

// The launchers of (i) and (k) and (k)'s kernel, fixed by the lab.
#include "histogram_launchers.cuh"
