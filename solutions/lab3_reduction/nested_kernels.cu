#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab3: your nested reductions, (11)-(13) of labs/lab3_reduction/reduction.cuh.
// Read the README's "Nested reduction" first: CUDA 12 removed device-side
// cudaDeviceSynchronize(), so the course's kernels need their modern form.
//
// This file alone is compiled with relocatable device code and linked with the
// device runtime (cudadevrt): only its kernels may launch kernels. Each block
// reduces its chunk of blockDim.x elements (reduction_nested_launchers.cuh fixes the grids);
// `data` is padded past n with GARBAGE, so zero your element first when it lies
// at or past n. Every thread of a block must reach every __syncthreads().
#else
// lab3 reference solution: the nested reductions (dynamic parallelism).
//
// The course's gpuRecursiveReduce, gpuRecursiveReduceNosync and
// gpuRecursiveReduce2 in their CUDA 12 form (CDP2): a parent can no longer wait
// for its child, so what ran after the course's cudaDeviceSynchronize() runs in a
// tail launch, which starts once the launching grid and all its children are done.
#endif
#include <climits>

#include "reduction.cuh"

namespace lab3 {
namespace {

#if !LAB_SKELETON
// This block's chunk, with this thread's element zeroed when it lies past n.
__device__ int* own_chunk(int* g_idata, int n) {
  const long long start = static_cast<long long>(blockIdx.x) * blockDim.x;
  int* idata = g_idata + start;
  if (start + threadIdx.x >= n) idata[threadIdx.x] = 0;
  __syncthreads();
  return idata;
}

__global__ void nested_child_kernel(int* idata, int isize);

// One level of (11): the block adds the upper half of its isize elements onto the
// lower half, then its thread 0 launches the next level on the lower half. The
// __syncthreads() makes the whole block's sums visible to thread 0, whose writes
// the child is guaranteed to see.
__device__ void nested_level(int* idata, int isize) {
  const int istride = isize / 2;
  if (static_cast<int>(threadIdx.x) < istride) idata[threadIdx.x] += idata[threadIdx.x + istride];
  __syncthreads();
  if (threadIdx.x == 0 && istride > 1) nested_child_kernel<<<1, istride>>>(idata, istride);
}

__global__ void nested_child_kernel(int* idata, int isize) { nested_level(idata, isize); }

// What followed the course's explicit synchronisation: every chunk's sum, left at
// its first element by the last child, copied to partial.
__global__ void gather_sums_kernel(const int* g_idata, int chunk, int blocks, int* g_odata) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < blocks) g_odata[b] = g_idata[static_cast<long long>(b) * chunk];
}
#endif

#if LAB_SKELETON
// (11) gpuRecursiveReduce. A level reduces isize elements with isize threads:
//   idata[tid] += idata[tid + isize / 2] for tid < isize / 2; __syncthreads();
//   thread 0 launches the next level, a child grid <<<1, isize / 2>>>, on the
//   same idata, down to 2 elements. The chunk's sum ends in idata[0].
// The course then called cudaDeviceSynchronize() to wait for the child: gone
// since CUDA 12. Instead, thread 0 of block 0 launches, once, a kernel into
// cudaStreamTailLaunch (the 4th launch parameter) that copies every chunk's first
// element to g_odata[b]: a tail launch starts after this grid and all the child
// grids it launched, at any depth, are complete. (Write the level as a
// __device__ function: a __global__ one cannot be called without <<< >>>.)
#else
// (11) Every block starts its own tree of one-block child grids (depth log2 of the
// block), and one tail launch reads the sums once every tree is complete.
#endif
__global__ void nested_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
  nested_level(own_chunk(g_idata, n), blockDim.x);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    gather_sums_kernel<<<(gridDim.x + 255) / 256, 256, 0, cudaStreamTailLaunch>>>(
        g_idata, blockDim.x, gridDim.x, g_odata);
  }
#endif
}

#if !LAB_SKELETON
__global__ void nosync_child_kernel(int* idata, int* odata, int isize);

// One level of (12): as (11), but the level of 2 elements writes the chunk's sum.
__device__ void nosync_level(int* idata, int* odata, int isize) {
  if (isize == 2) {
    if (threadIdx.x == 0) *odata = idata[0] + idata[1];
    return;
  }
  const int istride = isize / 2;
  if (static_cast<int>(threadIdx.x) < istride) idata[threadIdx.x] += idata[threadIdx.x + istride];
  __syncthreads();
  if (threadIdx.x == 0) nosync_child_kernel<<<1, istride>>>(idata, odata, istride);
}

__global__ void nosync_child_kernel(int* idata, int* odata, int isize) {
  nosync_level(idata, odata, isize);
}
#endif

#if LAB_SKELETON
// (12) gpuRecursiveReduceNosync: the same levels, but the level of 2 elements
// writes idata[0] + idata[1] to the block's g_odata[blockIdx.x] itself (pass
// that address down), and nothing waits: each child only reads what its parent
// wrote before launching it, and the host's wait covers every child grid, since a
// grid is complete only when its children are.
#else
// (12) The data only flows down the tree, so no level waits for another.
#endif
__global__ void nested_nosync_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
  nosync_level(own_chunk(g_idata, n), g_odata + blockIdx.x, blockDim.x);
#endif
}

#if LAB_SKELETON
// (13) gpuRecursiveReduce2: a grid of every block, istride threads each (half the
// chunk, idim = blockDim.x of (1)): thread t of block b adds element t + istride
// of its chunk, g_idata + b * idim, onto element t (the first level: 0 for the
// elements at or past n; pass LLONG_MAX as n below it). Only thread 0 of block 0
// launches the next level, <<<gridDim.x, istride / 2>>>; at istride 1, thread 0
// writes idata[0] + idata[1] to g_odata[blockIdx.x]. The course launched it on the
// default stream, where it may start before the other blocks of this grid have
// written: launch it into cudaStreamTailLaunch, which waits for the whole grid.
#else
// (13) One launch per level for the whole grid: log2(block) launches in all. The
// tail launch orders the levels: each starts once every block of the last is done.
#endif
__global__ void nested2_kernel(int* g_idata, long long n, int* g_odata, int istride, int idim) {
#if LAB_SKELETON
  // TODO
#else
  const long long start = static_cast<long long>(blockIdx.x) * idim;
  int* idata = g_idata + start;
  if (istride == 1) {
    if (threadIdx.x == 0) g_odata[blockIdx.x] = idata[0] + idata[1];
    return;
  }
  const long long i = start + threadIdx.x;
  const int lo = i < n ? idata[threadIdx.x] : 0;
  const int hi = i + istride < n ? idata[threadIdx.x + istride] : 0;
  idata[threadIdx.x] = lo + hi;
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    nested2_kernel<<<gridDim.x, istride / 2, 0, cudaStreamTailLaunch>>>(g_idata, LLONG_MAX, g_odata,
                                                                        istride / 2, idim);
  }
#endif
}

}  // namespace

}  // namespace lab3

// The launchers of (11)-(13), fixed by the lab: they launch the kernels above by name.
#include "reduction_nested_launchers.cuh"
