// lab5: matrix-product kernels (a typical student solution, written from the
// README, the contract matmul.cuh and the skeleton's hints).
#include "matmul.cuh"

namespace lab5 {
namespace {

int div_up(int a, int b) { return (a + b - 1) / b; }

// (a) The course's matrix_prod, rectangular: row from y, column from x.
__global__ void naive_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < m) {
    float val = 0.0f;
    for (int l = 0; l < k; ++l) {
      val += A[static_cast<size_t>(row) * k + l] * B[static_cast<size_t>(l) * m + col];
    }
    C[static_cast<size_t>(row) * m + col] = val;
  }
}

// (a') The same with the mapping swapped: row from x, column from y.
__global__ void naive_swapped_kernel(const float* A, const float* B, float* C, int n, int k,
                                     int m) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  const int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < m) {
    float val = 0.0f;
    for (int l = 0; l < k; ++l) {
      val += A[static_cast<size_t>(row) * k + l] * B[static_cast<size_t>(l) * m + col];
    }
    C[static_cast<size_t>(row) * m + col] = val;
  }
}

// (b) One thread per product A(i,l) * B(l,j), l = blockIdx.z, atomicAdd into C.
__global__ void fine_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int l = blockIdx.z;
  if (row < n && col < m && l < k) {
    atomicAdd(&C[static_cast<size_t>(row) * m + col],
              A[static_cast<size_t>(row) * k + l] * B[static_cast<size_t>(l) * m + col]);
  }
}

// (c) Shared-memory tiles, Tile x Tile threads, zeros outside the matrices.
template <int Tile>
__global__ void tiled_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  __shared__ float As[Tile][Tile];
  __shared__ float Bs[Tile][Tile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty;
  const int col = blockIdx.x * Tile + tx;
  float acc = 0.0f;
  for (int t0 = 0; t0 < k; t0 += Tile) {
    As[ty][tx] = (row < n && t0 + tx < k) ? A[static_cast<size_t>(row) * k + t0 + tx] : 0.0f;
    Bs[ty][tx] = (t0 + ty < k && col < m) ? B[static_cast<size_t>(t0 + ty) * m + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < Tile; ++j) acc += As[ty][j] * Bs[j][tx];
    __syncthreads();
  }
  if (row < n && col < m) C[static_cast<size_t>(row) * m + col] = acc;
}

// (d) Register blocking: a 64 x 64 tile of C per block of 256 threads, 4 x 4 outputs
// per thread; thread (ty, tx) = (t / 16, t % 16) owns rows ty + 16 i, columns tx + 16 j.
constexpr int kRbTile = 64;
constexpr int kRbStep = 16;

__global__ void __launch_bounds__(256)
    regblock_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  __shared__ float As[kRbTile][kRbStep];
  __shared__ float Bs[kRbStep][kRbTile];
  const int t = threadIdx.x;
  const int tx = t % 16;
  const int ty = t / 16;
  const int row0 = blockIdx.y * kRbTile;
  const int col0 = blockIdx.x * kRbTile;

  float acc[4][4] = {};
  for (int k0 = 0; k0 < k; k0 += kRbStep) {
    // 64 x 16 of A and 16 x 64 of B: 4 elements of each per thread.
    for (int e = t; e < kRbTile * kRbStep; e += 256) {
      const int r = e / kRbStep;
      const int c = e % kRbStep;
      const int gr = row0 + r;
      const int gc = k0 + c;
      As[r][c] = (gr < n && gc < k) ? A[static_cast<size_t>(gr) * k + gc] : 0.0f;
    }
    for (int e = t; e < kRbStep * kRbTile; e += 256) {
      const int r = e / kRbTile;
      const int c = e % kRbTile;
      const int gr = k0 + r;
      const int gc = col0 + c;
      Bs[r][c] = (gr < k && gc < m) ? B[static_cast<size_t>(gr) * m + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kRbStep; ++kk) {
      float a[4];
      float b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[ty + 16 * i][kk];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + ty + 16 * i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int c = col0 + tx + 16 * j;
      if (r < n && c < m) C[static_cast<size_t>(r) * m + c] = acc[i][j];
    }
  }
}

