// lab1: histogram kernels (a typical student solution, written from the README,
// the contract histogram.cuh and the skeleton's hints).
#include "histogram.cuh"

namespace lab1 {
namespace {

// Zero the histogram before counting: it arrives full of garbage.
void zero_hist(int* hist) { cudaMemsetAsync(hist, 0, kBins * sizeof(int)); }

// Global id of this thread, in 64 bits.
__device__ long long global_tid() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// (a) Thread tid counts samples [tid * slice, (tid + 1) * slice), stopping at n.
__global__ void global_kernel(const int* t, int n, int* h, int slice) {
  const long long start = global_tid() * slice;
  long long end = start + slice;
  if (end > n) end = n;
  for (long long i = start; i < end; ++i) atomicAdd(h + t[i], 1);
}

// (b) The same loop with #pragma unroll.
__global__ void global_unroll_kernel(const int* t, int n, int* h, int slice) {
  const long long start = global_tid() * slice;
  long long end = start + slice;
  if (end > n) end = n;
#pragma unroll 8
  for (long long i = start; i < end; ++i) atomicAdd(h + t[i], 1);
}

// (c) Unrolled by hand: four loads, then four atomicAdds, then the leftovers.
__global__ void global_ilp4_kernel(const int* t, int n, int* h, int slice) {
  const long long start = global_tid() * slice;
  long long end = start + slice;
  if (end > n) end = n;
  long long i = start;
  for (; i + 3 < end; i += 4) {
    const int a = t[i];
    const int b = t[i + 1];
    const int c = t[i + 2];
    const int d = t[i + 3];
    atomicAdd(h + a, 1);
    atomicAdd(h + b, 1);
    atomicAdd(h + c, 1);
    atomicAdd(h + d, 1);
  }
  for (; i < end; ++i) atomicAdd(h + t[i], 1);
}

// (d) One sample per thread.
__global__ void one_per_thread_kernel(const int* t, int n, int* h) {
  const long long i = global_tid();
  if (i < n) atomicAdd(h + t[i], 1);
}

// (e) A block-local histogram in shared memory.
__global__ void shared_kernel(const int* t, int n, int* h, int slice) {
  __shared__ int histo[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();

  const long long start = global_tid() * slice;
  long long end = start + slice;
  if (end > n) end = n;
  for (long long i = start; i < end; ++i) atomicAdd(&histo[t[i]], 1);
  __syncthreads();

  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (histo[b] != 0) atomicAdd(h + b, histo[b]);
  }
}

// Loads the block's chunk [blockIdx.x * chunk, (blockIdx.x + 1) * chunk) into local[],
// with -1 (no bin) past n. Ends with __syncthreads().
__device__ void load_chunk(const int* t, int n, int chunk, int* local) {
  const long long base = static_cast<long long>(blockIdx.x) * chunk;
  for (int i = threadIdx.x; i < chunk; i += blockDim.x) {
    const long long g = base + i;
    local[i] = g < n ? t[g] : -1;
  }
  __syncthreads();
}

// (f) Method 2, "inverse": each thread scans the whole chunk for each of its bins.
__global__ void inverse_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    int count = 0;
    for (int i = 0; i < chunk; ++i) {
      if (local[i] == b) count++;
    }
    if (count != 0) atomicAdd(h + b, count);
  }
}

// (g) Bank-aware: all threads of a warp read the same local[i] (a broadcast), the
// count is kept in a register and the comparison has no branch.
__global__ void banks_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    int occurrences = 0;
    for (int i = 0; i < chunk; ++i) occurrences += (b ^ local[i]) ? 0 : 1;
    if (occurrences != 0) atomicAdd(h + b, occurrences);
  }
}

