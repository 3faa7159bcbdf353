// lab5 contract: every function the harness calls, defined in
// skeletons/lab5_matmul/matmul_kernels.cu (reference: solutions/...). The
// student writes the kernels of (a), (a') and (c), which that file launches through
// matmul_launchers.cuh, and every other launcher with its kernel(s).
//
// Matrices are float32, row-major, in device memory, 256-byte aligned:
//   A  n x k  (element (i, l) at A[i * k + l])
//   B  k x m  (element (l, j) at B[l * m + j])
//   C  n x m  (element (i, j) at C[i * m + j]), full of GARBAGE (NaN) on entry:
//      every element must be written.
// Any n, k, m >= 1: sizes are NOT multiples of your block or tile sizes, and the
// matrices are rectangular. Each launcher launches its kernel(s) on the default
// stream and returns without synchronizing or allocating, except (h)'s mqdb_from_host
// and mqdb_free, whose exercise is allocating, copying and freeing. Student code may
// not call cuBLAS (or any other library's product): it is the yardstick.
#pragma once
#include <cuda_runtime.h>

namespace lab5 {

// The thread-block shape for the variants whose block the lab program chooses
// (naive, fine, mqdb_naive): block_x * block_y threads, at most 1024. The tiled
// variants fix their own block from their tile size and ignore it.
struct Launch {
  int block_x;
  int block_y;
};

// (a) The course's matrix_prod, generalized to rectangular matrices: one thread per
//     element of C (granularity "case 2": n * m threads, each an inner product of
//     length k). 2D grid of 2D blocks; the row comes from y, the column from x:
//       Row = blockIdx.y * blockDim.y + threadIdx.y,  Col = blockIdx.x * blockDim.x + threadIdx.x.
void matmul_naive(const float* A, const float* B, float* C, int n, int k, int m, Launch launch);

// (a') The same kernel with the mapping swapped, question 1 made measurable: the row
//      from x, the column from y,
//       Row = blockIdx.x * blockDim.x + threadIdx.x,  Col = blockIdx.y * blockDim.y + threadIdx.y,
//      so that the threads of a warp walk down a column of C instead of along a row.
void matmul_naive_swapped(const float* A, const float* B, float* C, int n, int k, int m,
                          Launch launch);

// (b) Granularity "case 1": one thread per single product A(i,l) * B(l,j), n * m * k
//     threads (grid z = l), each adding its product to C(i,j) with atomicAdd
//     (C must be zeroed first). Tested only on small sizes (k <= 65535).
void matmul_fine(const float* A, const float* B, float* C, int n, int k, int m, Launch launch);

// (c) Shared-memory tiles: Tile x Tile threads per block, each loading one element
//     of A's and one of B's Tile x Tile tiles per step. Tile = 16 and Tile = 32
//     (explicit instantiations, in matmul_launchers.cuh).
template <int Tile>
void matmul_tiled(const float* A, const float* B, float* C, int n, int k, int m);

// (d) Register blocking: each thread computes several outputs (e.g. a 64 x 64 block
//     tile, 256 threads, 4 x 4 outputs per thread held in registers).
void matmul_regblock(const float* A, const float* B, float* C, int n, int k, int m);

// (e) Your fastest dense product, any method (no libraries). The timing tests
//     compare it with cuBLAS SGEMM (FP32, no tensor cores) in the same run.
void matmul_best(const float* A, const float* B, float* C, int n, int k, int m);

// ---- The MQDB challenge: block-diagonal square matrices -------------------------
// A matrix of type <n, D>, D = {d_0, ..., d_{k-1}}, sum d_i = n: k square blocks on
// the main diagonal, block b spanning rows and columns [offset[b], offset[b+1]),
// zeros everywhere else. The product of two <n, D> matrices is again <n, D>.
// The device structure the harness builds (host struct in mqdb.hpp): the pointers
// inside it are device pointers, except host_offset, which the launcher may read to
// choose its grid (it must not pass it to a kernel).
struct MqdbDevice {
  int n;                   // matrix size
  int k;                   // number of diagonal blocks
  const int* offset;       // device: k + 1 prefix sums, offset[0] = 0, offset[k] = n
  const int* host_offset;  // host copy of the same k + 1 values
  int max_block;           // the largest d_i
  float* elem;             // device: n * n elements, row-major (zeros outside the blocks)
};

// (f) One thread per element of C inside the diagonal blocks (the course's Row/Col
//     mapping inside each block), thread block launch.block_x x launch.block_y.
//     C arrives as garbage: the zeros outside the blocks must be written too.
void mqdb_naive(const MqdbDevice& A, const MqdbDevice& B, MqdbDevice& C, Launch launch);

// (g) Your fastest MQDB product (it must touch only the diagonal blocks' work).
void mqdb_best(const MqdbDevice& A, const MqdbDevice& B, MqdbDevice& C);

// ---- The course's warning: a struct with pointers inside ------------------------------
// The challenge hands its matrices over as the course's host `struct mqdb`: plain data
// whose arrays sit behind pointers. Copying the struct copies the pointers, not what
// they point to: in device memory, a host pointer is an address the kernel cannot follow.
struct MqdbStruct {
  int n;                  // matrix size
  int k;                  // number of diagonal blocks
  const int* block_size;  // the k sizes d_i, sum n
  const float* elem;      // n * n elements, row-major, zeros outside the blocks
};

// (h) The course's warning made an exercise, in three functions the harness calls in
//     this order (your code may call none of them):
//   1. mqdb_from_host(A), then mqdb_from_host(B): the deep copy of a host struct.
//      cudaMalloc and cudaMemcpy its block sizes (k ints) and its elements (n * n
//      floats), then cudaMalloc a device MqdbStruct and cudaMemcpy into it a copy of
//      the struct with those device pointers in place of the host ones. Returns the
//      device struct. The harness checks the copy (device memory all through, the same
//      n, k, block sizes and elements), then draws new blocks into the elements your
//      copy points to: from then on, the matrices to multiply exist only there.
//   2. mqdb_struct_product(dA, dB, C, n): C = A B, n * n floats in device memory,
//      garbage on entry: every element must be written, the zeros too. Launch a kernel
//      that reads A and B through the device structs; no copies, no allocations.
//   3. mqdb_free(dA), then mqdb_free(dB): copy the struct back to the host to find its
//      two arrays, and cudaFree them and the struct.
// cudaMalloc only in mqdb_from_host, cudaMemcpy only there and in mqdb_free, cudaFree
// only in mqdb_free (lab.json "objects"), each called directly: not through a helper.
MqdbStruct* mqdb_from_host(const MqdbStruct& host);
void mqdb_struct_product(const MqdbStruct* A, const MqdbStruct* B, float* C, int n);
void mqdb_free(MqdbStruct* device);

}  // namespace lab5
