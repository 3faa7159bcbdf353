// lab3: reduction kernels (a typical student solution, written from the README,
// the contract reduction.cuh and the skeleton's hints).
#include "reduction.cuh"

namespace lab3 {
namespace {

// Zeroes this thread's element of the block's chunk (chunk = blockDim.x) when it
// lies at or past n, so that the block reduces a full power-of-two chunk.
__device__ void zero_past_n(int* idata, int n) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= n) idata[threadIdx.x] = 0;
}

// (1) reduceNeighbored.
__global__ void neighbored_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = g_idata + static_cast<long long>(blockIdx.x) * blockDim.x;
  zero_past_n(idata, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (2) reduceNeighboredLess: thread tid works on index 2 * stride * tid.
__global__ void neighbored_less_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = g_idata + static_cast<long long>(blockIdx.x) * blockDim.x;
  zero_past_n(idata, n);
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) idata[index] += idata[index + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (3) reduceInterleaved.
__global__ void interleaved_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = g_idata + static_cast<long long>(blockIdx.x) * blockDim.x;
  zero_past_n(idata, n);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// Thread tid adds element tid of each of the block's K data blocks (0 past n)
// and stores the sum at idata[tid] of the first one; returns idata.
template <int K>
__device__ int* unroll_data_blocks(int* g_idata, int n) {
  const unsigned tid = threadIdx.x;
  const long long base = static_cast<long long>(blockIdx.x) * blockDim.x * K;
  int sum = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const long long idx = base + static_cast<long long>(j) * blockDim.x + tid;
    if (idx < n) sum += g_idata[idx];
  }
  int* idata = g_idata + base;
  idata[tid] = sum;
  return idata;
}

// The last warp, unrolled (strides 32 .. 1). Since Volta a warp is not in lockstep:
// read, __syncwarp(), write, __syncwarp() at every step. Called by tid < 32 only.
__device__ void warp_reduce(int* idata, unsigned tid) {
  volatile int* vmem = idata;
  int v;
  v = vmem[tid] + vmem[tid + 32];
  __syncwarp();
  vmem[tid] = v;
  __syncwarp();
  v = vmem[tid] + vmem[tid + 16];
  __syncwarp();
  vmem[tid] = v;
  __syncwarp();
  v = vmem[tid] + vmem[tid + 8];
  __syncwarp();
  vmem[tid] = v;
  __syncwarp();
  v = vmem[tid] + vmem[tid + 4];
  __syncwarp();
  vmem[tid] = v;
  __syncwarp();
  v = vmem[tid] + vmem[tid + 2];
  __syncwarp();
  vmem[tid] = v;
  __syncwarp();
  v = vmem[tid] + vmem[tid + 1];
  __syncwarp();
  vmem[tid] = v;
  __syncwarp();
}

// (4)-(6) reduceUnrolling2/4/8.
template <int K>
__global__ void unrolling_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = unroll_data_blocks<K>(g_idata, n);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (7) reduceUnrollWarps8.
__global__ void unroll_warps8_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = unroll_data_blocks<8>(g_idata, n);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid < 32) warp_reduce(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (8) reduceCompleteUnrollWarps8.
__global__ void complete_unroll8_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = unroll_data_blocks<8>(g_idata, n);
  __syncthreads();
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

// (9) reduceCompleteUnroll<iBlockSize>.
template <unsigned kBlock>
__global__ void complete_unroll_template_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = unroll_data_blocks<8>(g_idata, n);
  __syncthreads();
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

// Ticket counter of the shuffle kernel: atomicInc wraps it back to 0 after the
// last block of each launch.
__device__ unsigned int g_blocks_done = 0;

__device__ int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sum of v over the block, valid in thread 0. Every thread must call it.
__device__ int block_sum(int v) {
  __shared__ int warp_sums[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) / 32;
  v = 0;
  if (warp == 0) {
    if (lane < warps) v = warp_sums[lane];
    v = warp_sum(v);
  }
  __syncthreads();  // warp_sums may be reused by a second call
  return v;
}

// (10) Grid-stride loop with int4 loads, warp shuffles, then the last block to
// finish adds the blocks' sums into partial[0].
__global__ void shuffle_kernel(const int* data, int n, int* partial) {
  const long long tid = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;

  int sum = 0;
  const long long n4 = n / 4;
  const int4* data4 = reinterpret_cast<const int4*>(data);
  for (long long i = tid; i < n4; i += stride) {
    const int4 v = data4[i];
    sum += v.x + v.y + v.z + v.w;
  }
  const long long rest = n4 * 4 + tid;  // the last n % 4 elements
  if (rest < n) sum += data[rest];

  sum = block_sum(sum);

  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence();
    const unsigned ticket = atomicInc(&g_blocks_done, gridDim.x - 1);
    is_last = (ticket == gridDim.x - 1);
  }
  __syncthreads();

  if (is_last) {
    int total = 0;
    const volatile int* vpartial = partial;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += vpartial[b];
    total = block_sum(total);
    if (threadIdx.x == 0) partial[0] = total;
  }
}

}  // namespace

// Enough blocks to fill every SM once, fewer when n is small, never more than
// padded_size(n) / 64 (the room in partial).
void reduce_shuffle(int* data, int n, int* partial, Launch launch) {
  int blocks = launch.blocks;
  if (blocks <= 0) {
    int device = 0;
    int sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (sms <= 0) sms = 1;
    blocks = sms * (2048 / launch.threads);
    const long long needed =
        (static_cast<long long>(n) + 4LL * launch.threads - 1) / (4LL * launch.threads);
    if (needed < blocks) blocks = static_cast<int>(needed);
    if (blocks < 1) blocks = 1;
  }
  const long long room = padded_size(n) / 64;
  if (blocks > room) blocks = static_cast<int>(room);
  shuffle_kernel<<<blocks, launch.threads>>>(data, n, partial);
}

}  // namespace lab3

// The launchers of (1)-(9), fixed by the lab: they launch the kernels above by name.
#include "reduction_launchers.cuh"
