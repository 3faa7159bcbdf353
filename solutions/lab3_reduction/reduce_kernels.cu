#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
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
#else
// lab3 reference solution: every reduction variant of the exercise.
//
// The course's kernels reduce in place in global memory, one chunk per block. The
// harness pads `data` past n with garbage: a thread whose element lies past n
// writes a 0 there first, so every block reduces a full power-of-two chunk and
// every thread reaches every __syncthreads().
#endif
#include "reduction.cuh"

namespace lab3 {
namespace {

#if !LAB_SKELETON
// Start of block b's chunk of `unroll` data blocks, in 64 bits: blocks x chunk
// may pass 2^31 in the padded buffer.
__device__ long long chunk_start(int unroll) {
  return static_cast<long long>(blockIdx.x) * blockDim.x * unroll;
}

// Loads this thread's element of a one-data-block chunk, 0 past n.
__device__ int* zero_past_n(int* g_idata, int n) {
  int* idata = g_idata + chunk_start(1);
  if (chunk_start(1) + threadIdx.x >= n) idata[threadIdx.x] = 0;
  __syncthreads();
  return idata;
}
#endif

#if LAB_SKELETON
// (1) reduceNeighbored. Pointer to this block's chunk:
//   int* idata = g_idata + (long long)blockIdx.x * blockDim.x;
// zero your element if it lies past n, __syncthreads(), then
//   for (stride = 1; stride < blockDim.x; stride *= 2) {
//     if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
//     __syncthreads();
//   }
// and thread 0 writes idata[0] to g_odata[blockIdx.x].
#else
// (1) Neighbored pairs: at stride s only threads with tid % (2s) == 0 work, so
// every warp keeps some active threads (divergence) and `%` is slow.
#endif
__global__ void neighbored_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
  const unsigned tid = threadIdx.x;
  int* idata = zero_past_n(g_idata, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
#endif
}

#if LAB_SKELETON
// (2) reduceNeighboredLess: the same pairs, but thread tid works on
// index = 2 * stride * tid (if index < blockDim.x), so the busy threads are the
// first ones of the block. Why does that remove most of the divergence?
#else
// (2) Reindexed: thread tid handles element 2 * s * tid, so the working threads
// are the first blockDim / (2s): whole warps idle instead of diverging.
#endif
__global__ void neighbored_less_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
  const unsigned tid = threadIdx.x;
  int* idata = zero_past_n(g_idata, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < blockDim.x) idata[index] += idata[index + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
#endif
}

#if LAB_SKELETON
// (3) reduceInterleaved: for (stride = blockDim.x / 2; stride > 0; stride >>= 1)
// if (tid < stride) idata[tid] += idata[tid + stride];
#else
// (3) Interleaved: the stride halves from blockDim / 2, the working threads stay
// the first ones and neighbouring threads read neighbouring words (coalesced).
#endif
__global__ void interleaved_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
  const unsigned tid = threadIdx.x;
  int* idata = zero_past_n(g_idata, n);
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
#endif
}

#if LAB_SKELETON
// (4)-(6) reduceUnrolling2/4/8: block b owns K data blocks starting at
// (long long)blockIdx.x * blockDim.x * K. Thread tid first adds element tid of
// each of the K data blocks (skipping those at or past n) and stores the sum in
// idata[tid] of the first one; __syncthreads(); then the interleaved tree.
#else
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
#endif
template <int K>
__global__ void unrolling_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
  const unsigned tid = threadIdx.x;
  int* idata = add_data_blocks<K>(g_idata, n);
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
#endif
}

