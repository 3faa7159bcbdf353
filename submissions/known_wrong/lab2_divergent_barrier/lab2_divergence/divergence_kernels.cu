// KNOWN WRONG (lab2_divergent_barrier): half_block calls __syncthreads() inside the
// branch that only the first half of the block takes: a barrier that part of a warp
// never reaches (with 96 threads, warp 1 is split), which synccheck reports.
// The reference solution with exactly this one defect; the grader must
// reject it for this reason (submissions/known_wrong/manifest.json).
#include "divergence.cuh"

namespace lab2 {
namespace {

// Blocks of `threads` threads covering `total` threads.
unsigned blocks_for(long long total, int threads) {
  return static_cast<unsigned>((total + threads - 1) / threads);
}
long long round_up(long long n, long long m) { return (n + m - 1) / m * m; }

__device__ long long global_tid() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// (a) Every warp holds 16 even and 16 odd threads: it runs work_even with half its
// lanes masked off, then work_odd with the other half: twice the time.
__global__ void even_odd_kernel(const float* in, int n, float* out) {
  const long long i = global_tid();
  if (i >= n) return;
  if (i % 2 == 0) {
    out[i] = work_even(in[i]);
  } else {
    out[i] = work_odd(in[i]);
  }
}

// (b) Warps 2k and 2k+1 share elements [64k, 64k + 64): warp 2k takes the 32 even
// ones, warp 2k+1 the 32 odd ones. The branch is the same for a whole warp.
__global__ void warp_aligned_kernel(const float* in, int n, float* out) {
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
}

// (c) Block b owns elements [b * T, b * T + T) (T even, so b * T is even): its first
// T/2 threads take the even offsets, the others the odd ones.
__global__ void half_block_kernel(const float* in, int n, float* out) {
  const int half = blockDim.x / 2;
  const int t = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x;
  if (t < half) {
    const long long i = base + 2 * t;
    if (i < n) out[i] = work_even(in[i]);
    __syncthreads();  // DEFECT: only half of the block reaches it
  } else {
    const long long i = base + 2 * (t - half) + 1;
    if (i < n) out[i] = work_odd(in[i]);
  }
}

// (d) Lane l of every warp takes case l: the warp runs all 32 cases one after the other.
__global__ void switch_divergent_kernel(const float* in, int n, float* out) {
  const long long i = global_tid();
  if (i < n) out[i] = switch_work(static_cast<int>(i % kWarp), in[i]);
}

// (e) 32 warps (1024 threads) own 1024 elements; warp w takes the 32 elements with
// i % 32 == w, so all its lanes run case w. The loads are strided (one element per
// 128-byte line per lane), a price the 32x shorter path pays for many times over.
__global__ void switch_uniform_kernel(const float* in, int n, float* out) {
  const long long tid = global_tid();
  const long long group = tid / (kWarp * kWarp);
  const int w = static_cast<int>((tid / kWarp) % kWarp);
  const int lane = static_cast<int>(tid % kWarp);
  const long long i = group * kWarp * kWarp + lane * kWarp + w;
  if (i < n) out[i] = switch_work(w, in[i]);
}

// (f) The course's simpleDivergence, extended to any n.
__global__ void simple_divergence_kernel(int* data, int n) {
  const long long i = global_tid();
  if (i >= n) return;
  if (i % kWarp < 16) {
    data[i] *= 2;
  } else {
    data[i] += 1;
  }
}

// (g) sumMatrixOnGPU2D: ix along a row (consecutive threads, consecutive addresses).
__global__ void sum_matrix_2d_kernel(const float* A, const float* B, float* C, int nx, int ny) {
  const unsigned ix = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned iy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ix < static_cast<unsigned>(nx) && iy < static_cast<unsigned>(ny)) {
    const size_t idx = static_cast<size_t>(iy) * nx + ix;
    C[idx] = A[idx] + B[idx];
  }
}

}  // namespace

void even_odd(const float* in, int n, float* out, Launch launch) {
  even_odd_kernel<<<blocks_for(n, launch.threads), launch.threads>>>(in, n, out);
}

void warp_aligned(const float* in, int n, float* out, Launch launch) {
  warp_aligned_kernel<<<blocks_for(round_up(n, 2 * kWarp), launch.threads), launch.threads>>>(in, n,
                                                                                              out);
}

void half_block(const float* in, int n, float* out, Launch launch) {
  half_block_kernel<<<blocks_for(n, launch.threads), launch.threads>>>(in, n, out);
}

void switch_divergent(const float* in, int n, float* out, Launch launch) {
  switch_divergent_kernel<<<blocks_for(n, launch.threads), launch.threads>>>(in, n, out);
}

void switch_uniform(const float* in, int n, float* out, Launch launch) {
  switch_uniform_kernel<<<blocks_for(round_up(n, kWarp * kWarp), launch.threads), launch.threads>>>(
      in, n, out);
}

void simple_divergence(int* data, int n, Launch launch) {
  simple_divergence_kernel<<<blocks_for(n, launch.threads), launch.threads>>>(data, n);
}

void sum_matrix_2d(const float* A, const float* B, float* C, int nx, int ny, Block2D block) {
  const dim3 threads(block.x, block.y);
  const dim3 grid((nx + block.x - 1) / block.x, (ny + block.y - 1) / block.y);
  sum_matrix_2d_kernel<<<grid, threads>>>(A, B, C, nx, ny);
}

}  // namespace lab2
