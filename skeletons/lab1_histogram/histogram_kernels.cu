// lab1: your histogram kernels. Read labs/lab1_histogram/README.md and the
// contract labs/lab1_histogram/histogram.cuh first.
//
// Every launcher must (1) zero `hist` (it arrives full of garbage), then
// (2) launch its kernel with launch.blocks blocks of launch.threads threads.
// Don't synchronize or allocate: the harness does that. Every kernel must work
// for any n >= 1: the grid may cover more samples than n, so check bounds.
#include "histogram.cuh"

namespace lab1 {
namespace {

// (a) Thread number tid = blockIdx.x * blockDim.x + threadIdx.x handles the samples
// [tid * slice, (tid + 1) * slice) and counts each with atomicAdd(h + t[i], 1).
// Hint: compute positions in 64-bit (long long) and stop at n.
__global__ void global_kernel(const int* t, int n, int* h, int slice) {
  // TODO
}

// (b) The same loop, preceded by `#pragma unroll <factor>`. Compare the SASS
// (cuobjdump -sass) and the time with (a): what did unrolling change?
__global__ void global_unroll_kernel(const int* t, int n, int* h, int slice) {
  // TODO
}

// (c) The same loop unrolled by hand: four loads and four atomicAdds per iteration,
// then a loop for the samples left over when slice is not a multiple of 4.
__global__ void global_ilp4_kernel(const int* t, int n, int* h, int slice) {
  // TODO
}

// (d) One sample per thread: if (tid < n) atomicAdd(h + t[tid], 1).
__global__ void one_per_thread_kernel(const int* t, int n, int* h) {
  // TODO
}

// (e) A block-local histogram in shared memory (__shared__ int histo[kBins]):
// zero it (a block may have fewer than kBins threads), __syncthreads(), count your
// slice into it with atomicAdd, __syncthreads(), then add each bin to h.
__global__ void shared_kernel(const int* t, int n, int* h, int slice) {
  // TODO
}

// (f) Method 2, "inverse": block b loads samples [b * chunk, (b + 1) * chunk) into
// extern __shared__ int local[] (use a value that matches no bin past n),
// __syncthreads(), then thread t scans all of local[] for its bins
// t, t + blockDim.x, ... and adds each count to h.
__global__ void inverse_kernel(const int* t, int n, int* h, int chunk) {
  // TODO
}

// (g) The same, bank-aware: keep counts in registers, compare without a branch
// (occurrences += (b ^ local[i]) ? 0 : 1), and let every thread of a warp read the
// same local[i] at the same time (a broadcast).
__global__ void banks_kernel(const int* t, int n, int* h, int chunk) {
  // TODO
}

// (g2) banks unrolled by 2, as the course's histogram_banks2: thread t owns the bins
// b and b + kBins / 2 for b = t, t + blockDim.x, ... < kBins / 2, with one counter
// each; every local[i] read once feeds both counters.
__global__ void banks2_kernel(const int* t, int n, int* h, int chunk) {
  // TODO
}

// (g4) Unrolled by 4, as the course's histogram_banks4: bins b, b + kBins / 4,
// b + kBins / 2 and b + 3 * kBins / 4 for b = t, t + blockDim.x, ... < kBins / 4,
// four counters fed by one read of local[i].
__global__ void banks4_kernel(const int* t, int n, int* h, int chunk) {
  // TODO
}

// (l) The three histograms of an image in one kernel:
//   __shared__ int histo[kRgbBins];  // red bins 0..255, then green, then blue
// zero it with a loop (a block may have fewer than kRgbBins threads), __syncthreads(),
// then a grid-stride loop over the pixels: i = blockIdx.x * blockDim.x + threadIdx.x,
// then i += gridDim.x * blockDim.x while i < n (the grid may hold fewer threads than
// pixels, or more). Each pixel p = image[i] (one 4-byte load) adds 1 to three counters:
// histo[p.x], histo[kColourBins + p.y] and histo[2 * kColourBins + p.z], with atomicAdd.
// __syncthreads(), then add each non-zero counter to h[b] with atomicAdd.
__global__ void rgb_kernel(const uchar4* image, int n, int* h) {
  // TODO
}

// (m) The hue histogram: the same structure as (l), with __shared__ int histo[kHueBins]
// and one counter per pixel, histo[hue of p]. Compute the hue exactly as the contract
// says, in ints: max and min of the three channels, d = max - min, kHueGrey if d == 0,
// else the sector's formula; add 360 * d when it is negative, and only then divide by
// d (C's division truncates toward zero: -30 / 7 is -4, not the floor -5).
__global__ void hue_kernel(const uchar4* image, int n, int* h) {
  // TODO
}

// (i) The course's testAtomic: if tid < n, apply each slot's operation as the
// contract's AtomicSlot list says (atomicAdd(&slots[kSlotAdd], 10), ...), and store
// what atomicExch and atomicCAS return in exch_old[tid] and cas_old[tid].
// atomicInc and atomicDec take an unsigned int*: reinterpret_cast the slot's address.
__global__ void atomic_catalogue_kernel(int* slots, int* exch_old, int* cas_old, int n) {
  // TODO
}

// (j) The course's check_threshold: if values[tid] > threshold, atomicExch(flag, 1).
__global__ void check_threshold_kernel(const int* values, int n, int threshold, int* flag) {
  // TODO
}

// (k) An atomic multiply from atomicCAS: read *address, then loop: compute the new
// value from the one you assume is there, atomicCAS(address, assumed, new) swaps only
// if *address still holds `assumed`, and returns what it found: retry until it is
// `assumed`. Return the value replaced.
__device__ unsigned int atomic_mul(unsigned int* address, unsigned int factor) {
  // TODO
  return *address;
}

}  // namespace

void histogram_global(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist, e.g. cudaMemsetAsync(hist, 0, kBins * sizeof(int));
  global_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_unroll(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist
  global_unroll_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_global_ilp4(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist
  global_ilp4_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_one_per_thread(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist
  one_per_thread_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist);
}

void histogram_shared(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist
  shared_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
}

void histogram_inverse(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist. The third launch parameter sizes extern __shared__ memory.
  inverse_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                                launch.slice);
}

void histogram_banks(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist
  banks_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                              launch.slice);
}

void histogram_banks2(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist
  banks2_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                               launch.slice);
}

