// lab1: the histogram kernels (contract: labs/lab1_histogram/histogram.cuh).
//
// Every launcher zeroes its output with cudaMemsetAsync, then launches on the
// default stream; positions are computed in 64 bits so that no product overflows.
#include "histogram.cuh"

namespace lab1 {
namespace {

// The first sample of thread `tid`'s slice.
__device__ long long slice_start(int slice) {
  return (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * slice;
}

// (a) Method 1: each thread counts its slice straight into the global histogram.
__global__ void global_kernel(const int* t, int n, int* h, int slice) {
  const long long start = slice_start(slice);
  const long long end = min(start + slice, static_cast<long long>(n));
  for (long long i = start; i < end; ++i) atomicAdd(h + t[i], 1);
}

// (b) The same loop, unrolled by the compiler.
__global__ void global_unroll_kernel(const int* t, int n, int* h, int slice) {
  const long long start = slice_start(slice);
  const long long end = min(start + slice, static_cast<long long>(n));
#pragma unroll 8
  for (long long i = start; i < end; ++i) atomicAdd(h + t[i], 1);
}

// (c) Unrolled by hand: four independent loads before their four atomics.
__global__ void global_ilp4_kernel(const int* t, int n, int* h, int slice) {
  const long long start = slice_start(slice);
  const long long end = min(start + slice, static_cast<long long>(n));
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
  const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tid < n) atomicAdd(h + t[tid], 1);
}

// (e) Privatised: the block counts into shared memory, then merges once per bin.
__global__ void shared_kernel(const int* t, int n, int* h, int slice) {
  __shared__ int histo[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();  // every bin zeroed before anyone counts
  const long long start = slice_start(slice);
  const long long end = min(start + slice, static_cast<long long>(n));
  for (long long i = start; i < end; ++i) atomicAdd(histo + t[i], 1);
  __syncthreads();  // every count in before the merge reads the bins
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (histo[b] != 0) atomicAdd(h + b, histo[b]);
  }
}

// Method 2 loads block b's chunk into shared memory; the samples past n get -1,
// which matches no bin, so every thread can scan the whole chunk.
__device__ void load_chunk(const int* t, int n, int chunk, int* local) {
  const long long pos = static_cast<long long>(blockIdx.x) * chunk;
  for (int i = threadIdx.x; i < chunk; i += blockDim.x) {
    local[i] = pos + i < n ? t[pos + i] : -1;
  }
  __syncthreads();
}

// (f) "inverse": each thread scans the chunk for its bins, with the course's branch.
__global__ void inverse_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  for (int bin = threadIdx.x; bin < kBins; bin += blockDim.x) {
    int count = 0;
    for (int i = 0; i < chunk; ++i) {
      if (bin == local[i]) count++;
    }
    if (count != 0) atomicAdd(h + bin, count);
  }
}

// (g) Bank-aware: all threads of a warp read the same local[i] (a broadcast) and
// count without a branch.
__global__ void banks_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  for (int bin = threadIdx.x; bin < kBins; bin += blockDim.x) {
    int occurrences = 0;
    for (int i = 0; i < chunk; ++i) occurrences += (bin ^ local[i]) ? 0 : 1;
    if (occurrences != 0) atomicAdd(h + bin, occurrences);
  }
}

// (g2) Two bins per read: b and b + kBins / 2.
__global__ void banks2_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  constexpr int kHalf = kBins / 2;
  for (int b = threadIdx.x; b < kHalf; b += blockDim.x) {
    const int v1 = b;
    const int v2 = b + kHalf;
    int occurrences1 = 0;
    int occurrences2 = 0;
    for (int i = 0; i < chunk; ++i) {
      const int value = local[i];
      occurrences1 += (v1 ^ value) ? 0 : 1;
      occurrences2 += (v2 ^ value) ? 0 : 1;
    }
    if (occurrences1 != 0) atomicAdd(h + v1, occurrences1);
    if (occurrences2 != 0) atomicAdd(h + v2, occurrences2);
  }
}

