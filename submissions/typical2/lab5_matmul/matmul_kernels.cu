// lab5: your matrix-product kernels. Read labs/lab5_matmul/README.md and the
// contract labs/lab5_matmul/matmul.cuh first.
//
// A is n x k, B is k x m, C is n x m, all row-major float in device memory. C
// arrives full of NaN: every element must be written. Sizes are rectangular and
// are NOT multiples of your block or tile sizes: check bounds (or load zeros past
// the edges). Don't synchronize or allocate in the launchers: the harness does that.
// No libraries: the harness compares you with a library product, you write your own.
#include "matmul.cuh"

namespace lab5 {
namespace {

int div_up(int a, int b) { return (a + b - 1) / b; }

// (a) The course's matrix_prod, rectangular. One thread per element of C:
//   Row = blockIdx.y * blockDim.y + threadIdx.y;  Col = blockIdx.x * blockDim.x + threadIdx.x;
// if (Row < n && Col < m): val = sum over l < k of A[Row * k + l] * B[l * m + Col].
// (The course's kernel indexes B with M for both sizes: that only works for square matrices.)
// Hint: index with size_t: 10000 x 10000 is close to the int limit.
__global__ void naive_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  // TODO
}

// (a') The same product with the mapping swapped (question 1): the row from x, the
// column from y,
//   Row = blockIdx.x * blockDim.x + threadIdx.x;  Col = blockIdx.y * blockDim.y + threadIdx.y;
// the same bounds check and inner product as (a). The launcher (matmul_launchers.cuh)
// covers n with the grid's x and m with its y.
__global__ void naive_swapped_kernel(const float* A, const float* B, float* C, int n, int k,
                                     int m) {
  // TODO
}

// (b) One thread per product: l = blockIdx.z, then
// atomicAdd(&C[Row * m + Col], A[Row * k + l] * B[l * m + Col]). C must be zero first.
__global__ void fine_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  // TODO
}

// (c) Tile x Tile threads per block. For each step t0 = 0, Tile, 2 Tile, ... < k:
// each thread loads one element of A's tile and one of B's tile into
// __shared__ float As[Tile][Tile], Bs[Tile][Tile] (0 outside the matrices),
// __syncthreads(), adds its Tile products, __syncthreads() again before the next
// load. Every thread of the block must reach both barriers: don't return early.
template <int Tile>
__global__ void tiled_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  // TODO
}

// (d) Register blocking: a block of 256 threads computes a 64 x 64 tile of C, each
// thread 4 x 4 of its elements in registers (float acc[4][4]). Per step, load a
// 64 x 16 tile of A and a 16 x 64 tile of B into shared memory (4 elements of each
// per thread), then for each of the 16 columns read 4 values of A and 4 of B into
// registers and do the 16 multiply-adds. Hint: thread (ty, tx) = (t / 16, t % 16)
// owning rows ty + 16 i and columns tx + 16 j keeps reads conflict-free and stores
// coalesced.
__global__ void regblock_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  // TODO
}

// (e) Your fastest product. Ideas, in the order they paid off for us: a 128 x 128
// tile per block with 8 x 8 outputs per thread; A's tile stored transposed in shared
// memory so a thread reads its 8 values as two float4; 16-byte global loads when the
// sizes allow (keep a checked path for the others); two shared buffers so the next
// tile's loads overlap this tile's math (one barrier per step);
// __launch_bounds__(256, 2) so two blocks fit per SM. Measure each step (ncu).
__global__ void best_kernel(const float* A, const float* B, float* C, int n, int k, int m) {
  // TODO
}

// (f) MQDB, one thread per element of a diagonal block: blockIdx.z = b is the block,
// off = offset[b], d = offset[b + 1] - off; Row, Col as in (a) but inside the block
// (Row, Col < d); the inner product runs over l < d only:
// C[(off + Row) * n + off + Col] = sum A[(off + Row) * n + off + l] * B[(off + l) * n + off + Col].
__global__ void mqdb_naive_kernel(const float* A, const float* B, float* C, int n,
                                  const int* offset) {
  // TODO
}

