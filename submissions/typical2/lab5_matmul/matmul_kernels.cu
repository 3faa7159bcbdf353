// lab5: the matrix products and the MQDB challenge (contract: labs/lab5_matmul/matmul.cuh).
//
// A is n x k, B is k x m, C is n x m, row-major. Sizes divide no tile: every load
// past an edge reads 0 and every store is bounds-checked.
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

// (a') The same with the mapping swapped: a warp walks down a column of C.
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

// (b) One thread per single product, added to C atomically (C zeroed by the launcher).
__global__ void fine_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int l = blockIdx.z;
  if (row < n && col < m && l < k) {
    atomicAdd(&C[static_cast<size_t>(row) * m + col],
              A[static_cast<size_t>(row) * k + l] * B[static_cast<size_t>(l) * m + col]);
  }
}

// (c) Shared-memory tiles: one element of A's tile and one of B's per thread per
// step, zeros past the edges, two barriers per step reached by every thread.
template <int Tile>
__global__ void tiled_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  __shared__ float As[Tile][Tile];
  __shared__ float Bs[Tile][Tile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty;
  const int col = blockIdx.x * Tile + tx;
  float val = 0.0f;
  for (int t0 = 0; t0 < k; t0 += Tile) {
    As[ty][tx] = row < n && t0 + tx < k ? A[static_cast<size_t>(row) * k + t0 + tx] : 0.0f;
    Bs[ty][tx] = t0 + ty < k && col < m ? B[static_cast<size_t>(t0 + ty) * m + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int l = 0; l < Tile; ++l) val += As[ty][l] * Bs[l][tx];
    __syncthreads();
  }
  if (row < n && col < m) C[static_cast<size_t>(row) * m + col] = val;
}

// (d) Register blocking: a 64 x 64 tile of C per block of 256 threads, 4 x 4
// outputs per thread; thread (ty, tx) owns rows ty + 16 i and columns tx + 16 j.
constexpr int kRegTile = 64;
constexpr int kRegStep = 16;

__global__ void __launch_bounds__(256)
    regblock_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  __shared__ float As[kRegTile][kRegStep + 1];  // + 1: rows land on different banks
  __shared__ float Bs[kRegStep][kRegTile];
  const int t = threadIdx.x;
  const int ty = t / 16;
  const int tx = t % 16;
  const int row0 = blockIdx.y * kRegTile;
  const int col0 = blockIdx.x * kRegTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < k; k0 += kRegStep) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int e = t + 256 * q;
      const int ar = e / kRegStep;
      const int ac = e % kRegStep;
      const int grow = row0 + ar;
      const int gk = k0 + ac;
      As[ar][ac] = grow < n && gk < k ? A[static_cast<size_t>(grow) * k + gk] : 0.0f;
      const int br = e / kRegTile;
      const int bc = e % kRegTile;
      const int bk = k0 + br;
      const int gcol = col0 + bc;
      Bs[br][bc] = bk < k && gcol < m ? B[static_cast<size_t>(bk) * m + gcol] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int l = 0; l < kRegStep; ++l) {
      float a[4];
      float b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[ty + 16 * i][l];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[l][tx + 16 * j];
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
    const int row = row0 + ty + 16 * i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int col = col0 + tx + 16 * j;
      if (row < n && col < m) C[static_cast<size_t>(row) * m + col] = acc[i][j];
    }
  }
}

// ---- (e) The fast tile: 128 x 128 of C per block of 256 threads, 8 x 8 outputs per
// thread, steps of 8 along k. A's tile is stored transposed so that a thread reads
// its 8 values of A, like its 8 of B, as two float4; two shared buffers let the next
// step's global loads fly while this step computes (one barrier per step). Global
// loads and stores are float4 where the matrix's leading dimension and base allow,
// element by element (checked) elsewhere. The same code multiplies the MQDB blocks.
constexpr int kBestTile = 128;
constexpr int kBestStep = 8;
constexpr int kBestThreads = 256;

// A rows x cols matrix with leading dimension ld, and whether its rows can be read
// as float4 (base 16-byte aligned, ld a multiple of 4).
struct Matrix {
  const float* p;
  long long ld;
  int rows;
  int cols;
  bool vec;
};

__device__ bool aligned16(const void* p, long long ld) {
  return (reinterpret_cast<unsigned long long>(p) & 15) == 0 && ld % 4 == 0;
}