// (g2) Unrolled by 2: bins b and b + kBins / 2, one read feeding both counters.
__global__ void banks2_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  constexpr int kHalf = kBins / 2;
  for (int b = threadIdx.x; b < kHalf; b += blockDim.x) {
    int c0 = 0;
    int c1 = 0;
    for (int i = 0; i < chunk; ++i) {
      const int v = local[i];
      c0 += (v ^ b) ? 0 : 1;
      c1 += (v ^ (b + kHalf)) ? 0 : 1;
    }
    if (c0 != 0) atomicAdd(h + b, c0);
    if (c1 != 0) atomicAdd(h + b + kHalf, c1);
  }
}

// (g4) Unrolled by 4: bins b, b + 256, b + 512, b + 768.
__global__ void banks4_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  constexpr int kQuarter = kBins / 4;
  for (int b = threadIdx.x; b < kQuarter; b += blockDim.x) {
    int c0 = 0;
    int c1 = 0;
    int c2 = 0;
    int c3 = 0;
    for (int i = 0; i < chunk; ++i) {
      const int v = local[i];
      c0 += (v ^ b) ? 0 : 1;
      c1 += (v ^ (b + kQuarter)) ? 0 : 1;
      c2 += (v ^ (b + 2 * kQuarter)) ? 0 : 1;
      c3 += (v ^ (b + 3 * kQuarter)) ? 0 : 1;
    }
    if (c0 != 0) atomicAdd(h + b, c0);
    if (c1 != 0) atomicAdd(h + b + kQuarter, c1);
    if (c2 != 0) atomicAdd(h + b + 2 * kQuarter, c2);
    if (c3 != 0) atomicAdd(h + b + 3 * kQuarter, c3);
  }
}

// (h) Best: a grid-stride loop over int4 loads, one shared histogram per warp,
// merged at the end with one global atomicAdd per non-zero bin and block.
constexpr int kBestThreads = 256;
constexpr int kBestWarps = kBestThreads / 32;

__global__ void __launch_bounds__(kBestThreads) best_kernel(const int* t, int n, int* h) {
  __shared__ int warp_hist[kBestWarps][kBins];
  for (int i = threadIdx.x; i < kBestWarps * kBins; i += blockDim.x) {
    (&warp_hist[0][0])[i] = 0;
  }
  __syncthreads();

  int* mine = warp_hist[threadIdx.x / 32];
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long tid = global_tid();

  // The samples are 256-byte aligned: read them 4 at a time.
  const long long n4 = n / 4;
  const int4* t4 = reinterpret_cast<const int4*>(t);
  for (long long i = tid; i < n4; i += stride) {
    const int4 v = t4[i];
    atomicAdd(&mine[v.x], 1);
    atomicAdd(&mine[v.y], 1);
    atomicAdd(&mine[v.z], 1);
    atomicAdd(&mine[v.w], 1);
  }
  // The last n % 4 samples.
  const long long rest = n4 * 4 + tid;
  if (rest < n) atomicAdd(&mine[t[rest]], 1);
  __syncthreads();

  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    int sum = 0;
    for (int w = 0; w < kBestWarps; ++w) sum += warp_hist[w][b];
    if (sum != 0) atomicAdd(h + b, sum);
  }
}

// (i) The course's testAtomic.
__global__ void atomic_catalogue_kernel(int* slots, int* exch_old, int* cas_old, int n) {
  const long long tid64 = global_tid();
  if (tid64 >= n) return;
  const int tid = static_cast<int>(tid64);
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
}

// (l) The three channel histograms of an image: 3 x 256 counters in shared memory, a
// grid-stride loop with one pixel per thread per step, then one atomicAdd per bin.
__global__ void rgb_kernel(const uchar4* image, int n, int* h) {
  __shared__ int histo[kRgbBins];
  for (int b = threadIdx.x; b < kRgbBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();

  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = global_tid(); i < n; i += stride) {
    const uchar4 p = image[i];
    atomicAdd(&histo[p.x], 1);
    atomicAdd(&histo[kColourBins + p.y], 1);
    atomicAdd(&histo[2 * kColourBins + p.z], 1);
  }
  __syncthreads();

  for (int b = threadIdx.x; b < kRgbBins; b += blockDim.x) {
    if (histo[b] != 0) atomicAdd(h + b, histo[b]);
  }
}

