// lab3: the reduction kernels (1)-(10) (contract: labs/lab3_reduction/reduction.cuh).
//
// The in-place kernels (1)-(9) reduce one chunk per block in global memory; a
// thread whose element lies at or past n stores 0 there first, so every block
// reduces a full power-of-two chunk and every thread reaches every barrier.
#include "reduction.cuh"

namespace lab3 {
namespace {

// Block b's chunk of `per_block` elements.
__device__ int* chunk_of(int* g_idata, int per_block) {
  return g_idata + static_cast<long long>(blockIdx.x) * per_block;
}

// Zeroes this thread's element of a one-data-block chunk when it lies past n.
__device__ void zero_past_n(int* idata, int n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) idata[threadIdx.x] = 0;
  __syncthreads();
}

// (1) reduceNeighbored: pairs at distance `stride`, kept by tid % (2 * stride).
__global__ void neighbored_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = chunk_of(g_idata, blockDim.x);
  zero_past_n(idata, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (2) reduceNeighboredLess: the same pairs, done by the block's first threads.
__global__ void neighbored_less_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = chunk_of(g_idata, blockDim.x);
  zero_past_n(idata, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) idata[index] += idata[index + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// The interleaved tree on one data block of blockDim.x elements, down to `last`
// (0: to the end), a barrier after every step.
__device__ void interleaved_tree(int* idata, unsigned last) {
  const unsigned tid = threadIdx.x;
  for (unsigned stride = blockDim.x / 2; stride > last; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
}

// (3) reduceInterleaved: thread tid adds tid + stride, a warp reads consecutive ints.
__global__ void interleaved_kernel(int* g_idata, int n, int* g_odata) {
  int* idata = chunk_of(g_idata, blockDim.x);
  zero_past_n(idata, n);
  interleaved_tree(idata, 0);
  if (threadIdx.x == 0) g_odata[blockIdx.x] = idata[0];
}

// The first step of the unrolled kernels: thread tid adds element tid of each of
// the block's K data blocks (those before n) into the first one.
template <int K>
__device__ int* unrolled_load(int* g_idata, int n) {
  const unsigned tid = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x * K;
  int* idata = g_idata + base;
  int sum = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const long long i = base + static_cast<long long>(k) * blockDim.x + tid;
    if (i < n) sum += g_idata[i];
  }
  idata[tid] = sum;
  __syncthreads();
  return idata;
}

// (4)-(6) reduceUnrolling2/4/8.
template <int K>
__global__ void unrolling_kernel(int* g_idata, int n, int* g_odata) {
  int* idata = unrolled_load<K>(g_idata, n);
  interleaved_tree(idata, 0);
  if (threadIdx.x == 0) g_odata[blockIdx.x] = idata[0];
}

// The last warp's six steps (64 elements to 1), without a block barrier. Threads of
// a warp need not run in lockstep since Volta: every lane reads, the warp meets,
// then every lane writes.
__device__ void warp_reduce(volatile int* vmem, unsigned tid) {
#pragma unroll
  for (int offset = 32; offset > 0; offset >>= 1) {
    const int v = vmem[tid] + vmem[tid + offset];
    __syncwarp();
    vmem[tid] = v;
    __syncwarp();
  }
}

// (7) reduceUnrollWarps8: the tree while stride > 32, then the first warp alone.
__global__ void unroll_warps8_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = unrolled_load<8>(g_idata, n);
  interleaved_tree(idata, 32);
  if (tid < 32) warp_reduce(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (8) reduceCompleteUnrollWarps8: the tree written out for blocks up to 1024.
__global__ void complete_unroll8_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = unrolled_load<8>(g_idata, n);
  if (blockDim.x >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) idata[tid] += idata[tid + 256];
  __syncthreads();
  if (blockDim.x >= 256 && tid < 128) idata[tid] += idata[tid + 128];
  __syncthreads();
  if (blockDim.x >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  if (tid < 32) warp_reduce(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (9) reduceCompleteUnroll<iBlockSize>: the tests on the block size are resolved at
// compile time.
template <unsigned kBlock>
__global__ void complete_unroll_template_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = unrolled_load<8>(g_idata, n);
  if (kBlock >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
  __syncthreads();
  if (kBlock >= 512 && tid < 256) idata[tid] += idata[tid + 256];
  __syncthreads();
  if (kBlock >= 256 && tid < 128) idata[tid] += idata[tid + 128];
  __syncthreads();
  if (kBlock >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  if (tid < 32) warp_reduce(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (10) Read-only: a grid-stride loop over int4 loads into a register, warp
// shuffles, one value per warp through shared memory, and the block's sum to
// partial[blockIdx.x]; the last block to finish adds the blocks' sums.
__device__ unsigned int g_blocks_done = 0;  // atomicInc wraps it back to 0 each launch

__device__ int warp_sum(int v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The block's sum, in thread 0 (blockDim.x a multiple of 32, at most 1024).
__device__ int block_sum(int v) {
  __shared__ int warp_sums[32];
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? warp_sums[lane] : 0;
    v = warp_sum(v);
  }
  return v;
}

__global__ void shuffle_kernel(const int* data, int n, int* partial) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long quads = n / 4;
  const int4* data4 = reinterpret_cast<const int4*>(data);  // 256-byte aligned
  int sum = 0;
  for (long long q = tid; q < quads; q += stride) {
    const int4 v = data4[q];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  const long long tail = 4 * quads + tid;  // the last n % 4 elements
  if (tail < n) sum += data[tail];

  sum = block_sum(sum);

  __shared__ bool last_block;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence();  // the sum is visible to every block before the ticket is taken
    last_block = atomicInc(&g_blocks_done, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;

  // The last block: every other block's sum is written.
  const volatile int* sums = partial;
  int total = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += sums[b];
  total = block_sum(total);
  if (threadIdx.x == 0) partial[0] = total;
}

}  // namespace

// One block per SM slot of threads, never more blocks than partial holds
// (padded_size(n) / 64), nor than the int4s need.
void reduce_shuffle(int* data, int n, int* partial, Launch launch) {
  int blocks = launch.blocks;
  if (blocks < 1) {
    static int sms = 0;
    if (sms == 0) {
      int device = 0;
      cudaGetDevice(&device);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      if (sms < 1) sms = 1;
    }
    const long long resident = static_cast<long long>(sms) * (2048 / launch.threads);
    const long long needed = (n / 4 + launch.threads - 1) / launch.threads;
    const long long room = padded_size(n) / 64;
    long long chosen = resident < needed ? resident : needed;
    if (chosen > room) chosen = room;
    blocks = chosen < 1 ? 1 : static_cast<int>(chosen);
  }
  shuffle_kernel<<<blocks, launch.threads>>>(data, n, partial);
}

}  // namespace lab3

// The launchers of (1)-(9), fixed by the lab: they launch the kernels above by name.
#include "reduction_launchers.cuh"