// (e) Best: a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread,
// steps of 8 along k. A's tile is stored transposed (padded against bank conflicts on
// the stores) so that a thread reads its 8 values of A and of B as two float4 each.
// Written for a general sub-matrix (leading dimensions lda, ldb, ldc) so that the
// MQDB product can reuse it on each diagonal block.
constexpr int kBM = 128;
constexpr int kBN = 128;
constexpr int kBK = 8;
constexpr int kBestThreads = 256;

// C[M x N] = A[M x K] B[K x N]; this block computes the tile at (row0, col0).
__device__ void gemm_tile(const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                          int M, int N, int K, int row0, int col0) {
  __shared__ __align__(16) float As[kBK][kBM + 4];
  __shared__ __align__(16) float Bs[kBK][kBN];
  const int t = threadIdx.x;
  const int tx = t % 16;  // columns tx * 8 .. tx * 8 + 7 of the tile
  const int ty = t / 16;  // rows ty * 8 .. ty * 8 + 7 of the tile

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  }

  for (int k0 = 0; k0 < K; k0 += kBK) {
#pragma unroll
    for (int q = 0; q < (kBM * kBK) / kBestThreads; ++q) {
      const int e = t + q * kBestThreads;
      const int r = e / kBK;
      const int c = e % kBK;
      const int gr = row0 + r;
      const int gc = k0 + c;
      As[c][r] = (gr < M && gc < K) ? A[static_cast<size_t>(gr) * lda + gc] : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < (kBK * kBN) / kBestThreads; ++q) {
      const int e = t + q * kBestThreads;
      const int r = e / kBN;
      const int c = e % kBN;
      const int gr = k0 + r;
      const int gc = col0 + c;
      Bs[r][c] = (gr < K && gc < N) ? B[static_cast<size_t>(gr) * ldb + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[kk][ty * 8]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[kk][ty * 8 + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[kk][tx * 8]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[kk][tx * 8 + 4]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
      }
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + ty * 8 + i;
    if (r >= M) continue;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int c = col0 + tx * 8 + j;
      if (c < N) C[static_cast<size_t>(r) * ldc + c] = acc[i][j];
    }
  }
}

__global__ void __launch_bounds__(kBestThreads)
    best_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  gemm_tile(A, k, B, m, C, m, n, m, k, blockIdx.y * kBM, blockIdx.x * kBN);
}

// (f) MQDB, one thread per element of a diagonal block; blockIdx.z is the block.
__global__ void mqdb_naive_kernel(const float* A, const float* B, float* C, int n,
                                  const int* offset) {
  const int b = blockIdx.z;
  const int off = offset[b];
  const int d = offset[b + 1] - off;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < d && col < d) {
    float val = 0.0f;
    for (int l = 0; l < d; ++l) {
      val += A[static_cast<size_t>(off + row) * n + off + l] *
             B[static_cast<size_t>(off + l) * n + off + col];
    }
    C[static_cast<size_t>(off + row) * n + off + col] = val;
  }
}

// (g) The best tile code on each diagonal block (a d x d sub-matrix, leading
// dimension n). Tiles past the block's size leave at once (the whole block: no
// barrier is skipped by part of it).
__global__ void __launch_bounds__(kBestThreads)
    mqdb_best_kernel(const float* A, const float* B, float* C, int n, const int* offset) {
  const int b = blockIdx.z;
  const int off = offset[b];
  const int d = offset[b + 1] - off;
  const int row0 = blockIdx.y * kBM;
  const int col0 = blockIdx.x * kBN;
  if (row0 >= d || col0 >= d) return;
  const size_t corner = static_cast<size_t>(off) * n + off;
  gemm_tile(A + corner, n, B + corner, n, C + corner, n, d, d, d, row0, col0);
}