// (g4) Four bins per read: b, b + kBins / 4, b + kBins / 2, b + 3 * kBins / 4.
__global__ void banks4_kernel(const int* t, int n, int* h, int chunk) {
  extern __shared__ int local[];
  load_chunk(t, n, chunk, local);
  constexpr int kQuarter = kBins / 4;
  for (int b = threadIdx.x; b < kQuarter; b += blockDim.x) {
    const int v1 = b;
    const int v2 = v1 + kQuarter;
    const int v3 = v2 + kQuarter;
    const int v4 = v3 + kQuarter;
    int occurrences1 = 0;
    int occurrences2 = 0;
    int occurrences3 = 0;
    int occurrences4 = 0;
    for (int i = 0; i < chunk; ++i) {
      const int value = local[i];
      occurrences1 += (v1 ^ value) ? 0 : 1;
      occurrences2 += (v2 ^ value) ? 0 : 1;
      occurrences3 += (v3 ^ value) ? 0 : 1;
      occurrences4 += (v4 ^ value) ? 0 : 1;
    }
    if (occurrences1 != 0) atomicAdd(h + v1, occurrences1);
    if (occurrences2 != 0) atomicAdd(h + v2, occurrences2);
    if (occurrences3 != 0) atomicAdd(h + v3, occurrences3);
    if (occurrences4 != 0) atomicAdd(h + v4, occurrences4);
  }
}

// (h) The fast one: a grid-stride loop over int4 loads, each warp counting into a
// histogram of its own in shared memory (so warps never contend with each other),
// then one global atomic per non-empty bin per block.
constexpr int kBestThreads = 256;
constexpr int kBestWarps = kBestThreads / 32;
constexpr int kBestBlocksPerSm = 4;  // 32 KiB of shared memory each

__global__ void __launch_bounds__(kBestThreads) best_kernel(const int* t, int n, int* h) {
  __shared__ int histo[kBestWarps][kBins];
  for (int i = threadIdx.x; i < kBestWarps * kBins; i += kBestThreads) (&histo[0][0])[i] = 0;
  __syncthreads();

  int* mine = histo[threadIdx.x / 32];
  const int tid = blockIdx.x * kBestThreads + threadIdx.x;
  const int stride = gridDim.x * kBestThreads;
  const int quads = n / 4;
  const int4* t4 = reinterpret_cast<const int4*>(t);  // the contract's 256-byte alignment
  for (int q = tid; q < quads; q += stride) {
    const int4 v = t4[q];
    atomicAdd(mine + v.x, 1);
    atomicAdd(mine + v.y, 1);
    atomicAdd(mine + v.z, 1);
    atomicAdd(mine + v.w, 1);
  }
  // The last n % 4 samples, one per thread of the grid's first threads.
  const int tail = 4 * quads + tid;
  if (tail < n) atomicAdd(mine + t[tail], 1);
  __syncthreads();

  for (int b = threadIdx.x; b < kBins; b += kBestThreads) {
    int sum = 0;
    for (int w = 0; w < kBestWarps; ++w) sum += histo[w][b];
    if (sum != 0) atomicAdd(h + b, sum);
  }
}

