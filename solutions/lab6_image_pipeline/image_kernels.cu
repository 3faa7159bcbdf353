#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab6 steps 4-8: the image. Read labs/lab6_image_pipeline/README.md and the
// contract labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the kernels and their launchers, by the contract's rules for every
// launcher. Put your kernels and helpers in the anonymous namespace below.
#else
// lab6 reference solution, steps 4-8: the map, the histogram, the first non-zero
// bin, the equalisation, the sum.
//
// The element-wise kernels are grid-stride loops over a grid capped at kMaxBlocks:
// each thread takes several pixels, and the histogram's and the sum's blocks,
// fewer, each add one partial result to global memory. The 256 bins are scanned
// by one block of 256 threads, one bin each.
#endif
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

#if !LAB_SKELETON
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kPixelsPerThread = 16;
constexpr int kMaxBlocks = 1024;
static_assert(kThreads == kBins, "the bins' kernels give one bin to each thread");

// Enough blocks of kThreads for kPixelsPerThread pixels each, at most kMaxBlocks.
int pixel_blocks(int image_size) {
  const int per_block = kThreads * kPixelsPerThread;
  const int blocks = (image_size + per_block - 1) / per_block;
  return blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

__device__ int first_pixel() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ int pixel_stride() { return gridDim.x * blockDim.x; }

// The block's inclusive scan of one value per thread (kThreads threads): warps
// scan with shuffles, the first warp scans the warp totals. `*total` gets the
// block's sum. Every thread must call it.
__device__ int block_inclusive_scan(int value, int* total) {
  __shared__ int warp_totals[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int d = 1; d < 32; d *= 2) {
    const int other = __shfl_up_sync(0xffffffffu, value, d);
    if (lane >= d) value += other;
  }
  if (lane == 31) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    int scanned = lane < kWarps ? warp_totals[lane] : 0;
    for (int d = 1; d < kWarps; d *= 2) {
      const int other = __shfl_up_sync(0xffffffffu, scanned, d);
      if (lane >= d) scanned += other;
    }
    if (lane < kWarps) warp_totals[lane] = scanned;
  }
  __syncthreads();
  const int before = warp == 0 ? 0 : warp_totals[warp - 1];
  *total = warp_totals[kWarps - 1];
  return value + before;
}
#endif

#if LAB_SKELETON
// (4a) image[i] += 1, -5, +3 or -8 by i % 4, with if / else if as the course's CPU
// loop (lab6.cu's apply_map_cpu).
#else
// (4a) The course's CPU loop as written: one branch per value of i % 4.
#endif
__global__ void map_branchy_kernel(int* image, int image_size) {
#if LAB_SKELETON
  // TODO
#else
  for (int i = first_pixel(); i < image_size; i += pixel_stride()) {
    if (i % 4 == 0)
      image[i] += 1;
    else if (i % 4 == 1)
      image[i] -= 5;
    else if (i % 4 == 2)
      image[i] += 3;
    else if (i % 4 == 3)
      image[i] -= 8;
  }
#endif
}

#if LAB_SKELETON
// (4b) The same map with the four values in a __constant__ table of yours,
// indexed with i & 3 (declare it here, in the anonymous namespace).
#else
// (4b) The values in constant memory, indexed with i & 3: no branch.
__constant__ int c_map_delta[4] = {kMapDelta[0], kMapDelta[1], kMapDelta[2], kMapDelta[3]};
#endif
__global__ void map_constant_kernel(int* image, int image_size) {
#if LAB_SKELETON
  // TODO
#else
  for (int i = first_pixel(); i < image_size; i += pixel_stride()) image[i] += c_map_delta[i & 3];
#endif
}

#if LAB_SKELETON
// (5a) One atomicAdd in global memory per pixel (histo cleared by the launcher).
#else
// (5a) Every pixel is an atomicAdd on the histogram in global memory.
#endif
__global__ void histogram_global_kernel(const int* image, int image_size, int* histo) {
#if LAB_SKELETON
  // TODO
#else
  for (int i = first_pixel(); i < image_size; i += pixel_stride()) atomicAdd(&histo[image[i]], 1);
#endif
}

#if LAB_SKELETON
// (5b) lab1's privatisation: each block counts its pixels into a histogram in
// shared memory (cleared first), then adds its non-zero bins to histo.
#else
// (5b) Each block counts into shared memory, then adds its bins to histo: one
// global atomic per bin and block instead of one per pixel.
#endif
__global__ void histogram_shared_kernel(const int* image, int image_size, int* histo) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = first_pixel(); i < image_size; i += pixel_stride()) atomicAdd(&local[image[i]], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&histo[b], local[b]);
  }
#endif
}

#if LAB_SKELETON
// (6a) cdf = the inclusive scan of the kBins bins: one block of kBins threads is
// enough.
#else
// (6a) One block, one bin per thread.
#endif
__global__ void cumulative_kernel(const int* histo, int* cdf) {
#if LAB_SKELETON
  // TODO
#else
  int total;
  cdf[threadIdx.x] = block_inclusive_scan(histo[threadIdx.x], &total);
#endif
}