// (h) One thread per element of C, all n x n: find the diagonal block of the row
// from the block sizes; inside it the inner product of (f), outside 0.
__global__ void mqdb_struct_kernel(const MqdbStruct* A, const MqdbStruct* B, float* C) {
  const int n = A->n;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  int off = 0;
  int d = 0;
  for (int b = 0; b < A->k; ++b) {
    d = A->block_size[b];
    if (row < off + d) break;
    off += d;
  }
  float val = 0.0f;
  if (col >= off && col < off + d) {
    const float* a = A->elem;
    const float* bm = B->elem;
    for (int l = off; l < off + d; ++l) {
      val += a[static_cast<size_t>(row) * n + l] * bm[static_cast<size_t>(l) * n + col];
    }
  }
  C[static_cast<size_t>(row) * n + col] = val;
}

}  // namespace

void matmul_fine(const float* A, const float* B, float* C, int n, int k, int m, Launch launch) {
  cudaMemsetAsync(C, 0, sizeof(float) * n * m);
  const dim3 block(launch.block_x, launch.block_y);
  const dim3 grid(div_up(m, block.x), div_up(n, block.y), k);
  fine_kernel<<<grid, block>>>(A, B, C, n, k, m);
}

void matmul_regblock(const float* A, const float* B, float* C, int n, int k, int m) {
  const dim3 grid(div_up(m, kRbTile), div_up(n, kRbTile));
  regblock_kernel<<<grid, 256>>>(A, B, C, n, k, m);
}

void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {
  const dim3 grid(div_up(m, kBN), div_up(n, kBM));
  best_kernel<<<grid, kBestThreads>>>(A, B, C, n, k, m);
}

void mqdb_naive(const MqdbDevice& A, const MqdbDevice& B, MqdbDevice& C, Launch launch) {
  cudaMemsetAsync(C.elem, 0, sizeof(float) * C.n * C.n);
  const dim3 block(launch.block_x, launch.block_y);
  const dim3 grid(div_up(C.max_block, block.x), div_up(C.max_block, block.y), C.k);
  mqdb_naive_kernel<<<grid, block>>>(A.elem, B.elem, C.elem, C.n, C.offset);
}

void mqdb_best(const MqdbDevice& A, const MqdbDevice& B, MqdbDevice& C) {
  cudaMemsetAsync(C.elem, 0, sizeof(float) * C.n * C.n);
  const dim3 grid(div_up(C.max_block, kBN), div_up(C.max_block, kBM), C.k);
  mqdb_best_kernel<<<grid, kBestThreads>>>(A.elem, B.elem, C.elem, C.n, C.offset);
}

MqdbStruct* mqdb_from_host(const MqdbStruct& host) {
  const size_t elems = static_cast<size_t>(host.n) * host.n;
  int* sizes = nullptr;
  float* elem = nullptr;
  MqdbStruct* device = nullptr;
  // 1. The arrays the struct points to.
  cudaMalloc(reinterpret_cast<void**>(&sizes), sizeof(int) * host.k);
  cudaMalloc(reinterpret_cast<void**>(&elem), sizeof(float) * elems);
  cudaMemcpy(sizes, host.block_size, sizeof(int) * host.k, cudaMemcpyHostToDevice);
  cudaMemcpy(elem, host.elem, sizeof(float) * elems, cudaMemcpyHostToDevice);
  // 2. A copy of the struct with the device pointers in it.
  MqdbStruct patched = host;
  patched.block_size = sizes;
  patched.elem = elem;
  // 3. The struct itself on the device.
  cudaMalloc(reinterpret_cast<void**>(&device), sizeof(MqdbStruct));
  cudaMemcpy(device, &patched, sizeof(MqdbStruct), cudaMemcpyHostToDevice);
  return device;
}

void mqdb_struct_product(const MqdbStruct* A, const MqdbStruct* B, float* C, int n) {
  const dim3 block(16, 16);
  mqdb_struct_kernel<<<dim3(div_up(n, 16), div_up(n, 16)), block>>>(A, B, C);
}

void mqdb_free(MqdbStruct* device) {
  if (device == nullptr) return;
  MqdbStruct copy;
  cudaMemcpy(&copy, device, sizeof(MqdbStruct), cudaMemcpyDeviceToHost);
  cudaFree(const_cast<int*>(copy.block_size));
  cudaFree(const_cast<float*>(copy.elem));
  cudaFree(device);
}

}  // namespace lab5

// The launchers of (a), (a') and (c), fixed by the lab: they launch the kernels above by
// name.
#include "matmul_launchers.cuh"
