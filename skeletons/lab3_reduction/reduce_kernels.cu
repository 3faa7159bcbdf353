// lab3: your reduction kernels. Read labs/lab3_reduction/README.md and the
// contract labs/lab3_reduction/reduction.cuh first.
//
// Every per-block kernel reduces, in place in global memory, one chunk of
// blockDim.x x K elements (K = 1, 2, 4 or 8) and thread 0 writes the chunk's sum
// to g_odata[blockIdx.x]; the harness adds those partial sums on the host.
// `data` is padded past n with GARBAGE that you may overwrite: a thread whose
// element lies at or past n should store a 0 there first, so that the block
// reduces a full chunk. Never `return` early from a kernel that calls
// __syncthreads(): every thread of the block must reach every barrier.
// Launchers must not synchronize or allocate: the harness does that.
#include "reduction.cuh"

namespace lab3 {
namespace {

// (1) reduceNeighbored. Pointer to this block's chunk:
//   int* idata = g_idata + (long long)blockIdx.x * blockDim.x;
// zero your element if it lies past n, __syncthreads(), then
//   for (stride = 1; stride < blockDim.x; stride *= 2) {
//     if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
//     __syncthreads();
//   }
// and thread 0 writes idata[0] to g_odata[blockIdx.x].
__global__ void neighbored_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (2) reduceNeighboredLess: the same pairs, but thread tid works on
// index = 2 * stride * tid (if index < blockDim.x), so the busy threads are the
// first ones of the block. Why does that remove most of the divergence?
__global__ void neighbored_less_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (3) reduceInterleaved: for (stride = blockDim.x / 2; stride > 0; stride >>= 1)
// if (tid < stride) idata[tid] += idata[tid + stride];
__global__ void interleaved_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (4)-(6) reduceUnrolling2/4/8: block b owns K data blocks starting at
// (long long)blockIdx.x * blockDim.x * K. Thread tid first adds element tid of
// each of the K data blocks (skipping those at or past n) and stores the sum in
// idata[tid] of the first one; __syncthreads(); then the interleaved tree.
template <int K>
__global__ void unrolling_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (7) reduceUnrollWarps8: unrolling 8, the tree only while stride > 32, then the
// first warp finishes alone (strides 32, 16, 8, 4, 2, 1) through a
// `volatile int*`, without __syncthreads. Since Volta a warp is not guaranteed to
// run in lockstep: read, __syncwarp(), write, __syncwarp() at every step.
__global__ void unroll_warps8_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (8) reduceCompleteUnrollWarps8: no loop at all. blockDim.x <= 1024, so write
//   if (blockDim.x >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
//   __syncthreads();
// and the same for 512/256, 256/128, 128/64, then the unrolled last warp.
__global__ void complete_unroll8_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (9) reduceCompleteUnroll<iBlockSize>: (8) with the block size as a template
// parameter; its launcher (reduction_launchers.cuh) picks the instance with a switch.
template <unsigned kBlock>
__global__ void complete_unroll_template_kernel(int* g_idata, int n, int* g_odata) {
  // TODO
}

// (10) Grid-stride warp-shuffle reduction: any grid covers any n. Each thread
// adds data[i] for i = global id, id + gridDim.x * blockDim.x, ... in a register
// (faster: read int4, 16 bytes at a time, and handle the last n % 4 elements
// apart), then __shfl_down_sync adds within each warp, one value per warp goes
// through shared memory, and warp 0 adds those. The WHOLE sum must end in
// partial[0]: e.g. every block writes partial[blockIdx.x], then the last block to
// finish (__threadfence(), then a ticket from atomicInc on a __device__ counter
// that wraps back to 0) adds them. Don't modify `data`.
__global__ void shuffle_kernel(const int* data, int n, int* partial) {
  // TODO
}

}  // namespace

// launch.blocks is 0 unless the lab program's --blocks gave one: pick a grid,
// e.g. enough blocks to fill every SM once (cudaDevAttrMultiProcessorCount,
// queried once and kept in a static), never more than padded_size(n) / 64.
void reduce_shuffle(int* data, int n, int* partial, Launch launch) {
  const int blocks = launch.blocks ? launch.blocks : 1;  // TODO: your grid
  shuffle_kernel<<<blocks, launch.threads>>>(data, n, partial);
}

}  // namespace lab3

// The launchers of (1)-(9), fixed by the lab: they launch the kernels above by name.
#include "reduction_launchers.cuh"