#if LAB_SKELETON
// (6b) The course's find_if as a compaction: predicate[v] = (cdf[v] != 0), its
// inclusive scan, and the one bin whose predicate and scan are both 1 writes
// *cdf_min. Why not `if (cdf[v] != 0) *cdf_min = cdf[v];`? (REPORT.md)
#else
// (6b) One block, one bin per thread: the bin whose predicate and inclusive scan
// are both 1 is the first non-zero one. No bin is non-zero only for an empty
// image, which the contract excludes; *cdf_min is then 0, as the CPU's.
#endif
__global__ void first_non_zero_kernel(const int* cdf, int* cdf_min) {
#if LAB_SKELETON
  // TODO
#else
  const int value = cdf[threadIdx.x];
  const int predicate = value != 0;
  int total;
  const int scanned = block_inclusive_scan(predicate, &total);
  if (predicate == 1 && scanned == 1) *cdf_min = value;
  if (threadIdx.x == 0 && total == 0) *cdf_min = 0;
#endif
}

#if LAB_SKELETON
// (7) The equalisation, exactly the contract's expression, in float, with roundf.
#else
// (7) Each block first computes the new level of every grey level (the
// contract's expression, in float, for the kBins levels), then maps its pixels
// through that table in shared memory: one division per level and block, not one
// per pixel, and the same float operations as the CPU's, so the same results.
#endif
__global__ void equalize_kernel(int* image, int image_size, const int* cdf, const int* cdf_min) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ int level[kBins];
  const int minimum = *cdf_min;
  const float range = static_cast<float>(image_size - minimum);
  for (int v = threadIdx.x; v < kBins; v += blockDim.x) {
    // 0 / 0 (one grey level) is NaN, which the conversion to int makes 0.
    level[v] = static_cast<int>(roundf(((cdf[v] - minimum) / range) * 255.0f));
  }
  __syncthreads();
  for (int i = first_pixel(); i < image_size; i += pixel_stride()) image[i] = level[image[i]];
#endif
}

#if LAB_SKELETON
// (8) *total = the sum of the image (cleared by the launcher): each block reduces
// its pixels (lab3's reductions), then adds its sum with one atomicAdd.
#else
// (8) Each thread sums its pixels, the block reduces the threads' sums with
// shuffles, and one atomicAdd per block adds it to *total.
#endif
__global__ void reduce_sum_kernel(const int* image, int image_size, int* total) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ int warp_sums[kWarps];
  int sum = 0;
  for (int i = first_pixel(); i < image_size; i += pixel_stride()) sum += image[i];
  for (int d = 16; d > 0; d /= 2) sum += __shfl_down_sync(0xffffffffu, sum, d);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < kWarps ? warp_sums[threadIdx.x] : 0;
    for (int d = 16; d > 0; d /= 2) sum += __shfl_down_sync(0xffffffffu, sum, d);
    if (threadIdx.x == 0) atomicAdd(total, sum);
  }
#endif
}

}  // namespace

void apply_map_branchy(int* image, int image_size) {
#if LAB_SKELETON
  map_branchy_kernel<<<1, 256>>>(image, image_size);  // TODO: your grid
#else
  map_branchy_kernel<<<pixel_blocks(image_size), kThreads>>>(image, image_size);
#endif
}

void apply_map_constant(int* image, int image_size) {
#if LAB_SKELETON
  map_constant_kernel<<<1, 256>>>(image, image_size);  // TODO: your grid
#else
  map_constant_kernel<<<pixel_blocks(image_size), kThreads>>>(image, image_size);
#endif
}

void histogram_global(const int* image, int image_size, int* histo) {
#if LAB_SKELETON
  // TODO: clear histo (it arrives poisoned)
  histogram_global_kernel<<<1, 256>>>(image, image_size, histo);  // TODO: your grid
#else
  cudaMemsetAsync(histo, 0, kBins * sizeof(int));
  histogram_global_kernel<<<pixel_blocks(image_size), kThreads>>>(image, image_size, histo);
#endif
}

void histogram_shared(const int* image, int image_size, int* histo) {
#if LAB_SKELETON
  // TODO: clear histo (it arrives poisoned)
  histogram_shared_kernel<<<1, 256>>>(image, image_size, histo);  // TODO: your grid
#else
  cudaMemsetAsync(histo, 0, kBins * sizeof(int));
  histogram_shared_kernel<<<pixel_blocks(image_size), kThreads>>>(image, image_size, histo);
#endif
}

void cumulative_histogram(const int* histo, int* cdf) {
#if LAB_SKELETON
  cumulative_kernel<<<1, 32>>>(histo, cdf);  // TODO: your block
#else
  cumulative_kernel<<<1, kBins>>>(histo, cdf);
#endif
}

void first_non_zero(const int* cdf, int* cdf_min, Scratch scratch) {
#if LAB_SKELETON
  // TODO: scratch is yours if you scan with kernels of several blocks
  first_non_zero_kernel<<<1, 32>>>(cdf, cdf_min);  // TODO: your block
#else
  first_non_zero_kernel<<<1, kBins>>>(cdf, cdf_min);  // 256 bins: one block, no scratch
#endif
}

void equalize(int* image, int image_size, const int* cdf, const int* cdf_min) {
#if LAB_SKELETON
  equalize_kernel<<<1, 256>>>(image, image_size, cdf, cdf_min);  // TODO: your grid
#else
  equalize_kernel<<<pixel_blocks(image_size), kThreads>>>(image, image_size, cdf, cdf_min);
#endif
}

void reduce_sum(const int* image, int image_size, int* total, Scratch scratch) {
#if LAB_SKELETON
  // TODO: clear *total (it arrives poisoned), or write it from one block at the end
  reduce_sum_kernel<<<1, 256>>>(image, image_size, total);  // TODO: your grid
#else
  cudaMemsetAsync(total, 0, sizeof(int));
  reduce_sum_kernel<<<pixel_blocks(image_size), kThreads>>>(image, image_size, total);
#endif
}

}  // namespace lab6