#if LAB_SKELETON
// (7) reduceUnrollWarps8: unrolling 8, the tree only while stride > 32, then the
// first warp finishes alone (strides 32, 16, 8, 4, 2, 1) through a
// `volatile int*`, without __syncthreads. Since Volta a warp is not guaranteed to
// run in lockstep: read, __syncwarp(), write, __syncwarp() at every step.
#else
// The last warp without __syncthreads. Since Volta the threads of a warp are not
// guaranteed to run in lockstep, so each step reads, waits for the warp
// (__syncwarp), then writes: the course's `vmem[tid] += vmem[tid + 16]` alone races.
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
#endif
__global__ void unroll_warps8_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
  const unsigned tid = threadIdx.x;
  int* idata = add_data_blocks<8>(g_idata, n);
  for (unsigned stride = blockDim.x / 2; stride > 32; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid < 32) reduce_last_warp(idata, tid);
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
#endif
}

#if LAB_SKELETON
// (8) reduceCompleteUnrollWarps8: no loop at all. blockDim.x <= 1024, so write
//   if (blockDim.x >= 1024 && tid < 512) idata[tid] += idata[tid + 512];
//   __syncthreads();
// and the same for 512/256, 256/128, 128/64, then the unrolled last warp.
#else
// (8) The in-block loop unrolled by hand (blockDim.x <= 1024), last warp unrolled.
#endif
__global__ void complete_unroll8_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
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
#endif
}

#if LAB_SKELETON
// (9) reduceCompleteUnroll<iBlockSize>: (8) with the block size as a template
// parameter; its launcher (reduction_launchers.cuh) picks the instance with a switch.
#else
// (9) The same with the block size known at compile time: the conditions on
// kBlock vanish, only the taken steps are compiled.
#endif
template <unsigned kBlock>
__global__ void complete_unroll_template_kernel(int* g_idata, int n, int* g_odata) {
#if LAB_SKELETON
  // TODO
#else
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
#endif
}

#if LAB_SKELETON
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
#else
// (10) Grid-stride, 16-byte loads, registers and warp shuffles: the input is read
// once and nothing is written back to it. kStream loads it as streaming (__ldcs,
// evict first) instead of through the read-only path (__ldg): measured faster while
// the input is a few L2s at most and slower beyond (the README's table). Each block
// writes its sum to
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

template <bool kStream>
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
      v[k] = j >= nvec ? make_int4(0, 0, 0, 0) : kStream ? __ldcs(vec + j) : __ldg(vec + j);
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

// The current device's attribute, 1 where the query fails.
int device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&value, attribute, device);
  return value > 0 ? value : 1;
}
#endif

}  // namespace

#if LAB_SKELETON
// launch.blocks is 0 unless the lab program's --blocks gave one: pick a grid,
// e.g. enough blocks to fill every SM once (cudaDevAttrMultiProcessorCount,
// queried once and kept in a static), never more than padded_size(n) / 64.
#endif
void reduce_shuffle(int* data, int n, int* partial, Launch launch) {
#if LAB_SKELETON
  const int blocks = launch.blocks ? launch.blocks : 1;  // TODO: your grid
  shuffle_kernel<<<blocks, launch.threads>>>(data, n, partial);
#else
  static const int sms = device_attribute(cudaDevAttrMultiProcessorCount);
  static const long long l2_bytes = device_attribute(cudaDevAttrL2CacheSize);
  int blocks = launch.blocks;
  if (blocks == 0) {
    // One full wave (2048 resident threads per SM), fewer when n is small.
    const long long wave = static_cast<long long>(sms) * (2048 / launch.threads);
    const long long useful = (n + 4LL * launch.threads - 1) / (4LL * launch.threads);
    blocks = static_cast<int>(wave < useful ? wave : useful);
  }
  const long long bytes = 4LL * n;
  if (bytes <= 4 * l2_bytes) {
    shuffle_kernel<true><<<blocks, launch.threads>>>(data, n, partial);
  } else {
    shuffle_kernel<false><<<blocks, launch.threads>>>(data, n, partial);
  }
#endif
}

}  // namespace lab3

// The launchers of (1)-(9), fixed by the lab: they launch the kernels above by name.
#include "reduction_launchers.cuh"