// (g) Your fastest MQDB product: e.g. your best dense tile code applied to each
// diagonal block (a block is a d x d submatrix with leading dimension n).
__global__ void mqdb_best_kernel(const float* A, const float* B, float* C, int n,
                                 const int* offset) {
  // TODO
}

// (h) One thread per element of C, all n x n of them: from the struct's block sizes,
// the diagonal block of the thread's row; inside it, the inner product of (f); outside,
// 0. The structs are device copies: every pointer in them must be a device pointer.
__global__ void mqdb_struct_kernel(const MqdbStruct* A, const MqdbStruct* B, float* C) {
  // TODO
}

}  // namespace

void matmul_fine(const float* A, const float* B, float* C, int n, int k, int m, Launch launch) {
  // TODO: zero C first, e.g. cudaMemsetAsync(C, 0, sizeof(float) * n * m);
  const dim3 block(launch.block_x, launch.block_y);
  const dim3 grid(div_up(m, block.x), div_up(n, block.y), k);
  fine_kernel<<<grid, block>>>(A, B, C, n, k, m);
}

void matmul_regblock(const float* A, const float* B, float* C, int n, int k, int m) {
  const dim3 grid(div_up(m, 64), div_up(n, 64));
  regblock_kernel<<<grid, 256>>>(A, B, C, n, k, m);
}

void matmul_best(const float* A, const float* B, float* C, int n, int k, int m) {
  // TODO: your grid and block
  const dim3 grid(div_up(m, 128), div_up(n, 128));
  best_kernel<<<grid, 256>>>(A, B, C, n, k, m);
}

void mqdb_naive(const MqdbDevice& A, const MqdbDevice& B, MqdbDevice& C, Launch launch) {
  // TODO: C must hold zeros outside the diagonal blocks: zero it first
  // (cudaMemsetAsync(C.elem, 0, sizeof(float) * C.n * C.n)), then compute the blocks.
  const dim3 block(launch.block_x, launch.block_y);
  const dim3 grid(div_up(C.max_block, block.x), div_up(C.max_block, block.y), C.k);
  mqdb_naive_kernel<<<grid, block>>>(A.elem, B.elem, C.elem, C.n, C.offset);
}

void mqdb_best(const MqdbDevice& A, const MqdbDevice& B, MqdbDevice& C) {
  // TODO: zero C, then your grid (C.host_offset gives the block sizes on the host)
  const dim3 grid(div_up(C.max_block, 128), div_up(C.max_block, 128), C.k);
  mqdb_best_kernel<<<grid, 256>>>(A.elem, B.elem, C.elem, C.n, C.offset);
}

MqdbStruct* mqdb_from_host(const MqdbStruct& host) {
  MqdbStruct* device = nullptr;  // the device copy, device pointers inside
  // TODO:
  //   1. cudaMalloc a device array for block_size (k ints) and one for elem (n * n
  //      floats), and cudaMemcpy the host arrays into them (cudaMemcpyHostToDevice);
  //   2. copy the struct into a local MqdbStruct and put the two device pointers in it;
  //   3. cudaMalloc the device MqdbStruct and cudaMemcpy the patched local copy into it.
  // cudaMemcpy(device, &host, sizeof host, ...) alone would hand the kernel host pointers.
  // Make these calls here, not in a helper or a lambda: the object check allows cudaMalloc
  // only here (cudaMemcpy here and in mqdb_free). Pass void** to cudaMalloc:
  // cudaMalloc(reinterpret_cast<void**>(&p), n).
  return device;
}

void mqdb_struct_product(const MqdbStruct* A, const MqdbStruct* B, float* C, int n) {
  const dim3 block(16, 16);
  mqdb_struct_kernel<<<dim3(div_up(n, 16), div_up(n, 16)), block>>>(A, B, C);
}

void mqdb_free(MqdbStruct* device) {
  // TODO: cudaMemcpy the struct back to the host (its pointers are what you must free),
  // then cudaFree its two arrays and the struct itself (cudaFree waits for the kernel),
  // here, not in a helper.
}

}  // namespace lab5

// The launchers of (a), (a') and (c), fixed by the lab: they launch the kernels above by
// name.
#include "matmul_launchers.cuh"
