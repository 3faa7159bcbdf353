// lab2: the launchers, fixed by the lab: each sizes its grid for n (or the
// matrix) and launch.threads (or the 2D block), as the contract says. They are
// definitions, not declarations: the student's file includes this once, at its
// end, after the kernels they launch (even_odd_kernel ... sum_matrix_2d_kernel).
#pragma once
#include "divergence.cuh"

namespace lab2 {
namespace {

// Blocks of `threads` threads covering `total` threads.
unsigned blocks_for(long long total, int threads) {
  return static_cast<unsigned>((total + threads - 1) / threads);
}
long long round_up(long long n, long long m) { return (n + m - 1) / m * m; }

}  // namespace

void even_odd(const float* in, int n, float* out, Launch launch) {
  even_odd_kernel<<<blocks_for(n, launch.threads), launch.threads>>>(in, n, out);
}

void warp_aligned(const float* in, int n, float* out, Launch launch) {
  // Whole pairs of warps: n rounded up to 64 threads.
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
  // Whole groups of 32 warps: n rounded up to 1024 threads.
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
