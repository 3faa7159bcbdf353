// lab2: warp divergence kernels (a typical student solution, written from the
// README, the contract divergence.cuh and the skeleton's hints).
#include "divergence.cuh"

namespace lab2 {
namespace {

__device__ long long global_tid() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// (a) Thread i computes element i and branches on i % 2: every warp diverges.
__global__ void even_odd_kernel(const float* in, int n, float* out) {
  const long long i = global_tid();
  if (i < n) {
    if (i % 2 == 0) {
      out[i] = work_even(in[i]);
    } else {
      out[i] = work_odd(in[i]);
    }
  }
}

// (b) Branch on the warp: warps 2k and 2k + 1 share the elements [64k, 64k + 64),
// the even warp takes the even ones, the odd warp the odd ones.
__global__ void warp_aligned_kernel(const float* in, int n, float* out) {
  const long long tid = global_tid();
  const long long warp = tid / warpSize;
  const int lane = static_cast<int>(tid % warpSize);
  const long long pair = warp / 2;
  if (warp % 2 == 0) {
    const long long i = pair * 2 * kWarp + 2 * lane;
    if (i < n) out[i] = work_even(in[i]);
  } else {
    const long long i = pair * 2 * kWarp + 2 * lane + 1;
    if (i < n) out[i] = work_odd(in[i]);
  }
}

// (c) Branch on the half of the block: the first half takes the even offsets of the
// block's elements, the second half the odd ones.
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

// (d) Every lane of a warp takes a different case.
__global__ void switch_divergent_kernel(const float* in, int n, float* out) {
  const long long i = global_tid();
  if (i < n) out[i] = switch_work(static_cast<int>(i % 32), in[i]);
}

// (e) A group of 32 warps owns 1024 elements; lane l of warp w takes element
// group * 1024 + l * 32 + w, whose case is w for the whole warp.
__global__ void switch_uniform_kernel(const float* in, int n, float* out) {
  const long long tid = global_tid();
  const long long group = tid / (kWarp * kWarp);
  const int local = static_cast<int>(tid % (kWarp * kWarp));
  const int w = local / kWarp;
  const int l = local % kWarp;
  const long long i = group * kWarp * kWarp + l * kWarp + w;
  if (i < n) out[i] = switch_work(w, in[i]);
}

// (f) simpleDivergence: the first 16 lanes double, the last 16 add one.
__global__ void simple_divergence_kernel(int* data, int n) {
  const long long i = global_tid();
  if (i < n) {
    if (i % 32 < 16) {
      data[i] *= 2;
    } else {
      data[i] += 1;
    }
  }
}

// (g) sumMatrixOnGPU2D.
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
