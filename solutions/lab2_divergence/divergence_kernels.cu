#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab2: your kernels. Read labs/lab2_divergence/README.md and the contract
// labs/lab2_divergence/divergence.cuh first.
//
// The launchers are written, in labs/lab2_divergence/divergence_launchers.cuh:
// they size the grid and launch your kernels, by the names below. Every kernel
// must work for any n >= 1 (the grid may have more threads than elements:
// check bounds) and must call the given bodies (work_even, work_odd, switch_work),
// not rewrite them.
#else
// lab2 reference solution: the divergent kernels of the exercise and their
// divergence-free twins.
#endif
#include "divergence.cuh"

namespace lab2 {
namespace {

#if LAB_SKELETON
// (a) The course's pari_dispari with real work: thread i (global index) computes
// element i; if i is even, out[i] = work_even(in[i]), else out[i] = work_odd(in[i]).
#else
__device__ long long global_tid() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// (a) Every warp holds 16 even and 16 odd threads: it runs work_even with half its
// lanes masked off, then work_odd with the other half: twice the time.
#endif
__global__ void even_odd_kernel(const float* in, int n, float* out) {
#if LAB_SKELETON
  // TODO
#else
  const long long i = global_tid();
  if (i >= n) return;
  if (i % 2 == 0) {
    out[i] = work_even(in[i]);
  } else {
    out[i] = work_odd(in[i]);
  }
#endif
}

#if LAB_SKELETON
// (b) Same result, no divergent warp: branch on warp = tid / warpSize.
// Hint: warps 2k and 2k+1 share the 64 elements [64k, 64k + 64); lane l of the even
// warp takes element 64k + 2l (work_even), lane l of the odd warp 64k + 2l + 1 (work_odd).
#else
// (b) Warps 2k and 2k+1 share elements [64k, 64k + 64): warp 2k takes the 32 even
// ones, warp 2k+1 the 32 odd ones. The branch is the same for a whole warp.
#endif
__global__ void warp_aligned_kernel(const float* in, int n, float* out) {
#if LAB_SKELETON
  // TODO
#else
  const long long tid = global_tid();
  const long long warp = tid / warpSize;
  const int lane = static_cast<int>(tid % warpSize);
  const long long i = (warp / 2) * 2 * warpSize + 2 * lane + (warp % 2);
  if (i >= n) return;
  if (warp % 2 == 0) {
    out[i] = work_even(in[i]);
  } else {
    out[i] = work_odd(in[i]);
  }
#endif
}

#if LAB_SKELETON
// (c) Same result, branch on threadIdx.x < blockDim.x / 2 (the course's tid < SIZE / 2).
// Hint: block b owns elements [b * blockDim.x, (b + 1) * blockDim.x); its first half
// takes the even offsets 0, 2, 4, ..., its second half the odd offsets 1, 3, 5, ...
#else
// (c) Block b owns elements [b * T, b * T + T) (T even, so b * T is even): its first
// T/2 threads take the even offsets, the others the odd ones.
#endif
__global__ void half_block_kernel(const float* in, int n, float* out) {
#if LAB_SKELETON
  // TODO
#else
  const int half = blockDim.x / 2;
  const int t = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x;
  if (t < half) {
    const long long i = base + 2 * t;
    if (i < n) out[i] = work_even(in[i]);
  } else {
    const long long i = base + 2 * (t - half) + 1;
    if (i < n) out[i] = work_odd(in[i]);
  }
#endif
}

#if LAB_SKELETON
// (d) The course's worst case: out[i] = switch_work(i % 32, in[i]) for thread i.
#else
// (d) Lane l of every warp takes case l: the warp runs all 32 cases one after the other.
#endif
__global__ void switch_divergent_kernel(const float* in, int n, float* out) {
#if LAB_SKELETON
  // TODO
#else
  const long long i = global_tid();
  if (i < n) out[i] = switch_work(static_cast<int>(i % kWarp), in[i]);
#endif
}

#if LAB_SKELETON
// (e) Same result, every warp on one case. Hint: a group of 32 warps (1024 threads)
// owns 1024 elements; lane l of warp w in the group takes element
// group * 1024 + l * 32 + w, whose case is w for the whole warp.
#else
// (e) 32 warps (1024 threads) own 1024 elements; warp w takes the 32 elements with
// i % 32 == w, so all its lanes run case w. The loads are strided (one element per
// 128-byte line per lane), a price the 32x shorter path pays for many times over.
#endif
__global__ void switch_uniform_kernel(const float* in, int n, float* out) {
#if LAB_SKELETON
  // TODO
#else
  const long long tid = global_tid();
  const long long group = tid / (kWarp * kWarp);
  const int w = static_cast<int>((tid / kWarp) % kWarp);
  const int lane = static_cast<int>(tid % kWarp);
  const long long i = group * kWarp * kWarp + lane * kWarp + w;
  if (i < n) out[i] = switch_work(w, in[i]);
#endif
}

#if LAB_SKELETON
// (f) simpleDivergence for any n: if (i % 32 < 16) data[i] *= 2; else data[i] += 1;
#else
// (f) The course's simpleDivergence, extended to any n.
#endif
__global__ void simple_divergence_kernel(int* data, int n) {
#if LAB_SKELETON
  // TODO
#else
  const long long i = global_tid();
  if (i >= n) return;
  if (i % kWarp < 16) {
    data[i] *= 2;
  } else {
    data[i] += 1;
  }
#endif
}

#if LAB_SKELETON
// (g) sumMatrixOnGPU2D: ix = blockIdx.x * blockDim.x + threadIdx.x (column),
// iy likewise in y (row); if both are inside the matrix, C[iy * nx + ix] = A[...] + B[...].
#else
// (g) sumMatrixOnGPU2D: ix along a row (consecutive threads, consecutive addresses).
#endif
__global__ void sum_matrix_2d_kernel(const float* A, const float* B, float* C, int nx, int ny) {
#if LAB_SKELETON
  // TODO
#else
  const unsigned ix = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix < static_cast<unsigned>(nx) && iy < static_cast<unsigned>(ny)) {
    const size_t idx = static_cast<size_t>(iy) * nx + ix;
    C[idx] = A[idx] + B[idx];
  }
#endif
}

}  // namespace

}  // namespace lab2

// The launchers, fixed by the lab: they size the grids and launch the kernels above
// by name.
#include "divergence_launchers.cuh"
