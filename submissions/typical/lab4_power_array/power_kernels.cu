// lab4: power array, window and occupancy (a typical student solution, written
// from the README, the contract power_array.cuh and the skeleton's hints).
#include <cstdint>

#include "power_array.cuh"

namespace lab4 {
namespace {

// The course's array: __device__ float dA[N], its size fixed at compile time.
__device__ float dA[kSymbolCapacity];

__device__ long long global_tid() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// (a) The course's kernel: in[i] read inside the loop.
__global__ void global_kernel(const float* in, float* out, int n, int k) {
  const long long i = global_tid();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= in[i];
    out[i] = c;
  }
}

// (b) in[i] read once into a register.
__global__ void register_kernel(const float* in, float* out, int n, int k) {
  const long long i = global_tid();
  if (i < n) {
    const float x = in[i];
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= x;
    out[i] = c;
  }
}

// (c) The block's values in shared memory, then the loop reading shared memory.
__global__ void shared_kernel(const float* in, float* out, int n, int k) {
  __shared__ float data[kBlockSize];
  const long long i = global_tid();
  if (i < n) data[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= data[threadIdx.x];
    out[i] = c;
  }
}

// (d) (a) in place on dA.
__global__ void symbol_global_kernel(int n, int k) {
  const long long i = global_tid();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= dA[i];
    dA[i] = c;
  }
}

// (e) (b) in place on dA.
__global__ void symbol_register_kernel(int n, int k) {
  const long long i = global_tid();
  if (i < n) {
    const float x = dA[i];
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= x;
    dA[i] = c;
  }
}

// (f) (c) in place on dA.
__global__ void symbol_shared_kernel(int n, int k) {
  __shared__ float data[kBlockSize];
  const long long i = global_tid();
  if (i < n) data[threadIdx.x] = dA[i];
  __syncthreads();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= data[threadIdx.x];
    dA[i] = c;
  }
}

__device__ float power(float x, int k) {
  float c = 1.0f;
  for (int j = 0; j < k; j++) c *= x;
  return c;
}

// (g) Grid-stride loop over float4 (16-byte loads and stores), the last n % 4
// elements one by one; a plain loop if the pointers are not 16-byte aligned.
__global__ void best_kernel(const float* in, float* out, int n, int k) {
  const long long tid = global_tid();
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const bool aligned =
      ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) & 15) == 0;
  if (!aligned) {
    for (long long i = tid; i < n; i += stride) out[i] = power(in[i], k);
    return;
  }
  const long long n4 = n / 4;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  float4* out4 = reinterpret_cast<float4*>(out);
  for (long long i = tid; i < n4; i += stride) {
    const float4 v = in4[i];
    float4 r;
    r.x = power(v.x, k);
    r.y = power(v.y, k);
    r.z = power(v.z, k);
    r.w = power(v.w, k);
    out4[i] = r;
  }
  for (long long i = n4 * 4 + tid; i < n; i += stride) out[i] = power(in[i], k);
}

// (h) Every neighbour read from global memory; outside [0, n) counts as 0.
__global__ void window_global_kernel(const float* in, float* out, int n, int radius) {
  const long long i = global_tid();
  if (i < n) {
    float sum = 0.0f;
    for (int j = -radius; j <= radius; ++j) {
      const long long g = i + j;
      if (g >= 0 && g < n) sum += in[g];
    }
    out[i] = sum / static_cast<float>(2 * radius + 1);
  }
}

// (i) The block's kBlockSize values plus the halo loaded once into shared memory.
__global__ void window_shared_kernel(const float* in, float* out, int n, int radius) {
  __shared__ float tile[kBlockSize + 2 * kMaxRadius];
  const long long start = static_cast<long long>(blockIdx.x) * kBlockSize;
  for (int t = threadIdx.x; t < kBlockSize + 2 * radius; t += blockDim.x) {
    const long long g = start - radius + t;
    tile[t] = (g >= 0 && g < n) ? in[g] : 0.0f;
  }
  __syncthreads();
  const long long i = start + threadIdx.x;
  if (i < n) {
    float sum = 0.0f;
    for (int j = 0; j <= 2 * radius; ++j) sum += tile[threadIdx.x + j];
    out[i] = sum / static_cast<float>(2 * radius + 1);
  }
}

