// KNOWN WRONG (lab3_tail): the in-place kernels assume n is a multiple of the block:
// the padding past n is not zeroed, so the garbage there is added to the last block's
// sum.
// The reference solution with exactly this one defect; the grader must
// reject it for this reason (submissions/known_wrong/manifest.json).
#include "reduction.cuh"

namespace lab3 {
namespace {

// Start of block b's chunk of `unroll` data blocks, in 64 bits: blocks x chunk
// may pass 2^31 in the padded buffer.
__device__ long long chunk_start(int unroll) {
  return static_cast<long long>(blockIdx.x) * blockDim.x * unroll;
}

// Loads this thread's element of a one-data-block chunk, 0 past n.
__device__ int* zero_past_n(int* g_idata, int n) {
  int* idata = g_idata + chunk_start(1);
  // DEFECT: the elements past n are not zeroed.
  __syncthreads();
  return idata;
}

// (1) Neighbored pairs: at stride s only threads with tid % (2s) == 0 work, so
// every warp keeps some active threads (divergence) and `%` is slow.
__global__ void neighbored_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = zero_past_n(g_idata, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (2) Reindexed: thread tid handles element 2 * s * tid, so the working threads
// are the first blockDim / (2s): whole warps idle instead of diverging.
__global__ void neighbored_less_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = zero_past_n(g_idata, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) idata[index] += idata[index + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (3) Interleaved: the stride halves from blockDim / 2, the working threads stay
// the first ones and neighbouring threads read neighbouring words (coalesced).
__global__ void interleaved_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = zero_past_n(g_idata, n);
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// The unrolled kernels' first step: thread tid adds its element of each of the
// K data blocks (0 past n) and stores the sum in the chunk's first data block.
template <int K>
__device__ int* add_data_blocks(int* g_idata, int n) {
  const long long base = chunk_start(K);
  int sum = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const long long i = base + static_cast<long long>(k) * blockDim.x + threadIdx.x;
    if (i < n) sum += g_idata[i];
  }
  int* idata = g_idata + base;
  idata[threadIdx.x] = sum;
  __syncthreads();
  return idata;
}

// (4)-(6) Unrolling K data blocks: K loads in flight per thread and a grid K
// times smaller, then the interleaved tree.
template <int K>
__global__ void unrolling_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = add_data_blocks<K>(g_idata, n);
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// The last warp without __syncthreads. Since Volta the threads of a warp are not
// guaranteed to run in lockstep, so each step reads, waits for the warp
// (__syncwarp), then writes: the seeds' `vmem[tid] += vmem[tid + 16]` alone races.
__device__ void reduce_last_warp(volatile int* vmem, unsigned tid) {
  int v = vmem[tid];
#pragma unroll
  for (int s = 32; s > 0; s >>= 1) {
    v += vmem[tid + s];
    __syncwarp();
    vmem[tid] = v;
    __syncwarp();
  }
}

// (7) Unrolling 8, and the last 6 steps done by one warp without block barriers.
__global__ void unroll_warps8_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = add_data_blocks<8>(g_idata, n);
  for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid < 32) reduce_last_warp(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (8) The in-block loop unrolled by hand (blockDim.x <= 1024), last warp unrolled.
__global__ void complete_unroll8_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = add_data_blocks<8>(g_idata, n);
  if (blockDim.x >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
  __syncthreads();
  if (blockDim.x >= 512 && tid < 256) idata[tid] += idata[tid + 256];
  __syncthreads();
  if (blockDim.x >= 256 && tid < 128) idata[tid] += idata[tid + 128];
  __syncthreads();
  if (blockDim.x >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  if (tid < 32) reduce_last_warp(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (9) The same with the block size known at compile time: the conditions on
// kBlock vanish, only the taken steps are compiled.
template <unsigned kBlock>
__global__ void complete_unroll_template_kernel(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = add_data_blocks<8>(g_idata, n);
  if (kBlock >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
  __syncthreads();
  if (kBlock >= 512 && tid < 256) idata[tid] += idata[tid + 256];
  __syncthreads();
  if (kBlock >= 256 && tid < 128) idata[tid] += idata[tid + 128];
  __syncthreads();
  if (kBlock >= 128 && tid < 64) idata[tid] += idata[tid + 64];
  __syncthreads();
  if (tid < 32) reduce_last_warp(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

// (10) Grid-stride, 16-byte loads, registers and warp shuffles: the input is read
// once and nothing is written back to it. Each block writes its sum to
// partial[block]; the last block to finish (a ticket counter that wraps back to 0
// for the next launch) adds them and writes the total to partial[0].
__device__ unsigned int g_ticket = 0;

__device__ int warp_sum(int v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Sum of v over the block, valid in thread 0.
__device__ int block_sum(int v) {
  __shared__ int warp_sums[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? warp_sums[lane] : 0;
  if (warp == 0) v = warp_sum(v);
  return v;
}

__global__ void shuffle_kernel(const int* __restrict__ data, int n, int* partial) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int4* vec = reinterpret_cast<const int4*>(data);
  const long long nvec = n / 4;
  // kLoads 16-byte loads issued before any is used, the ones past the end
  // predicated off: no load waits for another, even in the last iteration (a
  // one-load remainder loop would pay the memory latency once per element).
  constexpr int kLoads = 8;
  int sum = 0;
  for (long long i = first; i < nvec; i += kLoads * stride) {
    int4 v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      const long long j = i + k * stride;
      v[k] = j < nvec ? __ldg(vec + j) : make_int4(0, 0, 0, 0);
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  if (first < n % 4) sum += data[nvec * 4 + first];  // the last n % 4 elements
  sum = block_sum(sum);

  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence();  // the partial sum is visible before the ticket is taken
    last = atomicInc(&g_ticket, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  int total = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += __ldcg(partial + b);
  total = block_sum(total);
  if (threadIdx.x == 0) partial[0] = total;
}

int sm_count() {
  static const int count = [] {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms > 0 ? sms : 1;
  }();
  return count;
}

}  // namespace

void reduce_neighbored(int* data, int n, int* partial, Launch launch) {
  neighbored_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_neighbored_less(int* data, int n, int* partial, Launch launch) {
  neighbored_less_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_interleaved(int* data, int n, int* partial, Launch launch) {
  interleaved_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_unrolling2(int* data, int n, int* partial, Launch launch) {
  unrolling_kernel<2><<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_unrolling4(int* data, int n, int* partial, Launch launch) {
  unrolling_kernel<4><<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_unrolling8(int* data, int n, int* partial, Launch launch) {
  unrolling_kernel<8><<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_unroll_warps8(int* data, int n, int* partial, Launch launch) {
  unroll_warps8_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_complete_unroll8(int* data, int n, int* partial, Launch launch) {
  complete_unroll8_kernel<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void reduce_complete_unroll_template(int* data, int n, int* partial, Launch launch) {
  switch (launch.threads) {
    case 1024:
      complete_unroll_template_kernel<1024><<<launch.blocks, 1024>>>(data, n, partial);
      break;
    case 512:
      complete_unroll_template_kernel<512><<<launch.blocks, 512>>>(data, n, partial);
      break;
    case 256:
      complete_unroll_template_kernel<256><<<launch.blocks, 256>>>(data, n, partial);
      break;
    case 128:
      complete_unroll_template_kernel<128><<<launch.blocks, 128>>>(data, n, partial);
      break;
    case 64:
      complete_unroll_template_kernel<64><<<launch.blocks, 64>>>(data, n, partial);
      break;
  }
}

void reduce_shuffle(int* data, int n, int* partial, Launch launch) {
  int blocks = launch.blocks;
  if (blocks == 0) {
    // One full wave (2048 resident threads per SM), fewer when n is small.
    const long long wave = static_cast<long long>(sm_count()) * (2048 / launch.threads);
    const long long useful = (n + 4LL * launch.threads - 1) / (4LL * launch.threads);
    blocks = static_cast<int>(wave < useful ? wave : useful);
  }
  shuffle_kernel<<<blocks, launch.threads>>>(data, n, partial);
}

}  // namespace lab3
