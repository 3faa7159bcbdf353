// lab3: nested reductions (11)-(13) with dynamic parallelism, in their CUDA 12
// (CDP2) form (a typical student solution, written from the README's "Nested
// reduction", the contract and the skeleton's hints).
#include <climits>

#include "reduction.cuh"

namespace lab3 {
namespace {

// ---- (11) gpuRecursiveReduce --------------------------------------------------

__global__ void nested_child_kernel(int* idata, int isize);

// One level on idata[0 .. isize), with blockDim.x == isize threads: the upper half
// is added onto the lower half, then thread 0 launches the next level on the lower
// half, down to 2 elements. The chunk's sum ends in idata[0].
__device__ void nested_level(int* idata, int isize) {
  const unsigned tid = threadIdx.x;
  if (isize == 2) {
    if (tid == 0) idata[0] += idata[1];
    return;
  }
  const int istride = isize / 2;
  if (tid < static_cast<unsigned>(istride)) idata[tid] += idata[tid + istride];
  __syncthreads();  // the child sees the whole block's writes
  if (tid == 0) nested_child_kernel<<<1, istride>>>(idata, istride);
}

__global__ void nested_child_kernel(int* idata, int isize) { nested_level(idata, isize); }

// Tail-launched once every tree is complete: chunk b's sum is at its first element.
__global__ void collect_kernel(const int* g_idata, int chunk, int blocks, int* g_odata) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < blocks) g_odata[b] = g_idata[static_cast<long long>(b) * chunk];
}

__global__ void nested_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = g_idata + static_cast<long long>(blockIdx.x) * blockDim.x;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + tid;
  if (idx >= n) idata[tid] = 0;
  __syncthreads();
  nested_level(idata, blockDim.x);
  // What came after the course's cudaDeviceSynchronize(): a tail launch, which starts
  // once this grid and every child grid it launched are complete.
  if (blockIdx.x == 0 && tid == 0) {
    collect_kernel<<<(gridDim.x + 255) / 256, 256, 0, cudaStreamTailLaunch>>>(g_idata, blockDim.x,
                                                                              gridDim.x, g_odata);
  }
}

// ---- (12) gpuRecursiveReduceNosync --------------------------------------------

__global__ void nosync_child_kernel(int* idata, int isize, int* out);

// The same levels; the level of 2 elements writes the chunk's sum to *out.
__device__ void nosync_level(int* idata, int isize, int* out) {
  const unsigned tid = threadIdx.x;
  if (isize == 2) {
    if (tid == 0) *out = idata[0] + idata[1];
    return;
  }
  const int istride = isize / 2;
  if (tid < static_cast<unsigned>(istride)) idata[tid] += idata[tid + istride];
  __syncthreads();
  if (tid == 0) nosync_child_kernel<<<1, istride>>>(idata, istride, out);
}

__global__ void nosync_child_kernel(int* idata, int isize, int* out) {
  nosync_level(idata, isize, out);
}

__global__ void nested_nosync_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = g_idata + static_cast<long long>(blockIdx.x) * blockDim.x;
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + tid;
  if (idx >= n) idata[tid] = 0;
  __syncthreads();
  nosync_level(idata, blockDim.x, g_odata + blockIdx.x);
}

// ---- (13) gpuRecursiveReduce2 -------------------------------------------------

// A grid of every block, istride threads each; block b's chunk starts at b * idim.
// Elements at or past n count as 0 (n is LLONG_MAX below the first level).
__global__ void nested2_kernel(int* g_idata, long long n, int* g_odata, int istride, int idim) {
  const unsigned tid = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * idim;
  int* idata = g_idata + base;
  if (istride == 1) {
    if (tid == 0) {
      const int a = base < n ? idata[0] : 0;
      const int b = base + 1 < n ? idata[1] : 0;
      g_odata[blockIdx.x] = a + b;
    }
    return;
  }
  const int a = base + tid < n ? idata[tid] : 0;
  const int b = base + tid + istride < n ? idata[tid + istride] : 0;
  idata[tid] = a + b;
  // Tail launch: the next level starts once every block of this grid is done.
  if (tid == 0 && blockIdx.x == 0) {
    nested2_kernel<<<gridDim.x, istride / 2, 0, cudaStreamTailLaunch>>>(g_idata, LLONG_MAX, g_odata,
                                                                        istride / 2, idim);
  }
}

}  // namespace

}  // namespace lab3

// The launchers of (11)-(13), fixed by the lab: they launch the kernels above by name.
#include "reduction_nested_launchers.cuh"
