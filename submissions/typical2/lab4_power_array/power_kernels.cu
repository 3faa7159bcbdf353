// lab4: your kernels. Read labs/lab4_power_array/README.md and the contract
// labs/lab4_power_array/power_array.cuh first.
//
// The launchers are written, in labs/lab4_power_array/power_array_launchers.cuh:
// launch.blocks blocks of launch.threads threads (the *_shared ones kBlockSize
// threads). power_best's is yours: it picks its grid, and must not synchronize or
// allocate (the harness does that). Every kernel must work for any n >= 1: the grid may hold
// more threads than n, so check bounds. A^0 = 1 for every A.
#include "power_array.cuh"

namespace lab4 {
namespace {

// The course's array: __device__ float dA[N], its size fixed at compile time.
__device__ float dA[kSymbolCapacity];

// (a) The course's kernel: i = threadIdx.x + blockIdx.x * blockDim.x; if i < n,
// c = 1, multiply c by in[i] k times (read in[i] inside the loop), out[i] = c.
__global__ void global_kernel(const float* in, float* out, int n, int k) {
  // TODO
}

// (b) The same with in[i] read once into a register: float x = in[i];
__global__ void register_kernel(const float* in, float* out, int n, int k) {
  // TODO
}

// (c) __shared__ float data[kBlockSize]; each thread copies in[i] into
// data[threadIdx.x], then __syncthreads(), then multiplies by data[threadIdx.x].
// Every thread of the block must reach the __syncthreads(): keep it out of
// `if (i < n)`.
__global__ void shared_kernel(const float* in, float* out, int n, int k) {
  // TODO
}

// (d), (e), (f): (a), (b), (c) in place on dA: read dA[i], write dA[i].
__global__ void symbol_global_kernel(int n, int k) {
  // TODO
}

__global__ void symbol_register_kernel(int n, int k) {
  // TODO
}

__global__ void symbol_shared_kernel(int n, int k) {
  // TODO
}

// (g) Your fastest power: the time is set by the bytes moved, not by the
// multiplications. Ideas: 16-byte loads (float4: n may not be a multiple of 4),
// several loads in flight per thread, a grid sized to the GPU.
__global__ void best_kernel(const float* in, float* out, int n, int k) {
  // TODO
}

// (h) out[i] = (in[i - radius] + ... + in[i + radius]) / (2 * radius + 1), each
// neighbour read from global memory; neighbours outside [0, n) count as 0.
__global__ void window_global_kernel(const float* in, float* out, int n, int radius) {
  // TODO
}

// (i) __shared__ float tile[kBlockSize + 2 * kMaxRadius]; the block's kBlockSize
// elements start at blockIdx.x * kBlockSize: load in[start - radius ..
// start + kBlockSize + radius) into the tile (0 outside [0, n); the threads load
// kBlockSize + 2 * radius values, some more than one), __syncthreads(), then sum
// tile[threadIdx.x .. threadIdx.x + 2 * radius].
__global__ void window_shared_kernel(const float* in, float* out, int n, int radius) {
  // TODO
}

}  // namespace

cudaError_t symbol_upload(const float* host, int n) {
  // TODO: cudaMemcpyToSymbol(dA, host, n * sizeof(float), 0, cudaMemcpyHostToDevice)
  return cudaSuccess;
}

cudaError_t symbol_download(float* host, int n) {
  // TODO: cudaMemcpyFromSymbol(...), the way back
  return cudaSuccess;
}

void power_best(const float* in, float* out, int n, int k, Launch launch) {
  // TODO: choose your grid when launch.blocks is 0 (it is, unless --blocks is given)
  const int threads = launch.threads;
  const int blocks = launch.blocks > 0 ? launch.blocks : (n + threads - 1) / threads;
  best_kernel<<<blocks, threads>>>(in, out, n, k);
}

// Part 3: the blocks of one kernel an SM can hold, limit by limit (the contract gives
// the rules). Ceiling divisions and rounding up to a unit are where the answers
// differ from a first guess: 100 threads take 4 warps, 18 registers a thread take
// 768 per warp.
OccupancyLimits occupancy_limits(const cudaFuncAttributes& kernel, const cudaDeviceProp& device,
                                 int threads_per_block, std::size_t dynamic_shared_bytes) {
  // TODO: warps per block; then each of the four limits
  return OccupancyLimits{0, 0, 0, 0};
}

}  // namespace lab4

// The launchers of (a)-(f), (h) and (i), fixed by the lab: they launch the kernels
// above by name.
#include "power_array_launchers.cuh"
