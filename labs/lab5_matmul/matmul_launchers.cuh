// lab5: the launchers of (a), (a') and (c), fixed by the lab: the naive products on
// launch.block_x x launch.block_y blocks, the tiled one on Tile x Tile blocks, one
// thread per element of C, as the contract says. They are definitions, not
// declarations: the student's file includes this once, at its end, after the
// kernels they launch (naive_kernel, naive_swapped_kernel, tiled_kernel<Tile>). The other
// launchers, which the student writes or may change, stay in the student's file.
#pragma once
#include "matmul.cuh"

namespace lab5 {

void matmul_naive(const float* A, const float* B, float* C, int n, int k, int m, Launch launch) {
  const dim3 block(launch.block_x, launch.block_y);
  const dim3 grid((m + block.x - 1) / block.x, (n + block.y - 1) / block.y);
  naive_kernel<<<grid, block>>>(A, B, C, n, k, m);
}

// Rows on x, columns on y: the grid's x covers n, its y covers m.
void matmul_naive_swapped(const float* A, const float* B, float* C, int n, int k, int m,
                          Launch launch) {
  const dim3 block(launch.block_x, launch.block_y);
  const dim3 grid((n + block.x - 1) / block.x, (m + block.y - 1) / block.y);
  naive_swapped_kernel<<<grid, block>>>(A, B, C, n, k, m);
}

// Tile = 16 and 32, the two the harness calls.
template <int Tile>
void matmul_tiled(const float* A, const float* B, float* C, int n, int k, int m) {
  const dim3 block(Tile, Tile);
  const dim3 grid((m + Tile - 1) / Tile, (n + Tile - 1) / Tile);
  tiled_kernel<Tile><<<grid, block>>>(A, B, C, n, k, m);
}
template void matmul_tiled<16>(const float*, const float*, float*, int, int, int);
template void matmul_tiled<32>(const float*, const float*, float*, int, int, int);

}  // namespace lab5