// Elements (r, c .. c + 3), 0 outside the matrix; c is a multiple of 4.
__device__ float4 load4(const Matrix& a, int r, int c) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (r >= a.rows) return v;
  const float* q = a.p + r * a.ld + c;
  if (a.vec && c + 3 < a.cols) return *reinterpret_cast<const float4*>(q);
  if (c < a.cols) v.x = q[0];
  if (c + 1 < a.cols) v.y = q[1];
  if (c + 2 < a.cols) v.z = q[2];
  if (c + 3 < a.cols) v.w = q[3];
  return v;
}

// Elements (r, c .. c + 3) of C, those inside it.
__device__ void store4(float* p, long long ld, int rows, int cols, bool vec, int r, int c,
                       float4 v) {
  if (r >= rows) return;
  float* q = p + r * ld + c;
  if (vec && c + 3 < cols) {
    *reinterpret_cast<float4*>(q) = v;
    return;
  }
  if (c < cols) q[0] = v.x;
  if (c + 1 < cols) q[1] = v.y;
  if (c + 2 < cols) q[2] = v.z;
  if (c + 3 < cols) q[3] = v.w;
}

// The block's 128 x 128 tile at (row0, col0) of C = A B (A rows x inner, B inner x
// cols, C rows x cols with leading dimension ldc).
__device__ void product_tile(const Matrix& a, const Matrix& b, float* c, long long ldc, bool c_vec,
                             int row0, int col0) {
  __shared__ __align__(16) float As[2][kBestStep][kBestTile];  // transposed: As[l][row]
  __shared__ __align__(16) float Bs[2][kBestStep][kBestTile];
  const int t = threadIdx.x;
  // What this thread loads: 4 consecutive elements of a row of A's and of B's tile.
  const int a_row = t / 2;
  const int a_col = (t % 2) * 4;
  const int b_row = t / 32;
  const int b_col = (t % 32) * 4;
  // What it computes: rows ty * 4 + i and 64 + ty * 4 + i, the same for columns.
  const int ty = t / 16;
  const int tx = t % 16;
  const int inner = a.cols;

  float acc[8][8] = {};
  float4 a_next = load4(a, row0 + a_row, a_col);
  float4 b_next = load4(b, b_row, col0 + b_col);
  int buf = 0;
  As[0][a_col + 0][a_row] = a_next.x;
  As[0][a_col + 1][a_row] = a_next.y;
  As[0][a_col + 2][a_row] = a_next.z;
  As[0][a_col + 3][a_row] = a_next.w;
  *reinterpret_cast<float4*>(&Bs[0][b_row][b_col]) = b_next;
  __syncthreads();

  for (int k0 = 0; k0 < inner; k0 += kBestStep) {
    const bool more = k0 + kBestStep < inner;
    if (more) {
      a_next = load4(a, row0 + a_row, k0 + kBestStep + a_col);
      b_next = load4(b, k0 + kBestStep + b_row, col0 + b_col);
    }
#pragma unroll
    for (int l = 0; l < kBestStep; ++l) {
      const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][l][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][l][64 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][l][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][l][64 + tx * 4]);
      const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] += av[i] * bv[j];
      }
    }
    if (more) {
      // The other buffer was last read before the previous step's barrier.
      const int next = buf ^ 1;
      As[next][a_col + 0][a_row] = a_next.x;
      As[next][a_col + 1][a_row] = a_next.y;
      As[next][a_col + 2][a_row] = a_next.z;
      As[next][a_col + 3][a_row] = a_next.w;
      *reinterpret_cast<float4*>(&Bs[next][b_row][b_col]) = b_next;
      buf = next;
    }
    __syncthreads();
  }

  const int rows = a.rows;
  const int cols = b.cols;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const int r = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
    store4(c, ldc, rows, cols, c_vec, r, col0 + tx * 4,
           make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
    store4(c, ldc, rows, cols, c_vec, r, col0 + 64 + tx * 4,
           make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
  }
}

__global__ void __launch_bounds__(kBestThreads, 2)
    best_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  const Matrix a{A, k, n, k, aligned16(A, k)};
  const Matrix b{B, m, k, m, aligned16(B, m)};
  product_tile(a, b, C, m, aligned16(C, m), blockIdx.y * kBestTile, blockIdx.x * kBestTile);
}

// (f) MQDB, one thread per element of a diagonal block (z = the block).
__global__ void mqdb_naive_kernel(const float* A, const float* B, float* C, int n,
                                  const int* offset) {
  const int b = blockIdx.z;
  const int off = offset[b];
  const int d = offset[b + 1] - off;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < d && col < d) {
    const size_t r = static_cast<size_t>(off + row) * n;
    float val = 0.0f;
    for (int l = 0; l < d; ++l) {
      val += A[r + off + l] * B[static_cast<size_t>(off + l) * n + off + col];
    }
    C[r + off + col] = val;
  }
}