// (l) The three channels at once: 768 counters per block in shared memory.
__global__ void rgb_kernel(const uchar4* image, int n, int* h) {
  __shared__ int histo[kRgbBins];
  for (int b = threadIdx.x; b < kRgbBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const uchar4 p = image[i];
    atomicAdd(histo + p.x, 1);
    atomicAdd(histo + kColourBins + p.y, 1);
    atomicAdd(histo + 2 * kColourBins + p.z, 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kRgbBins; b += blockDim.x) {
    if (histo[b] != 0) atomicAdd(h + b, histo[b]);
  }
}

// The contract's integer hue: the division comes last, on a non-negative number.
__device__ int hue_of(uchar4 p) {
  const int r = p.x;
  const int g = p.y;
  const int b = p.z;
  const int top = max(r, max(g, b));
  const int d = top - min(r, min(g, b));
  if (d == 0) return kHueGrey;
  int h6;
  if (top == r) {
    h6 = 60 * (g - b);
  } else if (top == g) {
    h6 = 60 * (b - r) + 120 * d;
  } else {
    h6 = 60 * (r - g) + 240 * d;
  }
  if (h6 < 0) h6 += 360 * d;
  return h6 / d;
}

// (m) The hue histogram, privatised like (l).
__global__ void hue_kernel(const uchar4* image, int n, int* h) {
  __shared__ int histo[kHueBins];
  for (int b = threadIdx.x; b < kHueBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    atomicAdd(histo + hue_of(image[i]), 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kHueBins; b += blockDim.x) {
    if (histo[b] != 0) atomicAdd(h + b, histo[b]);
  }
}

// (i) The course's testAtomic, one operation per slot.
__global__ void atomic_catalogue_kernel(int* slots, int* exch_old, int* cas_old, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  atomicAdd(&slots[kSlotAdd], 10);
  atomicSub(&slots[kSlotSub], 10);
  exch_old[tid] = atomicExch(&slots[kSlotExch], tid);
  atomicMax(&slots[kSlotMax], tid);
  atomicMin(&slots[kSlotMin], tid);
  atomicInc(reinterpret_cast<unsigned int*>(&slots[kSlotInc]), 17);
  atomicDec(reinterpret_cast<unsigned int*>(&slots[kSlotDec]), 137);
  cas_old[tid] = atomicCAS(&slots[kSlotCas], -1, tid);
  atomicAnd(&slots[kSlotAnd], 2 * tid + 7);
  atomicOr(&slots[kSlotOr], 1 << (tid % 32));
  atomicXor(&slots[kSlotXor], tid);
}

// (j) The course's check_threshold.
__global__ void check_threshold_kernel(const int* values, int n, int threshold, int* flag) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n && values[tid] > threshold) atomicExch(flag, 1);
}

// (k) Multiply, retried until no other thread changed the value in between.
__device__ unsigned int atomic_mul(unsigned int* address, unsigned int factor) {
  unsigned int old = *address;
  unsigned int assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, assumed * factor);
  } while (old != assumed);
  return old;
}

void zero(int* buffer, int count) { cudaMemsetAsync(buffer, 0, count * sizeof(int)); }

}  // namespace

void histogram_global(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  global_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_unroll(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  global_unroll_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_ilp4(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  global_ilp4_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_one_per_thread(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  one_per_thread_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist);
}

void histogram_shared(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  shared_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_inverse(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  inverse_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                                launch.slice);
}

void histogram_banks(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  banks_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                              launch.slice);
}

void histogram_banks2(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  banks2_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                               launch.slice);
}

void histogram_banks4(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  banks4_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                               launch.slice);
}

// A grid the GPU holds at once (a few blocks per SM), never more blocks than the
// int4s need.
void histogram_best(const int* samples, int n, int* hist, Launch launch) {
  zero(hist, kBins);
  int blocks = launch.blocks;
  if (blocks < 1) {
    int device = 0;
    int sms = 1;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const int needed = (n / 4 + kBestThreads - 1) / kBestThreads;
    blocks = max(1, min(sms * kBestBlocksPerSm, needed));
  }
  best_kernel<<<blocks, kBestThreads>>>(samples, n, hist);
}

void histogram_rgb(const uchar4* image, int n, int* hist, Launch launch) {
  zero(hist, kRgbBins);
  rgb_kernel<<<launch.blocks, launch.threads>>>(image, n, hist);
}

void histogram_hue(const uchar4* image, int n, int* hist, Launch launch) {
  zero(hist, kHueBins);
  hue_kernel<<<launch.blocks, launch.threads>>>(image, n, hist);
}

void check_threshold(const int* values, int n, int threshold, int* flag, Launch launch) {
  zero(flag, 1);
  check_threshold_kernel<<<launch.blocks, launch.threads>>>(values, n, threshold, flag);
}

}  // namespace lab1

// The launchers of (i) and (k) and (k)'s kernel, fixed by the lab.
#include "histogram_launchers.cuh"
