// lab4: the power-array kernels, the window and occupancy (contract:
// labs/lab4_power_array/power_array.cuh). The launchers of (a)-(f), (h) and (i)
// are the lab's (power_array_launchers.cuh, included at the end).
#include <climits>

#include "power_array.cuh"

namespace lab4 {
namespace {

// The course's array: __device__ float dA[N], its size fixed at compile time.
__device__ float dA[kSymbolCapacity];

__device__ long long global_thread() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// x^k by k multiplications (x^0 = 1).
__device__ float power_of(float x, int k) {
  float c = 1.0f;
  for (int j = 0; j < k; ++j) c *= x;
  return c;
}

// (a) The course's kernel: in[i] named inside the loop.
__global__ void global_kernel(const float* in, float* out, int n, int k) {
  const long long i = global_thread();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; ++j) c *= in[i];
    out[i] = c;
  }
}

// (b) in[i] read once into a register.
__global__ void register_kernel(const float* in, float* out, int n, int k) {
  const long long i = global_thread();
  if (i < n) out[i] = power_of(in[i], k);
}

// (c) The block's values in shared memory; the barrier outside the bound check.
__global__ void shared_kernel(const float* in, float* out, int n, int k) {
  __shared__ float data[kBlockSize];
  const long long i = global_thread();
  data[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; ++j) c *= data[threadIdx.x];
    out[i] = c;
  }
}

// (d), (e), (f): the same three, in place on dA.
__global__ void symbol_global_kernel(int n, int k) {
  const long long i = global_thread();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; ++j) c *= dA[i];
    dA[i] = c;
  }
}

__global__ void symbol_register_kernel(int n, int k) {
  const long long i = global_thread();
  if (i < n) dA[i] = power_of(dA[i], k);
}

__global__ void symbol_shared_kernel(int n, int k) {
  __shared__ float data[kBlockSize];
  const long long i = global_thread();
  data[threadIdx.x] = i < n ? dA[i] : 0.0f;
  __syncthreads();
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; ++j) c *= data[threadIdx.x];
    dA[i] = c;
  }
}

// (g) A grid-stride loop over float4s, two loads in flight per thread per step;
// a scalar loop for the last n % 4 elements, or for all of them if either pointer
// is not 16-byte aligned.
__device__ float4 power4(float4 v, int k) {
  return make_float4(power_of(v.x, k), power_of(v.y, k), power_of(v.z, k), power_of(v.w, k));
}

__global__ void best_kernel(const float* in, float* out, int n, int k) {
  const long long tid = global_thread();
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  long long scalar_from = 0;
  const bool aligned =
      ((reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out)) &
       15) == 0;
  if (aligned) {
    const long long quads = n / 4;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    float4* out4 = reinterpret_cast<float4*>(out);
    long long q = tid;
    for (; q + stride < quads; q += 2 * stride) {
      const float4 a = in4[q];
      const float4 b = in4[q + stride];
      out4[q] = power4(a, k);
      out4[q + stride] = power4(b, k);
    }
    if (q < quads) out4[q] = power4(in4[q], k);
    scalar_from = 4 * quads;
  }
  for (long long i = scalar_from + tid; i < n; i += stride) out[i] = power_of(in[i], k);
}

// (h) Every neighbour from global memory; outside [0, n) counts as 0.
__global__ void window_global_kernel(const float* in, float* out, int n, int radius) {
  const long long i = global_thread();
  if (i >= n) return;
  float sum = 0.0f;
  for (long long j = i - radius; j <= i + radius; ++j) {
    if (j >= 0 && j < n) sum += in[j];
  }
  out[i] = sum / (2 * radius + 1);
}

// (i) The block's kBlockSize values and radius on each side loaded once into
// shared memory, then every thread sums its window from there.
__global__ void window_shared_kernel(const float* in, float* out, int n, int radius) {
  __shared__ float tile[kBlockSize + 2 * kMaxRadius];
  const long long start = static_cast<long long>(blockIdx.x) * kBlockSize;
  for (int j = threadIdx.x; j < kBlockSize + 2 * radius; j += kBlockSize) {
    const long long g = start - radius + j;
    tile[j] = g >= 0 && g < n ? in[g] : 0.0f;
  }
  __syncthreads();  // thread t reads what its neighbours loaded
  const long long i = start + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j <= 2 * radius; ++j) sum += tile[threadIdx.x + j];
  out[i] = sum / (2 * radius + 1);
}

