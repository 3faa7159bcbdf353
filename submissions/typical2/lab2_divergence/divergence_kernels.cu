// lab2: the divergence kernels (contract: labs/lab2_divergence/divergence.cuh).
// The launchers are the lab's (divergence_launchers.cuh, included at the end).
#include "divergence.cuh"

namespace lab2 {
namespace {

__device__ long long global_thread() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// (a) Thread i computes element i: even and odd lanes of every warp take
// different branches, so each warp runs both bodies one after the other.
__global__ void even_odd_kernel(const float* in, int n, float* out) {
  const long long i = global_thread();
  if (i >= n) return;
  if (i % 2 == 0) {
    out[i] = work_even(in[i]);
  } else {
    out[i] = work_odd(in[i]);
  }
}

// (b) The branch is on the warp's parity: warps 2k and 2k + 1 share the 64
// elements from 64k, the even warp taking the even ones, the odd warp the odd ones.
__global__ void warp_aligned_kernel(const float* in, int n, float* out) {
  const long long tid = global_thread();
  const long long warp = tid / kWarp;
  const long long lane = tid % kWarp;
  const long long first = (warp / 2) * 2 * kWarp;
  if (warp % 2 == 0) {
    const long long i = first + 2 * lane;
    if (i < n) out[i] = work_even(in[i]);
  } else {
    const long long i = first + 2 * lane + 1;
    if (i < n) out[i] = work_odd(in[i]);
  }
}

// (c) The branch is on the half of the block: the first half computes the block's
// even offsets, the second half its odd ones (blockDim.x is a multiple of 32, so
// the block's first element is even and no warp straddles the halves when the half
// is a multiple of 32).
__global__ void half_block_kernel(const float* in, int n, float* out) {
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x;
  const int half = blockDim.x / 2;
  if (static_cast<int>(threadIdx.x) < half) {
    const long long i = base + 2 * threadIdx.x;
    if (i < n) out[i] = work_even(in[i]);
  } else {
    const long long i = base + 2 * (threadIdx.x - half) + 1;
    if (i < n) out[i] = work_odd(in[i]);
  }
}

// (d) Every lane of a warp on its own case: 32 paths, one after the other.
__global__ void switch_divergent_kernel(const float* in, int n, float* out) {
  const long long i = global_thread();
  if (i < n) out[i] = switch_work(static_cast<int>(i % kWarp), in[i]);
}

// (e) Warp w of each group of 32 warps takes the elements of case w: lane l takes
// element group * 1024 + l * 32 + w, so the whole warp runs one case.
__global__ void switch_uniform_kernel(const float* in, int n, float* out) {
  const long long tid = global_thread();
  const long long group = tid / (kWarp * kWarp);
  const int w = static_cast<int>((tid / kWarp) % kWarp);
  const int lane = static_cast<int>(tid % kWarp);
  const long long i = group * kWarp * kWarp + lane * kWarp + w;
  if (i < n) out[i] = switch_work(w, in[i]);
}

// (f) The book's simpleDivergence, with a bound check.
__global__ void simple_divergence_kernel(int* data, int n) {
  const long long i = global_thread();
  if (i >= n) return;
  if (i % kWarp < kWarp / 2) {
    data[i] *= 2;
  } else {
    data[i] += 1;
  }
}

// (g) sumMatrixOnGPU2D: one thread per element, x along a row.
__global__ void sum_matrix_2d_kernel(const float* A, const float* B, float* C, int nx, int ny) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix < nx && iy < ny) {
    const long long idx = static_cast<long long>(iy) * nx + ix;
    C[idx] = A[idx] + B[idx];
  }
}

}  // namespace

}  // namespace lab2

// The launchers, fixed by the lab: they size the grids and launch the kernels above
// by name.
#include "divergence_launchers.cuh"
