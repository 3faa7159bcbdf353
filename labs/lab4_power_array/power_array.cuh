// lab4 contract: every function the harness calls, defined in
// skeletons/lab4_power_array/power_kernels.cu (reference: solutions/...). The
// student writes the kernels of (a)-(f), (h) and (i), which that file launches
// through power_array_launchers.cuh, and symbol_upload, symbol_download and
// power_best.
//
// Part 1 computes A[i] = A[i]^k (k >= 0, repeated multiplication: A^0 = 1) three
// ways (global reads, a register, shared memory), with the array held two ways:
//   - a cudaMalloc pointer: the launchers get `in` and `out`, two distinct device
//     arrays of n floats (out arrives poisoned with NaN: write every element);
//   - the course's `__device__ float dA[kSymbolCapacity]`, defined in YOUR file,
//     filled with cudaMemcpyToSymbol and read back with cudaMemcpyFromSymbol;
//     the kernels work in place on it, like the course's kernels.
// Part 2 is a window (1D stencil) where shared memory does pay: out[i] is the mean
// of in[i - radius .. i + radius], values outside [0, n) counting as 0.
//
// Part 3 is occupancy: from a kernel's resources (cudaFuncGetAttributes) and the
// device's limits (cudaGetDeviceProperties), how many of its blocks one SM holds.
//
// Launchers launch on the default stream and return without synchronizing or
// allocating. Any n >= 1 must work: the grid may hold more threads than n.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace lab4 {

// The course's BLOCKSIZE: the block size of every *_shared variant, known at compile
// time so that it can size a __shared__ array (blockDim.x cannot).
inline constexpr int kBlockSize = 128;

// Size of the __device__ array dA: fixed at compile time, allocated when the
// program loads whatever n turns out to be (64 MiB here). The harness never asks
// for more than this many elements from the symbol variants.
inline constexpr int kSymbolCapacity = 1 << 24;

// Largest window radius the harness asks for (the shared tile is
// kBlockSize + 2 * kMaxRadius floats).
inline constexpr int kMaxRadius = 64;

// Launch configuration, chosen on the lab program's command line.
struct Launch {
  int blocks;   // grid size: at least enough blocks of `threads` to cover n
                // (power_best gets 0 unless --blocks is given: pick your own grid)
  int threads;  // threads per block (kBlockSize for the *_shared variants)
};

// ---- Part 1, cudaMalloc pointer: out[i] = in[i]^k ---------------------------
// (a) The course's kernel: the loop multiplies by in[i] read from global memory
//     at every iteration (k reads in the source code).
void power_global(const float* in, float* out, int n, int k, Launch launch);
// (b) in[i] read once into a register (float x = in[i];), then k multiplications.
void power_register(const float* in, float* out, int n, int k, Launch launch);
// (c) the block's values loaded into __shared__ float data[kBlockSize], then
//     __syncthreads(), then k multiplications reading shared memory.
void power_shared(const float* in, float* out, int n, int k, Launch launch);

// ---- Part 1, the course's __device__ array dA[kSymbolCapacity], in place ----
// Copy n floats to / from dA (cudaMemcpyToSymbol / cudaMemcpyFromSymbol) and
// return the copy's status. Copies and nothing else: the harness checks each on
// values of its own, reading and writing dA itself.
cudaError_t symbol_upload(const float* host, int n);
cudaError_t symbol_download(float* host, int n);
// dA's device address (cudaGetSymbolAddress), or nullptr: written by the lab, in
// power_array_launchers.cuh. The harness fills dA and reads it back through it
// when it checks and times (d), (e) and (f), so that no copy of yours sees the
// kernels' values.
float* symbol_array();
// (d), (e), (f): (a), (b), (c) on dA: dA[i] = dA[i]^k for i < n.
void power_symbol_global(int n, int k, Launch launch);
void power_symbol_register(int n, int k, Launch launch);
void power_symbol_shared(int n, int k, Launch launch);

// (g) Your fastest out[i] = in[i]^k, any method and grid (launch.blocks is 0 unless
// given). The timing test measures every Part 1 variant and grades the fastest.
void power_best(const float* in, float* out, int n, int k, Launch launch);

// ---- Part 2: a window of 2 * radius + 1 neighbours (0 <= radius <= kMaxRadius) --
// out[i] = (in[i - radius] + ... + in[i + radius]) / (2 * radius + 1), in[j] = 0
// outside [0, n).
// (h) every neighbour read from global memory (2 * radius + 1 loads per output).
void window_global(const float* in, float* out, int n, int radius, Launch launch);
// (i) the block's kBlockSize values plus radius on each side (the halo) loaded
//     once into shared memory, __syncthreads(), then the sum read from there.
void window_shared(const float* in, float* out, int n, int radius, Launch launch);

// ---- Part 3: occupancy ------------------------------------------------------
// The kernels of (a)-(i), for the harness's occupancy table and test:
// kernel_address (written by the lab, in power_array_launchers.cuh) gives each one's
// address for cudaFuncGetAttributes and cudaOccupancyMaxActiveBlocksPerMultiprocessor.
enum class KernelId {
  kGlobal,
  kRegister,
  kShared,
  kSymbolGlobal,
  kSymbolRegister,
  kSymbolShared,
  kBest,
  kWindowGlobal,
  kWindowShared,
};
const void* kernel_address(KernelId id);

// How many blocks of one kernel a single SM can hold at once, limit by limit: each
// field is the most blocks that resource alone allows (a very large number where
// it allows any number). The theoretical occupancy is the smallest of the four
// blocks, times the warps per block, over the SM's maximum warps.
struct OccupancyLimits {
  int by_block_slots;  // device.maxBlocksPerMultiProcessor
  int by_warps;        // the SM's warps (maxThreadsPerMultiProcessor / warpSize) / warps per block
  int by_registers;    // 0 when one block needs more registers than regsPerBlock
  int by_shared;       // 0 when one block needs more than sharedMemPerBlock
};

// The limits for blocks of `threads_per_block` threads (1 up to
// kernel.maxThreadsPerBlock) with `dynamic_shared_bytes` of dynamic shared memory,
// as cudaOccupancyMaxActiveBlocksPerMultiprocessor counts them on sm_80 and newer
// (the default shared memory carveout):
//   - a block takes ceil(threads / warpSize) warps;
//   - registers are given to warps: kernel.numRegs * warpSize rounded up to
//     kRegisterAllocationUnit per warp; each of the SM's kSmPartitions gets
//     regsPerMultiprocessor / kSmPartitions registers and holds as many whole
//     warps as fit; a block whose warps, rounded up to a multiple of kSmPartitions,
//     need more than device.regsPerBlock registers cannot launch;
//   - shared memory: kernel.sharedSizeBytes (static) + dynamic_shared_bytes +
//     device.reservedSharedMemPerBlock (the driver's own), rounded up to
//     kSharedAllocationUnit; a block cannot launch above device.sharedMemPerBlock +
//     device.reservedSharedMemPerBlock; the SM has device.sharedMemPerMultiprocessor.
inline constexpr int kRegisterAllocationUnit = 256;  // registers
inline constexpr int kSmPartitions = 4;              // warp schedulers, each with its registers
inline constexpr int kSharedAllocationUnit = 128;    // bytes
OccupancyLimits occupancy_limits(const cudaFuncAttributes& kernel, const cudaDeviceProp& device,
                                 int threads_per_block, std::size_t dynamic_shared_bytes);

}  // namespace lab4