int ceil_div(long long a, long long b) { return static_cast<int>((a + b - 1) / b); }

}  // namespace

// The C runtime calls on dA's address (not cuda_runtime.h's templates around them).
cudaError_t symbol_upload(const float* host, int n) {
  return cudaMemcpyToSymbol(static_cast<const void*>(&dA), host, n * sizeof(float), 0,
                            cudaMemcpyHostToDevice);
}

cudaError_t symbol_download(float* host, int n) {
  return cudaMemcpyFromSymbol(host, static_cast<const void*>(&dA), n * sizeof(float), 0,
                              cudaMemcpyDeviceToHost);
}

// Enough blocks to fill every SM once, never more than the float4s need.
void power_best(const float* in, float* out, int n, int k, Launch launch) {
  const int threads = launch.threads;
  int blocks = launch.blocks;
  if (blocks < 1) {
    static int sms = 0;
    if (sms == 0) {
      int device = 0;
      cudaGetDevice(&device);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
      if (sms < 1) sms = 1;
    }
    const int resident = sms * (2048 / threads > 0 ? 2048 / threads : 1);
    const int needed = ceil_div((n + 3) / 4, threads);
    blocks = resident < needed ? resident : needed;
    if (blocks < 1) blocks = 1;
  }
  best_kernel<<<blocks, threads>>>(in, out, n, k);
}

// Part 3: each resource's limit, with the allocation rules of the contract.
OccupancyLimits occupancy_limits(const cudaFuncAttributes& kernel, const cudaDeviceProp& device,
                                 int threads_per_block, std::size_t dynamic_shared_bytes) {
  OccupancyLimits limits{};
  const int warps_per_block = ceil_div(threads_per_block, device.warpSize);
  limits.by_block_slots = device.maxBlocksPerMultiProcessor;
  limits.by_warps = (device.maxThreadsPerMultiProcessor / device.warpSize) / warps_per_block;

  // Registers go to whole warps, in units, and each partition keeps its own.
  const long long regs_per_warp =
      static_cast<long long>(ceil_div(static_cast<long long>(kernel.numRegs) * device.warpSize,
                                      kRegisterAllocationUnit)) *
      kRegisterAllocationUnit;
  if (regs_per_warp == 0) {
    limits.by_registers = INT_MAX;
  } else {
    const long long warps_checked =
        static_cast<long long>(ceil_div(warps_per_block, kSmPartitions)) * kSmPartitions;
    if (regs_per_warp * warps_checked > device.regsPerBlock) {
      limits.by_registers = 0;
    } else {
      const long long warps_per_partition =
          (device.regsPerMultiprocessor / kSmPartitions) / regs_per_warp;
      limits.by_registers = static_cast<int>(warps_per_partition * kSmPartitions / warps_per_block);
    }
  }

  // Shared memory: static + dynamic + the driver's reserve, in units.
  const long long used = static_cast<long long>(kernel.sharedSizeBytes) +
                         static_cast<long long>(dynamic_shared_bytes) +
                         static_cast<long long>(device.reservedSharedMemPerBlock);
  const long long allocated =
      static_cast<long long>(ceil_div(used, kSharedAllocationUnit)) * kSharedAllocationUnit;
  const long long block_limit = static_cast<long long>(device.sharedMemPerBlock) +
                                static_cast<long long>(device.reservedSharedMemPerBlock);
  if (allocated > block_limit) {
    limits.by_shared = 0;
  } else if (allocated == 0) {
    limits.by_shared = INT_MAX;
  } else {
    limits.by_shared =
        static_cast<int>(static_cast<long long>(device.sharedMemPerMultiprocessor) / allocated);
  }
  return limits;
}

}  // namespace lab4

// The launchers of (a)-(f), (h) and (i), fixed by the lab: they launch the kernels
// above by name.
#include "power_array_launchers.cuh"
