// lab1's yardsticks (lab1.hpp): the course's global-atomics and shared-memory kernels and
// CUB's histogram,
// a unit of its own because CUB takes long to compile.
#include <cub/device/device_histogram.cuh>

#include "lab1.hpp"
#include "labs/cuda_check.hpp"

namespace lab1 {
namespace {

__global__ void course_global_kernel(const int* t, int n, int* h, int slice) {
  const long long pos = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * slice;
  for (int i = 0; i < slice; i++) {
    if (pos + i < n) atomicAdd(h + t[pos + i], 1);
  }
}

__global__ void course_shared_kernel(const int* t, int n, int* h, int slice) {
  __shared__ int histo[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) histo[b] = 0;
  __syncthreads();
  const long long pos = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * slice;
  const long long end = min(pos + slice, static_cast<long long>(n));
  for (long long i = pos; i < end; i++) atomicAdd(histo + t[i], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (histo[b]) atomicAdd(h + b, histo[b]);
  }
}

}  // namespace

void course_shared_histogram(const int* samples, int n, int* hist, Launch launch) {
  LAB_CUDA_CHECK(cudaMemsetAsync(hist, 0, kBins * sizeof(int)));
  course_shared_kernel<<<launch.blocks, launch.threads>>>(samples, n, hist, launch.slice);
  LAB_CHECK_LAUNCH();
}

void course_global_histogram(const int* samples, int n, int* hist) {
  constexpr int threads = 512, slice = 1024;
  const int blocks =
      static_cast<int>((static_cast<long long>(n) + threads * slice - 1) / (threads * slice));
  LAB_CUDA_CHECK(cudaMemsetAsync(hist, 0, kBins * sizeof(int)));
  course_global_kernel<<<blocks, threads>>>(samples, n, hist, slice);
  LAB_CHECK_LAUNCH();
}

std::size_t cub_histogram_temp_bytes(int n) {
  std::size_t bytes = 0;
  LAB_CUDA_CHECK(
      cub::DeviceHistogram::HistogramEven(nullptr, bytes, static_cast<const int*>(nullptr),
                                          static_cast<int*>(nullptr), kBins + 1, 0, kBins, n));
  return bytes;
}

void cub_histogram(const int* samples, int n, int* hist, void* temp, std::size_t temp_bytes) {
  LAB_CUDA_CHECK(
      cub::DeviceHistogram::HistogramEven(temp, temp_bytes, samples, hist, kBins + 1, 0, kBins, n));
}

}  // namespace lab1
