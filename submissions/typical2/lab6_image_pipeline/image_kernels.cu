// lab6 steps 4-8: the image (contract: labs/lab6_image_pipeline/image_pipeline.cuh).
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kThreads = 256;

// The map's four corrections, in constant memory (the report's map).
__constant__ int c_map_delta[4] = {kMapDelta[0], kMapDelta[1], kMapDelta[2], kMapDelta[3]};

int blocks_for(long long work, int threads) {
  const long long blocks = (work + threads - 1) / threads;
  return blocks < 1 ? 1 : static_cast<int>(blocks);
}

// A grid of a few hundred blocks for the grid-stride kernels: at most one block per
// 8 x kThreads pixels.
int strided_blocks(int image_size) {
  const int blocks = blocks_for(image_size, 8 * kThreads);
  return blocks < 1024 ? blocks : 1024;
}

// (4a) The CPU loop's branches on i % 4.
__global__ void map_branchy_kernel(int* image, int image_size) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= image_size) return;
  if (i % 4 == 0) {
    image[i] += 1;
  } else if (i % 4 == 1) {
    image[i] -= 5;
  } else if (i % 4 == 2) {
    image[i] += 3;
  } else {
    image[i] -= 8;
  }
}

// (4b) No branch: the correction from the constant table, indexed with i & 3.
__global__ void map_constant_kernel(int* image, int image_size) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < image_size) image[i] += c_map_delta[i & 3];
}

// (5a) One global atomic per pixel.
__global__ void histogram_global_kernel(const int* image, int image_size, int* histo) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < image_size) atomicAdd(histo + image[i], 1);
}

// (5b) A histogram per block in shared memory, merged once per non-empty bin.
__global__ void histogram_shared_kernel(const int* image, int image_size, int* histo) {
  __shared__ int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < image_size; i += stride) {
    atomicAdd(local + image[i], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(histo + b, local[b]);
  }
}

// The inclusive scan of one value per thread across a block of kBins threads.
__device__ int block_inclusive_scan(int x) {
  __shared__ int warp_totals[kBins / kWarp];
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
#pragma unroll
  for (int offset = 1; offset < kWarp; offset <<= 1) {
    const int y = __shfl_up_sync(kFullMask, x, offset);
    if (lane >= offset) x += y;
  }
  if (lane == kWarp - 1) warp_totals[warp] = x;
  __syncthreads();
  for (int w = 0; w < warp; ++w) x += warp_totals[w];
  return x;
}

// (6a) One block of kBins threads, one bin each.
__global__ void cumulative_kernel(const int* histo, int* cdf) {
  const int v = threadIdx.x;
  cdf[v] = block_inclusive_scan(histo[v]);
}

// (6b) The report's find_if as a compaction: exactly one bin has a non-zero cdf
// and a scanned predicate of 1, the first non-zero one.
__global__ void first_non_zero_kernel(const int* cdf, int* cdf_min) {
  const int v = threadIdx.x;
  const int value = cdf[v];
  const int predicate = value != 0;
  const int rank = block_inclusive_scan(predicate);
  if (predicate == 1 && rank == 1) *cdf_min = value;
}

// (7) The report's expression, in float, with roundf; one grey level (0 / 0)
// gives 0.
__global__ void equalize_kernel(int* image, int image_size, const int* cdf, const int* cdf_min) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= image_size) return;
  const int low = *cdf_min;
  if (image_size == low) {
    image[i] = 0;
    return;
  }
  image[i] = static_cast<int>(
      roundf(((cdf[image[i]] - low) / static_cast<float>(image_size - low)) * 255.0f));
}

// (8) lab3's reduction: a grid-stride sum in a register, warp shuffles, one value
// per warp through shared memory, one atomicAdd per block.
__global__ void reduce_sum_kernel(const int* image, int image_size, int* total) {
  __shared__ int warp_sums[kThreads / kWarp];
  const int stride = gridDim.x * blockDim.x;
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < image_size; i += stride) sum += image[i];
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset >>= 1) {
    sum += __shfl_down_sync(kFullMask, sum, offset);
  }
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    int block = 0;
    for (int w = 0; w < kThreads / kWarp; ++w) block += warp_sums[w];
    atomicAdd(total, block);
  }
}

}  // namespace

void apply_map_branchy(int* image, int image_size) {
  map_branchy_kernel<<<blocks_for(image_size, kThreads), kThreads>>>(image, image_size);
}

void apply_map_constant(int* image, int image_size) {
  map_constant_kernel<<<blocks_for(image_size, kThreads), kThreads>>>(image, image_size);
}

void histogram_global(const int* image, int image_size, int* histo) {
  cudaMemsetAsync(histo, 0, kBins * sizeof(int));
  histogram_global_kernel<<<blocks_for(image_size, kThreads), kThreads>>>(image, image_size, histo);
}

void histogram_shared(const int* image, int image_size, int* histo) {
  cudaMemsetAsync(histo, 0, kBins * sizeof(int));
  histogram_shared_kernel<<<strided_blocks(image_size), kThreads>>>(image, image_size, histo);
}

void cumulative_histogram(const int* histo, int* cdf) {
  cumulative_kernel<<<1, kBins>>>(histo, cdf);
}

void first_non_zero(const int* cdf, int* cdf_min, Scratch scratch) {
  (void)scratch;  // one block scans the kBins predicates: no scratch needed
  first_non_zero_kernel<<<1, kBins>>>(cdf, cdf_min);
}

void equalize(int* image, int image_size, const int* cdf, const int* cdf_min) {
  equalize_kernel<<<blocks_for(image_size, kThreads), kThreads>>>(image, image_size, cdf, cdf_min);
}

void reduce_sum(const int* image, int image_size, int* total, Scratch scratch) {
  (void)scratch;
  cudaMemsetAsync(total, 0, sizeof(int));
  reduce_sum_kernel<<<strided_blocks(image_size), kThreads>>>(image, image_size, total);
}

}  // namespace lab6
