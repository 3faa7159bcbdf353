// lab3: the nested reductions (11)-(13) in their CDP2 form (CUDA 12 has no
// device-side cudaDeviceSynchronize()): what came after the course's wait is
// tail-launched instead. This file alone is compiled with relocatable device code.
#include <climits>

#include "reduction.cuh"

namespace lab3 {
namespace {

// Zeroes this thread's element of the block's chunk when it lies past n; returns
// the chunk.
__device__ int* zeroed_chunk(int* g_idata, int n) {
  int* idata = g_idata + static_cast<long long>(blockIdx.x) * blockDim.x;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) idata[threadIdx.x] = 0;
  __syncthreads();
  return idata;
}

// ---- (11) gpuRecursiveReduce ----

__global__ void recursive_child_kernel(int* idata, int isize);

// One level: isize elements to isize / 2 with isize threads, then thread 0
// launches the next level on the lower half, down to 2 elements (the sum ends in
// idata[0]).
__device__ void recursive_level(int* idata, int isize) {
  const int tid = threadIdx.x;
  const int istride = isize / 2;
  if (tid < istride) idata[tid] += idata[tid + istride];
  __syncthreads();  // the whole block's sums written before the child reads them
  if (tid == 0 && istride > 1) recursive_child_kernel<<<1, istride>>>(idata, istride);
}

__global__ void recursive_child_kernel(int* idata, int isize) { recursive_level(idata, isize); }

// After every tree is complete: each chunk's sum, at its first element, to g_odata.
__global__ void copy_sums_kernel(const int* g_idata, int chunk, int blocks, int* g_odata) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < blocks) g_odata[b] = g_idata[static_cast<long long>(b) * chunk];
}

__global__ void nested_kernel(int* g_idata, int n, int* g_odata) {
  int* idata = zeroed_chunk(g_idata, n);
  recursive_level(idata, blockDim.x);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    // A tail launch starts once this grid and every child grid below it are done.
    constexpr int kThreads = 256;
    copy_sums_kernel<<<(gridDim.x + kThreads - 1) / kThreads, kThreads, 0, cudaStreamTailLaunch>>>(
        g_idata, blockDim.x, gridDim.x, g_odata);
  }
}

// ---- (12) gpuRecursiveReduceNosync ----

__global__ void nosync_child_kernel(int* idata, int isize, int* odata);

// The same levels; the level of 2 elements writes the chunk's sum itself.
__device__ void nosync_level(int* idata, int isize, int* odata) {
  const int tid = threadIdx.x;
  if (isize == 2) {
    if (tid == 0) *odata = idata[0] + idata[1];
    return;
  }
  const int istride = isize / 2;
  if (tid < istride) idata[tid] += idata[tid + istride];
  __syncthreads();
  if (tid == 0) nosync_child_kernel<<<1, istride>>>(idata, istride, odata);
}

__global__ void nosync_child_kernel(int* idata, int isize, int* odata) {
  nosync_level(idata, isize, odata);
}

__global__ void nested_nosync_kernel(int* g_idata, int n, int* g_odata) {
  int* idata = zeroed_chunk(g_idata, n);
  nosync_level(idata, blockDim.x, g_odata + blockIdx.x);
}

// ---- (13) gpuRecursiveReduce2 ----

// Element i of a chunk starting at global position `base`, 0 at or past n.
__device__ int element(const int* idata, long long base, int i, long long n) {
  return base + i < n ? idata[i] : 0;
}

// Every block at once, istride threads each: thread t adds element t + istride of its
// chunk onto element t. Only thread 0 of block 0 launches the next level, tail-launched
// so that it starts after every block of this level has written.
__global__ void nested2_kernel(int* g_idata, long long n, int* g_odata, int istride, int idim) {
  const long long base = static_cast<long long>(blockIdx.x) * idim;
  int* idata = g_idata + base;
  const int tid = threadIdx.x;
  if (istride == 1) {
    if (tid == 0) g_odata[blockIdx.x] = element(idata, base, 0, n) + element(idata, base, 1, n);
    return;
  }
  idata[tid] = element(idata, base, tid, n) + element(idata, base, tid + istride, n);
  if (blockIdx.x == 0 && tid == 0) {
    // Below the first level every element is a written sum: no bound.
    nested2_kernel<<<gridDim.x, istride / 2, 0, cudaStreamTailLaunch>>>(g_idata, LLONG_MAX, g_odata,
                                                                        istride / 2, idim);
  }
}

}  // namespace

}  // namespace lab3

// The launchers of (11)-(13), fixed by the lab: they launch the kernels above by name.
#include "reduction_nested_launchers.cuh"