// The hue bin of one pixel, with the contract's integer formula.
__device__ int hue_bin(int r, int g, int b) {
  const int mx = max(r, max(g, b));
  const int mn = min(r, min(g, b));
  const int d = mx - mn;
  if (d == 0) return kHueGrey;
  int h6;
  if (mx == r) {
    h6 = 60 * (g - b);
  } else if (mx == g) {
    h6 = 60 * (b - r) + 120 * d;
  } else {
    h6 = 60 * (r - g) + 240 * d;
  }
  if (h6 < 0) h6 += 360 * d;
  return h6 / d;
}

// (m) The hue histogram, the same way as (l) with kHueBins counters.
__global__ void hue_kernel(const uchar4* image, int n, int* h) {
  __shared__ int histo[kHueBins];
  for (int b = threadIdx.x; b < kHueBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();

  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = global_tid(); i < n; i += stride) {
    const uchar4 p = image[i];
    atomicAdd(&histo[hue_bin(p.x, p.y, p.z)], 1);
  }
  __syncthreads();

  for (int b = threadIdx.x; b < kHueBins; b += blockDim.x) {
    if (histo[b] != 0) atomicAdd(h + b, histo[b]);
  }
}

// (j) The course's check_threshold.
__global__ void check_threshold_kernel(const int* values, int n, int threshold, int* flag) {
  const long long i = global_tid();
  if (i < n && values[i] > threshold) atomicExch(flag, 1);
}

// (k) Multiply from atomicCAS: retry until nobody changed the value in between.
__device__ unsigned int atomic_mul(unsigned int* address, unsigned int factor) {
  unsigned int old = *address;
  unsigned int assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, assumed * factor);
  } while (old != assumed);
  return old;
}

}  // namespace

void histogram_global(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  global_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_unroll(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  global_unroll_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_ilp4(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  global_ilp4_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_one_per_thread(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  one_per_thread_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist);
}

void histogram_shared(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  shared_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_inverse(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  inverse_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                                launch.slice);
}

void histogram_banks(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  banks_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                              launch.slice);
}

void histogram_banks2(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  banks2_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                               launch.slice);
}

void histogram_banks4(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  banks4_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                               launch.slice);
}

// (h) My own grid: 4 blocks of 256 threads per SM (32 KB of shared memory each),
// fewer when n is small. launch.threads is ignored: the per-warp histograms are
// sized for 256 threads.
void histogram_best(const int* samples, int n, int* hist, Launch launch) {
  zero_hist(hist);
  int blocks = launch.blocks;
  if (blocks <= 0) {
    int device = 0;
    int sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (sms <= 0) sms = 1;
    blocks = sms * 4;
    const long long needed = (static_cast<long long>(n) / 4 + kBestThreads - 1) / kBestThreads;
    if (needed < blocks) blocks = needed > 0 ? static_cast<int>(needed) : 1;
  }
  best_kernel<<<blocks, kBestThreads>>>(samples, n, hist);
}

void histogram_rgb(const uchar4* image, int n, int* hist, Launch launch) {
  cudaMemsetAsync(hist, 0, kRgbBins * sizeof(int));
  rgb_kernel<<<launch.blocks, launch.threads>>>(image, n, hist);
}

void histogram_hue(const uchar4* image, int n, int* hist, Launch launch) {
  cudaMemsetAsync(hist, 0, kHueBins * sizeof(int));
  hue_kernel<<<launch.blocks, launch.threads>>>(image, n, hist);
}

void check_threshold(const int* values, int n, int threshold, int* flag, Launch launch) {
  cudaMemsetAsync(flag, 0, sizeof(int));
  check_threshold_kernel<<<launch.blocks, launch.threads>>>(values, n, threshold, flag);
}

}  // namespace lab1

// The launchers of (i) and (k) and (k)'s kernel, fixed by the lab.
#include "histogram_launchers.cuh"
