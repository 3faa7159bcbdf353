#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab4: your kernels. Read labs/lab4_power_array/README.md and the contract
// labs/lab4_power_array/power_array.cuh first.
//
// The launchers are written, in labs/lab4_power_array/power_array_launchers.cuh:
// launch.blocks blocks of launch.threads threads (the *_shared ones kBlockSize
// threads). power_best's is yours: it picks its grid, and must not synchronize or
// allocate (the harness does that). Every kernel must work for any n >= 1: the grid may hold
// more threads than n, so check bounds. A^0 = 1 for every A.
#else
// lab4 reference solution: the power array three ways, two storages, a fast
// version, and the window (1D stencil) from global and from shared memory.
#endif
#include "power_array.cuh"

namespace lab4 {
namespace {

#if LAB_SKELETON
// The course's array: __device__ float dA[N], its size fixed at compile time.
#else
// The course's array: its size is fixed at compile time (kSymbolCapacity floats).
#endif
__device__ float dA[kSymbolCapacity];

#if LAB_SKELETON
// (a) The course's kernel: i = threadIdx.x + blockIdx.x * blockDim.x; if i < n,
// c = 1, multiply c by in[i] k times (read in[i] inside the loop), out[i] = c.
#else
// (a) The course's kernel: in[i] appears k times in the loop. Nothing in the loop
// writes memory, so the compiler loads in[i] once and keeps it in a register:
// cuobjdump -sass shows one LDG, and (a) times the same as (b).
#endif
__global__ void global_kernel(const float* in, float* out, int n, int k) {
#if LAB_SKELETON
  // TODO
#else
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= in[i];
    out[i] = c;
  }
#endif
}

#if LAB_SKELETON
// (b) The same with in[i] read once into a register: float x = in[i];
#else
// (b) The value in a register, explicitly.
#endif
__global__ void register_kernel(const float* in, float* out, int n, int k) {
#if LAB_SKELETON
  // TODO
#else
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    const float x = in[i];
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= x;
    out[i] = c;
  }
#endif
}

#if LAB_SKELETON
// (c) __shared__ float data[kBlockSize]; each thread copies in[i] into
// data[threadIdx.x], then __syncthreads(), then multiplies by data[threadIdx.x].
// Every thread of the block must reach the __syncthreads(): keep it out of
// `if (i < n)`.
#else
// (c) The course's shared-memory version. The barrier sits outside `if (i < n)`, so
// that every thread of the block reaches it. (Each thread reads back only its own
// element here, so nothing would go wrong without it: the barrier matters as soon
// as a thread reads what another wrote, as in the window below.)
#endif
__global__ void shared_kernel(const float* in, float* out, int n, int k) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ float data[kBlockSize];  // BLOCKSIZE == blockDim.x
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) data[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= data[threadIdx.x];
    out[i] = c;
  }
#endif
}

#if LAB_SKELETON
// (d), (e), (f): (a), (b), (c) in place on dA: read dA[i], write dA[i].
#else
// (d), (e), (f): the same three on the __device__ array, in place.
#endif
__global__ void symbol_global_kernel(int n, int k) {
#if LAB_SKELETON
  // TODO
#else
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= dA[i];
    dA[i] = c;
  }
#endif
}

__global__ void symbol_register_kernel(int n, int k) {
#if LAB_SKELETON
  // TODO
#else
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) {
    const float x = dA[i];
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= x;
    dA[i] = c;
  }
#endif
}

__global__ void symbol_shared_kernel(int n, int k) {
#if LAB_SKELETON
  // TODO
#else
  __shared__ float data[kBlockSize];
  const int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) data[threadIdx.x] = dA[i];
  __syncthreads();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= data[threadIdx.x];
    dA[i] = c;
  }
#endif
}

#if LAB_SKELETON
// (g) Your fastest power: the time is set by the bytes moved, not by the
// multiplications. Ideas: 16-byte loads (float4: n may not be a multiple of 4),
// several loads in flight per thread, a grid sized to the GPU.
__global__ void best_kernel(const float* in, float* out, int n, int k) {
  // TODO
}
#else
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
#endif

#if LAB_SKELETON
// (h) out[i] = (in[i - radius] + ... + in[i + radius]) / (2 * radius + 1), each
// neighbour read from global memory; neighbours outside [0, n) count as 0.
#else
// (h) Every neighbour from global memory: neighbouring threads load overlapping
// windows, which L1 mostly serves, but each warp-wide load straddles two 128-byte
// lines whenever it is not aligned.
#endif
__global__ void window_global_kernel(const float* in, float* out, int n, int radius) {
#if LAB_SKELETON
  // TODO
#else
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = i - radius; j <= i + radius; j++) {
    if (j >= 0 && j < n) sum += in[j];
  }
  out[i] = sum / (2 * radius + 1);
#endif
}