// (g) The fast tile on each diagonal block (z = the block); tiles past a small
// block's edge do nothing.
__global__ void __launch_bounds__(kBestThreads, 2)
    mqdb_best_kernel(const float* A, const float* B, float* C, int n, const int* offset) {
  const int b = blockIdx.z;
  const int off = offset[b];
  const int d = offset[b + 1] - off;
  const int row0 = blockIdx.y * kBestTile;
  const int col0 = blockIdx.x * kBestTile;
  if (row0 >= d || col0 >= d) return;  // the whole block leaves, before any barrier
  const size_t corner = static_cast<size_t>(off) * n + off;
  const Matrix a{A + corner, n, d, d, aligned16(A + corner, n)};
  const Matrix bm{B + corner, n, d, d, aligned16(B + corner, n)};
  product_tile(a, bm, C + corner, n, aligned16(C + corner, n), row0, col0);
}

// (h) One thread per element of C, through the device structs: the row's diagonal
// block from the block sizes, the inner product of (f) inside it, 0 outside.
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
    const float* a = A->elem + static_cast<size_t>(row) * n;
    const float* bm = B->elem;
    for (int l = off; l < off + d; ++l) val += a[l] * bm[static_cast<size_t>(l) * n + col];
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
  const dim3 grid(div_up(m, kRegTile), div_up(n, kRegTile));
  regblock_kernel<<<grid, 256>>>(A, B, C, n, k, m);
}

void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {
  const dim3 grid(div_up(m, kBestTile), div_up(n, kBestTile));
  best_kernel<<<grid, kBestThreads>>>(A, B, C, n, k, m);
}

void mqdb_naive(const MqdbDevice& A, const MqdbDevice& B, MqdbDevice& C, Launch launch) {
  cudaMemsetAsync(C.elem, 0, sizeof(float) * C.n * C.n);  // the zeros outside the blocks
  const dim3 block(launch.block_x, launch.block_y);
  const dim3 grid(div_up(C.max_block, block.x), div_up(C.max_block, block.y), C.k);
  mqdb_naive_kernel<<<grid, block>>>(A.elem, B.elem, C.elem, C.n, C.offset);
}

void mqdb_best(const MqdbDevice& A, const MqdbDevice& B, MqdbDevice& C) {
  cudaMemsetAsync(C.elem, 0, sizeof(float) * C.n * C.n);
  const dim3 grid(div_up(C.max_block, kBestTile), div_up(C.max_block, kBestTile), C.k);
  mqdb_best_kernel<<<grid, kBestThreads>>>(A.elem, B.elem, C.elem, C.n, C.offset);
}

// (h) The deep copy: the arrays first, then the struct with their device addresses.
MqdbStruct* mqdb_from_host(const MqdbStruct& host) {
  const size_t sizes_bytes = sizeof(int) * host.k;
  const size_t elem_bytes = sizeof(float) * static_cast<size_t>(host.n) * host.n;
  int* block_size = nullptr;
  float* elem = nullptr;
  MqdbStruct* device = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&block_size), sizes_bytes) != cudaSuccess) return nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&elem), elem_bytes) != cudaSuccess) return nullptr;
  if (cudaMemcpy(block_size, host.block_size, sizes_bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(elem, host.elem, elem_bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    return nullptr;
  }
  MqdbStruct patched = host;
  patched.block_size = block_size;
  patched.elem = elem;
  if (cudaMalloc(reinterpret_cast<void**>(&device), sizeof(MqdbStruct)) != cudaSuccess) {
    return nullptr;
  }
  if (cudaMemcpy(device, &patched, sizeof(MqdbStruct), cudaMemcpyHostToDevice) != cudaSuccess) {
    return nullptr;
  }
  return device;
}

void mqdb_struct_product(const MqdbStruct* A, const MqdbStruct* B, float* C, int n) {
  const dim3 block(16, 16);
  mqdb_struct_kernel<<<dim3(div_up(n, 16), div_up(n, 16)), block>>>(A, B, C);
}

// The struct comes back to the host to name its arrays; cudaFree waits for the kernel.
void mqdb_free(MqdbStruct* device) {
  if (device == nullptr) return;
  MqdbStruct copy{};
  if (cudaMemcpy(&copy, device, sizeof(MqdbStruct), cudaMemcpyDeviceToHost) == cudaSuccess) {
    cudaFree(const_cast<int*>(copy.block_size));
    cudaFree(const_cast<float*>(copy.elem));
  }
  cudaFree(device);
}

}  // namespace lab5

// The launchers of (a), (a') and (c), fixed by the lab: they launch the kernels above by
// name.
#include "matmul_launchers.cuh"