void histogram_banks4(const int* samples, int n, int* hist, Launch launch) {
  // TODO: zero hist
  banks4_kernel<<<launch.blocks, launch.threads, launch.slice * sizeof(int)>>>(samples, n, hist,
                                                                               launch.slice);
}

// (h) Your fastest histogram. Start from (e); then read the README's hints
// (grid-stride loop, 16-byte loads, one shared histogram per warp).
void histogram_best(const int* samples, int n, int* hist, Launch launch) {
  (void)launch;  // TODO: your own kernel and grid; until then, the shared-memory one
  histogram_shared(samples, n, hist, Launch{(n + 256 * 32 - 1) / (256 * 32), 256, 32});
}

void histogram_rgb(const uchar4* image, int n, int* hist, Launch launch) {
  // TODO: zero hist (kRgbBins ints)
  rgb_kernel<<<launch.blocks, launch.threads>>>(image, n, hist);
}

void histogram_hue(const uchar4* image, int n, int* hist, Launch launch) {
  // TODO: zero hist (kHueBins ints)
  hue_kernel<<<launch.blocks, launch.threads>>>(image, n, hist);
}

void check_threshold(const int* values, int n, int threshold, int* flag, Launch launch) {
  // TODO: zero flag (it arrives full of garbage)
  check_threshold_kernel<<<launch.blocks, launch.threads>>>(values, n, threshold, flag);
}

}  // namespace lab1

// The launchers of (i) and (k) and (k)'s kernel, fixed by the lab.
#include "histogram_launchers.cuh"