#if LAB_SKELETON
// (i) __shared__ float tile[kBlockSize + 2 * kMaxRadius]; the block's kBlockSize
// elements start at blockIdx.x * kBlockSize: load in[start - radius ..
// start + kBlockSize + radius) into the tile (0 outside [0, n); the threads load
// kBlockSize + 2 * radius values, some more than one), __syncthreads(), then sum
// tile[threadIdx.x .. threadIdx.x + 2 * radius].
#else
// (i) The block's elements plus a halo of `radius` on each side, loaded once
// (zeros outside [0, n)); after the barrier every thread reads its neighbours'
// values from shared memory, where a misaligned run of 32 words still hits 32
// different banks: one access per warp-wide load.
#endif
__global__ void window_shared_kernel(const float* in, float* out, int n, int radius) {
#if LAB_SKELETON
  // TODO
#else
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
#endif
}

}  // namespace

cudaError_t symbol_upload(const float* host, int n) {
#if LAB_SKELETON
  // TODO: cudaMemcpyToSymbol(dA, host, n * sizeof(float), 0, cudaMemcpyHostToDevice)
  return cudaSuccess;
#else
  return cudaMemcpyToSymbol(dA, host, n * sizeof(float), 0, cudaMemcpyHostToDevice);
#endif
}

cudaError_t symbol_download(float* host, int n) {
#if LAB_SKELETON
  // TODO: cudaMemcpyFromSymbol(...), the way back
  return cudaSuccess;
#else
  return cudaMemcpyFromSymbol(host, dA, n * sizeof(float), 0, cudaMemcpyDeviceToHost);
#endif
}

void power_best(const float* in, float* out, int n, int k, Launch launch) {
#if LAB_SKELETON
  // TODO: choose your grid when launch.blocks is 0 (it is, unless --blocks is given)
  const int threads = launch.threads;
  const int blocks = launch.blocks > 0 ? launch.blocks : (n + threads - 1) / threads;
#else
  const int threads = launch.threads;
  const int per_block = threads * kUnroll * 4;
  const int cover = (n + per_block - 1) / per_block;
  const int blocks = launch.blocks > 0 ? launch.blocks : (cover > 0 ? cover : 1);
#endif
  best_kernel<<<blocks, threads>>>(in, out, n, k);
}

#if LAB_SKELETON
// Part 3: the blocks of one kernel an SM can hold, limit by limit (the contract gives
// the rules). Ceiling divisions and rounding up to a unit are where the answers
// differ from a first guess: 100 threads take 4 warps, 18 registers a thread take
// 768 per warp.
OccupancyLimits occupancy_limits(const cudaFuncAttributes& kernel, const cudaDeviceProp& device,
                                 int threads_per_block, std::size_t dynamic_shared_bytes) {
  // TODO: warps per block; then each of the four limits
  return OccupancyLimits{0, 0, 0, 0};
}
#else
// Part 3: what cudaOccupancyMaxActiveBlocksPerMultiprocessor counts, one resource
// at a time, so that the table can say which one binds.
namespace {

constexpr int kUnlimited = 1 << 30;

long long round_up(long long x, long long unit) { return (x + unit - 1) / unit * unit; }

}  // namespace

OccupancyLimits occupancy_limits(const cudaFuncAttributes& kernel, const cudaDeviceProp& device,
                                 int threads_per_block, std::size_t dynamic_shared_bytes) {
  const int warps = (threads_per_block + device.warpSize - 1) / device.warpSize;
  OccupancyLimits limits{};
  limits.by_block_slots = device.maxBlocksPerMultiProcessor;
  limits.by_warps = device.maxThreadsPerMultiProcessor / device.warpSize / warps;

  // Registers go to warps, in units, and each SM partition keeps its own: a warp
  // cannot use registers left over in another partition.
  const long long per_warp =
      round_up(1LL * kernel.numRegs * device.warpSize, kRegisterAllocationUnit);
  if (per_warp == 0) {
    limits.by_registers = kUnlimited;
  } else if (per_warp * round_up(warps, kSmPartitions) > device.regsPerBlock) {
    limits.by_registers = 0;  // the launch itself fails: too many registers per block
  } else {
    const long long warps_per_partition = device.regsPerMultiprocessor / kSmPartitions / per_warp;
    limits.by_registers = static_cast<int>(warps_per_partition * kSmPartitions / warps);
  }

  // Shared memory, the driver's reserved part included, in allocation units.
  const long long shared =
      round_up(static_cast<long long>(kernel.sharedSizeBytes + dynamic_shared_bytes +
                                      device.reservedSharedMemPerBlock),
               kSharedAllocationUnit);
  if (shared >
      static_cast<long long>(device.sharedMemPerBlock + device.reservedSharedMemPerBlock)) {
    limits.by_shared = 0;
  } else {
    limits.by_shared = static_cast<int>(device.sharedMemPerMultiprocessor / shared);
  }
  return limits;
}
#endif

}  // namespace lab4

// The launchers of (a)-(f), (h) and (i), fixed by the lab: they launch the kernels
// above by name.
#include "power_array_launchers.cuh"
