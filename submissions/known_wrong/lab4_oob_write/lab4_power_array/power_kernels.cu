// KNOWN WRONG (lab4_oob_write): power_register writes element i far past the end of out
// (the index is shifted instead of used): an illegal memory access.
// The reference solution with exactly this one defect; the grader must
// reject it for this reason (submissions/known_wrong/manifest.json).
#include "power_array.cuh"

namespace lab4 {
namespace {

// The seed's array: its size is fixed at compile time (kSymbolCapacity floats).
__device__ float dA[kSymbolCapacity];

// (a) The seed's kernel: in[i] appears k times in the loop. Nothing in the loop
// writes memory, so the compiler loads in[i] once and keeps it in a register:
// cuobjdump -sass shows one LDG, and (a) times the same as (b).
__global__ void global_kernel(const float* in, float* out, int n, int k) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= in[i];
    out[i] = c;
  }
}

// (b) The value in a register, explicitly.
__global__ void register_kernel(const float* in, float* out, int n, int k) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    const float x = in[i];
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= x;
    out[static_cast<long long>(i) << 36] = c;  // DEFECT: far outside out
  }
}

// (c) The seed's shared-memory version. The barrier sits outside `if (i < n)`, so
// that every thread of the block reaches it. (Each thread reads back only its own
// element here, so nothing would go wrong without it: the barrier matters as soon
// as a thread reads what another wrote, as in the window below.)
__global__ void shared_kernel(const float* in, float* out, int n, int k) {
  __shared__ float data[kBlockSize];  // BLOCKSIZE == blockDim.x
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) data[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= data[threadIdx.x];
    out[i] = c;
  }
}

// (d), (e), (f): the same three on the __device__ array, in place.
__global__ void symbol_global_kernel(int n, int k) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= dA[i];
    dA[i] = c;
  }
}

__global__ void symbol_register_kernel(int n, int k) {
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    const float x = dA[i];
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= x;
    dA[i] = c;
  }
}

__global__ void symbol_shared_kernel(int n, int k) {
  __shared__ float data[kBlockSize];
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) data[threadIdx.x] = dA[i];
  __syncthreads();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= data[threadIdx.x];
    dA[i] = c;
  }
}

// (g) Memory-bound: the time is the bytes, not the multiplications. 16-byte loads
// and stores, kUnroll of them in flight per thread before any is used, and
// x^k by repeated squaring (log2 k multiplications instead of k).
constexpr int kUnroll = 4;

__device__ __forceinline__ float ipow(float x, int k) {
  float result = 1.0f;
  while (k) {
    if (k & 1) result *= x;
    x *= x;
    k >>= 1;
  }
  return result;
}

__device__ __forceinline__ float4 ipow4(float4 v, int k) {
  return make_float4(ipow(v.x, k), ipow(v.y, k), ipow(v.z, k), ipow(v.w, k));
}

__global__ void best_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int k) {
  const float4* in4 = reinterpret_cast<const float4*>(in);
  float4* out4 = reinterpret_cast<float4*>(out);
  const int n4 = n / 4;
  const int stride = gridDim.x * blockDim.x * kUnroll;
  for (int base = blockIdx.x * blockDim.x * kUnroll + threadIdx.x; base < n4; base += stride) {
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; u++) {
      const int p = base + u * blockDim.x;
      if (p < n4) v[u] = __ldcs(in4 + p);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; u++) {
      const int p = base + u * blockDim.x;
      if (p < n4) out4[p] = ipow4(v[u], k);
    }
  }
  const int tail = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;  // the last n % 4
  if (tail < n) out[tail] = ipow(in[tail], k);
}

// (h) Every neighbour from global memory: neighbouring threads load overlapping
// windows, which L1 mostly serves, but each warp-wide load straddles two 128-byte
// lines whenever it is not aligned.
__global__ void window_global_kernel(const float* in, float* out, int n, int radius) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = i - radius; j <= i + radius; j++) {
    if (j >= 0 && j < n) sum += in[j];
  }
  out[i] = sum / (2 * radius + 1);
}

// (i) The block's elements plus a halo of `radius` on each side, loaded once
// (zeros outside [0, n)); after the barrier every thread reads its neighbours'
// values from shared memory, where a misaligned run of 32 words still hits 32
// different banks: one access per warp-wide load.
__global__ void window_shared_kernel(const float* in, float* out, int n, int radius) {
  __shared__ float tile[kBlockSize + 2 * kMaxRadius];
  const int start = blockIdx.x * kBlockSize - radius;
  for (int t = threadIdx.x; t < kBlockSize + 2 * radius; t += kBlockSize) {
    const int j = start + t;
    tile[t] = j >= 0 && j < n ? in[j] : 0.0f;
  }
  __syncthreads();  // the whole tile is loaded before anyone reads a neighbour's value
  const int i = blockIdx.x * kBlockSize + threadIdx.x;
  if (i < n) {
    float sum = 0.0f;
    for (int t = threadIdx.x; t <= threadIdx.x + 2 * radius; t++) sum += tile[t];
    out[i] = sum / (2 * radius + 1);
  }
}

}  // namespace

void power_global(const float* in, float* out, int n, int k, Launch launch) {
  global_kernel<<<launch.blocks, launch.threads>>>(in, out, n, k);
}

void power_register(const float* in, float* out, int n, int k, Launch launch) {
  register_kernel<<<launch.blocks, launch.threads>>>(in, out, n, k);
}

void power_shared(const float* in, float* out, int n, int k, Launch launch) {
  shared_kernel<<<launch.blocks, kBlockSize>>>(in, out, n, k);
}

cudaError_t symbol_upload(const float* host, int n) {
  return cudaMemcpyToSymbol(dA, host, n * sizeof(float), 0, cudaMemcpyHostToDevice);
}

cudaError_t symbol_download(float* host, int n) {
  return cudaMemcpyFromSymbol(host, dA, n * sizeof(float), 0, cudaMemcpyDeviceToHost);
}

void power_symbol_global(int n, int k, Launch launch) {
  symbol_global_kernel<<<launch.blocks, launch.threads>>>(n, k);
}

void power_symbol_register(int n, int k, Launch launch) {
  symbol_register_kernel<<<launch.blocks, launch.threads>>>(n, k);
}

void power_symbol_shared(int n, int k, Launch launch) {
  symbol_shared_kernel<<<launch.blocks, kBlockSize>>>(n, k);
}

void power_best(const float* in, float* out, int n, int k, Launch launch) {
  const int threads = launch.threads;
  const int per_block = threads * kUnroll * 4;
  const int cover = (n + per_block - 1) / per_block;
  const int blocks = launch.blocks > 0 ? launch.blocks : (cover > 0 ? cover : 1);
  best_kernel<<<blocks, threads>>>(in, out, n, k);
}

void window_global(const float* in, float* out, int n, int radius, Launch launch) {
  window_global_kernel<<<launch.blocks, launch.threads>>>(in, out, n, radius);
}

void window_shared(const float* in, float* out, int n, int radius, Launch launch) {
  window_shared_kernel<<<launch.blocks, kBlockSize>>>(in, out, n, radius);
}

}  // namespace lab4