int round_up(int value, int unit) { return (value + unit - 1) / unit * unit; }

}  // namespace

cudaError_t symbol_upload(const float* host, int n) {
  return cudaMemcpyToSymbol(dA, host, n * sizeof(float), 0, cudaMemcpyHostToDevice);
}

cudaError_t symbol_download(float* host, int n) {
  return cudaMemcpyFromSymbol(host, dA, n * sizeof(float), 0, cudaMemcpyDeviceToHost);
}

// 256 threads, 4 floats per iteration, a grid of a few blocks per SM (fewer when n
// is small).
void power_best(const float* in, float* out, int n, int k, Launch launch) {
  const int threads = 256;
  int blocks = launch.blocks;
  int block_size = threads;
  if (blocks > 0) {
    block_size = launch.threads;
  } else {
    int device = 0;
    int sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (sms <= 0) sms = 1;
    blocks = sms * 8;
    const long long needed = (static_cast<long long>(n) / 4 + threads - 1) / threads;
    if (needed < blocks) blocks = static_cast<int>(needed);
    if (blocks < 1) blocks = 1;
  }
  best_kernel<<<blocks, block_size>>>(in, out, n, k);
}

// Part 3: the blocks of one kernel an SM can hold, limit by limit.
OccupancyLimits occupancy_limits(const cudaFuncAttributes& kernel, const cudaDeviceProp& device,
                                 int threads_per_block, std::size_t dynamic_shared_bytes) {
  constexpr int kUnlimited = 1 << 30;
  OccupancyLimits limits{};
  const int warps_per_block = (threads_per_block + device.warpSize - 1) / device.warpSize;

  // Block slots and warps.
  limits.by_block_slots = device.maxBlocksPerMultiProcessor;
  limits.by_warps = (device.maxThreadsPerMultiProcessor / device.warpSize) / warps_per_block;

  // Registers: given to warps in units of 256, each partition holds whole warps.
  const int regs_per_warp = round_up(kernel.numRegs * device.warpSize, kRegisterAllocationUnit);
  if (regs_per_warp == 0) {
    limits.by_registers = kUnlimited;
  } else {
    const int regs_checked = regs_per_warp * round_up(warps_per_block, kSmPartitions);
    if (regs_checked > device.regsPerBlock) {
      limits.by_registers = 0;
    } else {
      const int regs_per_partition = device.regsPerMultiprocessor / kSmPartitions;
      const int warps_per_partition = regs_per_partition / regs_per_warp;
      limits.by_registers = warps_per_partition * kSmPartitions / warps_per_block;
    }
  }

  // Shared memory: static + dynamic + the driver's reserve, in units of 128 bytes.
  const std::size_t smem =
      kernel.sharedSizeBytes + dynamic_shared_bytes + device.reservedSharedMemPerBlock;
  const std::size_t smem_per_block =
      (smem + kSharedAllocationUnit - 1) / kSharedAllocationUnit * kSharedAllocationUnit;
  if (smem_per_block > device.sharedMemPerBlock + device.reservedSharedMemPerBlock) {
    limits.by_shared = 0;
  } else if (smem_per_block == 0) {
    limits.by_shared = kUnlimited;
  } else {
    limits.by_shared = static_cast<int>(device.sharedMemPerMultiprocessor / smem_per_block);
  }
  return limits;
}

}  // namespace lab4

// The launchers of (a)-(f), (h) and (i), fixed by the lab: they launch the kernels
// above by name.
#include "power_array_launchers.cuh"
