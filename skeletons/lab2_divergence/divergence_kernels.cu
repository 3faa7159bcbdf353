// lab2: your kernels. Read labs/lab2_divergence/README.md and the contract
// labs/lab2_divergence/divergence.cuh first.
//
// The launchers are written, in labs/lab2_divergence/divergence_launchers.cuh:
// they size the grid and launch your kernels, by the names below. Every kernel
// must work for any n >= 1 (the grid may have more threads than elements:
// check bounds) and must call the given bodies (work_even, work_odd, switch_work),
// not rewrite them.
#include "divergence.cuh"

namespace lab2 {
namespace {

// (a) The course's pari_dispari with real work: thread i (global index) computes
// element i; if i is even, out[i] = work_even(in[i]), else out[i] = work_odd(in[i]).
__global__ void even_odd_kernel(const float* in, int n, float* out) {
  // TODO
}

// (b) Same result, no divergent warp: branch on warp = tid / warpSize.
// Hint: warps 2k and 2k+1 share the 64 elements [64k, 64k + 64); lane l of the even
// warp takes element 64k + 2l (work_even), lane l of the odd warp 64k + 2l + 1 (work_odd).
__global__ void warp_aligned_kernel(const float* in, int n, float* out) {
  // TODO
}

// (c) Same result, branch on threadIdx.x < blockDim.x / 2 (the course's tid < SIZE / 2).
// Hint: block b owns elements [b * blockDim.x, (b + 1) * blockDim.x); its first half
// takes the even offsets 0, 2, 4, ..., its second half the odd offsets 1, 3, 5, ...
__global__ void half_block_kernel(const float* in, int n, float* out) {
  // TODO
}

// (d) The course's worst case: out[i] = switch_work(i % 32, in[i]) for thread i.
__global__ void switch_divergent_kernel(const float* in, int n, float* out) {
  // TODO
}

// (e) Same result, every warp on one case. Hint: a group of 32 warps (1024 threads)
// owns 1024 elements; lane l of warp w in the group takes element
// group * 1024 + l * 32 + w, whose case is w for the whole warp.
__global__ void switch_uniform_kernel(const float* in, int n, float* out) {
  // TODO
}

// (f) simpleDivergence for any n: if (i % 32 < 16) data[i] *= 2; else data[i] += 1;
__global__ void simple_divergence_kernel(int* data, int n) {
  // TODO
}

// (g) sumMatrixOnGPU2D: ix = blockIdx.x * blockDim.x + threadIdx.x (column),
// iy likewise in y (row); if both are inside the matrix, C[iy * nx + ix] = A[...] + B[...].
__global__ void sum_matrix_2d_kernel(const float* A, const float* B, float* C, int nx, int ny) {
  // TODO
}

}  // namespace

}  // namespace lab2

// The launchers, fixed by the lab: they size the grids and launch the kernels above
// by name.
#include "divergence_launchers.cuh"
