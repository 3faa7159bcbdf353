// lab6 steps 4-8: the image (a typical student solution, written from the README,
// the contract image_pipeline.cuh and the skeleton's hints).
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

constexpr int kThreads = 256;

// The map's four values, in constant memory.
__constant__ int c_map_delta[4] = {1, -5, 3, -8};

int blocks_for(long long n, long long per_block) {
  long long blocks = (n + per_block - 1) / per_block;
  if (blocks < 1) blocks = 1;
  return static_cast<int>(blocks);
}

// A grid of at most a few blocks per SM for the grid-stride kernels.
int grid_stride_blocks(long long n) {
  int device = 0;
  int sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (sms <= 0) sms = 1;
  const int needed = blocks_for(n, kThreads);
  return needed < sms * 8 ? needed : sms * 8;
}

// (4a) if / else if on i % 4, as the course's CPU loop.
__global__ void map_branchy_kernel(int* image, int image_size) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < image_size) {
    const int r = static_cast<int>(i % 4);
    if (r == 0) {
      image[i] += 1;
    } else if (r == 1) {
      image[i] += -5;
    } else if (r == 2) {
      image[i] += 3;
    } else {
      image[i] += -8;
    }
  }
}

// (4b) The four values in a __constant__ table, indexed with i & 3.
__global__ void map_constant_kernel(int* image, int image_size) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < image_size) image[i] += c_map_delta[i & 3];
}

// (5a) One atomicAdd in global memory per pixel.
__global__ void histogram_global_kernel(const int* image, int image_size, int* histo) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < image_size) atomicAdd(&histo[image[i]], 1);
}

// (5b) A histogram per block in shared memory (grid-stride loop), then its
// non-zero bins added to histo.
__global__ void histogram_shared_kernel(const int* image, int image_size, int* histo) {
  __shared__ int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < image_size;
       i += stride) {
    atomicAdd(&local[image[i]], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&histo[b], local[b]);
  }
}

// Inclusive scan (Hillis-Steele) of kBins values in shared memory, one block of
// kBins threads.
__device__ void scan_bins(int* s) {
  const int v = threadIdx.x;
  for (int offset = 1; offset < kBins; offset <<= 1) {
    const int add = v >= offset ? s[v - offset] : 0;
    __syncthreads();
    s[v] += add;
    __syncthreads();
  }
}

// (6a) cdf = the inclusive scan of the bins: one block of kBins threads.
__global__ void cumulative_kernel(const int* histo, int* cdf) {
  __shared__ int s[kBins];
  const int v = threadIdx.x;
  s[v] = histo[v];
  __syncthreads();
  scan_bins(s);
  cdf[v] = s[v];
}

// (6b) The predicate cdf[v] != 0, its inclusive scan; the one bin where both are 1
// is the first non-zero one.
__global__ void first_non_zero_kernel(const int* cdf, int* cdf_min) {
  __shared__ int s[kBins];
  const int v = threadIdx.x;
  const int value = cdf[v];
  const int predicate = value != 0 ? 1 : 0;
  s[v] = predicate;
  __syncthreads();
  scan_bins(s);
  if (predicate == 1 && s[v] == 1) *cdf_min = value;
}

// (7) The equalisation, the contract's expression; an image of one grey level
// (image_size == cdf_min) divides 0 by 0 and its pixels become 0.
__global__ void equalize_kernel(int* image, int image_size, const int* cdf, const int* cdf_min) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < image_size) {
    const int m = *cdf_min;
    if (image_size == m) {
      image[i] = 0;
    } else {
      const int pixel = image[i];
      image[i] = static_cast<int>(
          roundf(((cdf[pixel] - m) / static_cast<float>(image_size - m)) * 255.0f));
    }
  }
}

// (8) Each block reduces its pixels (grid-stride, warp shuffles), then one atomicAdd.
__global__ void reduce_sum_kernel(const int* image, int image_size, int* total) {
  __shared__ int warp_sums[kThreads / 32];
  int sum = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < image_size;
       i += stride) {
    sum += image[i];
  }
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < kThreads / 32 ? warp_sums[lane] : 0;
    for (int offset = 16; offset > 0; offset >>= 1) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (lane == 0) atomicAdd(total, sum);
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
  histogram_shared_kernel<<<grid_stride_blocks(image_size), kThreads>>>(image, image_size, histo);
}

void cumulative_histogram(const int* histo, int* cdf) {
  cumulative_kernel<<<1, kBins>>>(histo, cdf);
}

void first_non_zero(const int* cdf, int* cdf_min, Scratch scratch) {
  (void)scratch;  // one block is enough: no scratch needed
  first_non_zero_kernel<<<1, kBins>>>(cdf, cdf_min);
}

void equalize(int* image, int image_size, const int* cdf, const int* cdf_min) {
  equalize_kernel<<<blocks_for(image_size, kThreads), kThreads>>>(image, image_size, cdf, cdf_min);
}

void reduce_sum(const int* image, int image_size, int* total, Scratch scratch) {
  (void)scratch;
  cudaMemsetAsync(total, 0, sizeof(int));
  reduce_sum_kernel<<<grid_stride_blocks(image_size), kThreads>>>(image, image_size, total);
}

}  // namespace lab6
