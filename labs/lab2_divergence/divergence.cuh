// lab2 contract: every function the harness calls. The student writes their
// kernels in skeletons/lab2_divergence/divergence_kernels.cu (reference:
// solutions/...), which includes the launchers from divergence_launchers.cuh.
//
// Each launcher receives device pointers, sizes and a block size, sizes its own grid,
// launches on the default stream and returns without synchronizing or allocating. Outputs arrive
// full of garbage (NaN): every element < n must be written, none at or past n. Every kernel must
// work for any n >= 1.
//
// The branch bodies are given below and must be called, not rewritten: the tests
// compare your outputs bit for bit with the CPU running the same functions (fmaf is
// correctly rounded on both sides, so the results are identical).
#pragma once
#include <cuda_runtime.h>

#include <cmath>

namespace lab2 {

inline constexpr int kWarp = 32;  // warpSize on every NVIDIA GPU so far

// Threads per block: a multiple of 32 (the course's first guideline), 32..1024.
struct Launch {
  int threads;
};

// ---- The branch bodies: enough dependent work for divergence to show -------------
// 256 dependent FMAs each. Tiny bodies (a = 2; b = 1;) are turned into predicated
// instructions by the compiler and never diverge: see the README's textbook numbers.
inline constexpr int kBodyFmas = 256;

__host__ __device__ inline float work_even(float x) {
#pragma unroll 16
  for (int j = 0; j < kBodyFmas; ++j) x = fmaf(x, 0.999f, 0.001f);
  return x;
}

__host__ __device__ inline float work_odd(float x) {
#pragma unroll 16
  for (int j = 0; j < kBodyFmas; ++j) x = fmaf(x, -0.998f, 0.002f);
  return x;
}

// The 32 bodies of the 32-way switch: case K runs 64 dependent FMAs with its own
// constants (exact multiples of 2^-12, so host and device agree on them).
inline constexpr int kCaseFmas = 64;

template <int K>
__host__ __device__ inline float case_work(float x) {
  constexpr float a = 0.96875f + K * (1.0f / 1024);
  constexpr float b = (K + 1) * (1.0f / 4096);
#pragma unroll 8
  for (int j = 0; j < kCaseFmas; ++j) x = fmaf(x, a, b);
  return x;
}

// The course's `switch (i % 32) { case 0: x[i] = a(x[i]); ... case 31: ... }`:
// 32 different code paths, chosen by k in 0..31.
__host__ __device__ inline float switch_work(int k, float x) {
  // clang-format cannot settle on a layout for a row of macro calls.
  // clang-format off
  switch (k) {
#define LAB2_CASE(K) \
  case K:            \
    return case_work<K>(x);
    LAB2_CASE(0) LAB2_CASE(1) LAB2_CASE(2) LAB2_CASE(3) LAB2_CASE(4) LAB2_CASE(5)
    LAB2_CASE(6) LAB2_CASE(7) LAB2_CASE(8) LAB2_CASE(9) LAB2_CASE(10) LAB2_CASE(11)
    LAB2_CASE(12) LAB2_CASE(13) LAB2_CASE(14) LAB2_CASE(15) LAB2_CASE(16) LAB2_CASE(17)
    LAB2_CASE(18) LAB2_CASE(19) LAB2_CASE(20) LAB2_CASE(21) LAB2_CASE(22) LAB2_CASE(23)
    LAB2_CASE(24) LAB2_CASE(25) LAB2_CASE(26) LAB2_CASE(27) LAB2_CASE(28) LAB2_CASE(29)
    LAB2_CASE(30) LAB2_CASE(31)
#undef LAB2_CASE
  }
  // clang-format on
  return x;
}

// ---- 1. Even/odd: out[i] = i even ? work_even(in[i]) : work_odd(in[i]) -----------
// Three kernels, one result; only which thread computes which element differs.
// (a) thread i computes element i and branches on i % 2: every warp diverges
//     (the course's pari_dispari / `tid % 2 == 0`).
void even_odd(const float* in, int n, float* out, Launch launch);
// (b) the branch is on (tid / warpSize) % 2: even-numbered warps take the even
//     elements, odd-numbered warps the odd ones, so no warp diverges. The grid must
//     cover n rounded up to 64 threads.
void warp_aligned(const float* in, int n, float* out, Launch launch);
// (c) the branch is on threadIdx.x < blockDim.x / 2 (the course's `tid < SIZE / 2`):
//     the first half of a block takes its even elements, the second half the odd
//     ones; at most one warp per block diverges (none when the half is a multiple of 32).
void half_block(const float* in, int n, float* out, Launch launch);

// ---- 2. The 32-way switch: out[i] = switch_work(i % 32, in[i]) -------------------
// (d) thread i computes element i: the 32 lanes of every warp take 32 paths.
void switch_divergent(const float* in, int n, float* out, Launch launch);
// (e) the same result with every warp on one path: warp w of each group of 32 warps
//     (1024 threads) takes the elements whose i % 32 == w. The grid must cover n
//     rounded up to 1024 threads.
void switch_uniform(const float* in, int n, float* out, Launch launch);

// ---- 3. simpleDivergence, in place: data[i] = (i % 32 < 16) ? data[i] * 2 : data[i] + 1
// (f) the course's kernel for any n: the first 16 lanes of each warp double, the last
//     16 add one. (Values stay within +-2^29 in the tests: no overflow.)
void simple_divergence(int* data, int n, Launch launch);

// ---- 4. sumMatrixOnGPU2D: C = A + B, ny rows of nx floats, row-major -------------
struct Block2D {
  int x, y;  // block shape, x * y <= 1024
};
// (g) one thread per element, 2D grid and 2D blocks (block.x along a row).
void sum_matrix_2d(const float* A, const float* B, float* C, int nx, int ny, Block2D block);

}  // namespace lab2
