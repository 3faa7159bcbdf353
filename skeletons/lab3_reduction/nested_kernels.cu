// lab3: your nested reductions, (11)-(13) of labs/lab3_reduction/reduction.cuh.
// Read the README's "Nested reduction" first: CUDA 12 removed device-side
// cudaDeviceSynchronize(), so the course's kernels need their modern form.
//
// This file alone is compiled with relocatable device code and linked with the
// device runtime (cudadevrt): only its kernels may launch kernels. Each block
// reduces its chunk of blockDim.x elements (reduction_nested_launchers.cuh fixes the grids);
// `data` is padded past n with GARBAGE, so zero your element first when it lies
// at or past n. Every thread of a block must reach every __syncthreads().
#include <climits>

#include "reduction.cuh"

namespace lab3 {
namespace {

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
__global__ void nested_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (12) gpuRecursiveReduceNosync: the same levels, but the level of 2 elements
// writes idata[0] + idata[1] to the block's g_odata[blockIdx.x] itself (pass
// that address down), and nothing waits: each child only reads what its parent
// wrote before launching it, and the host's wait covers every child grid, since a
// grid is complete only when its children are.
__global__ void nested_nosync_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (13) gpuRecursiveReduce2: a grid of every block, istride threads each (half the
// chunk, idim = blockDim.x of (1)): thread t of block b adds element t + istride
// of its chunk, g_idata + b * idim, onto element t (the first level: 0 for the
// elements at or past n; pass LLONG_MAX as n below it). Only thread 0 of block 0
// launches the next level, <<<gridDim.x, istride / 2>>>; at istride 1, thread 0
// writes idata[0] + idata[1] to g_odata[blockIdx.x]. The course launched it on the
// default stream, where it may start before the other blocks of this grid have
// written: launch it into cudaStreamTailLaunch, which waits for the whole grid.
__global__ void nested2_kernel(int* g_idata, long long n, int* g_odata, int istride, int idim) {
  // TODO
}

}  // namespace

}  // namespace lab3

// The launchers of (11)-(13), fixed by the lab: they launch the kernels above by name.
#include "reduction_nested_launchers.cuh"
