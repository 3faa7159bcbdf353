// lab3 contract: every function the harness calls, defined in
// skeletons/lab3_reduction/reduce_kernels.cu and, for the nested reductions
// (11)-(13), nested_kernels.cu (reference: solutions/...). The student writes the
// kernels of (1)-(9), which that file launches through reduction_launchers.cuh,
// reduce_shuffle with its kernel, and the nested kernels with their launchers.
//
// Each launcher receives device pointers, launches its kernel(s) on the default
// stream and returns without synchronizing or allocating.
//
//   data     the n input ints, in device memory (256-byte aligned), followed by
//            padding up to padded_size(n) ints. The padding holds GARBAGE and is
//            yours: a kernel may overwrite it (e.g. with zeros) and may overwrite
//            the n inputs too (the course's kernels reduce in place). The harness
//            restores the whole buffer before every run, outside the timed region.
//   partial  room for padded_size(n) / 64 ints of GARBAGE (poisoned before every
//            run). Who sums what:
//              - the per-block variants (neighbored ... complete_unroll_template)
//                launch exactly launch.blocks blocks, and block b must write to
//                partial[b] the sum of its chunk of data: elements
//                [b * chunk, min((b + 1) * chunk, n)) with chunk = launch.threads x
//                the variant's unroll factor (1, 2, 4 or 8). The harness then adds
//                partial[0 .. launch.blocks) on the host, as the course's kernels do.
//                The nested variants (11)-(13) are per-block variants with
//                chunk = launch.threads, like (1)-(3);
//              - reduce_shuffle computes the WHOLE sum on the device and writes it
//                to partial[0] (like CUB's DeviceReduce::Sum, which it is timed
//                against); partial[1 ..] is scratch space.
//
// Overflow: every input the harness hands over (its datasets, and the 2^28
// case generated in-process) has sum(|value|) <= 2^31 - 1, which lab3 checks on
// loading. So no partial sum, added in any order, can overflow an int.
//
// Block sizes: launch.threads is a power of two between 64 and 1024 (the course's
// tree reductions halve the block; the unrolled last warp reads tid + 32).
#pragma once
#include <cuda_runtime.h>

namespace lab3 {

// Elements in the data buffer: n rounded up to a multiple of 8192 (the largest
// chunk: 8 data blocks x 1024 threads), so every block's chunk lies inside it.
inline constexpr long long kPadMultiple = 8192;
inline long long padded_size(long long n) {
  return (n + kPadMultiple - 1) / kPadMultiple * kPadMultiple;
}

struct Launch {
  int blocks;   // grid size: ceil(n / chunk) for the per-block variants;
                // reduce_shuffle gets 0 unless --blocks is given (pick your own grid)
  int threads;  // threads per block, a power of two in [64, 1024]
};

// (1) Neighbored pairs, the course's first kernel: at stride s, thread tid adds
//     element tid + s into tid when tid % (2 * s) == 0 (divergent warps).
void reduce_neighbored(int* data, int n, int* partial, Launch launch);
// (2) Neighbored pairs with reindexed threads: thread tid works on element
//     2 * s * tid, so the active threads are the first ones of the block.
void reduce_neighbored_less(int* data, int n, int* partial, Launch launch);
// (3) Interleaved pairs: stride from blockDim.x / 2 down to 1, thread tid adds
//     tid + stride into tid.
void reduce_interleaved(int* data, int n, int* partial, Launch launch);
// (4)-(6) Unrolling: each block first adds 2, 4 or 8 data blocks of blockDim.x
//     elements into the first one, then reduces it like (3). The grid is 2, 4 or
//     8 times smaller.
void reduce_unrolling2(int* data, int n, int* partial, Launch launch);
void reduce_unrolling4(int* data, int n, int* partial, Launch launch);
void reduce_unrolling8(int* data, int n, int* partial, Launch launch);
// (7) Unrolling 8 plus the last warp unrolled (strides 32, 16, ..., 1 without
//     __syncthreads).
void reduce_unroll_warps8(int* data, int n, int* partial, Launch launch);
// (8) Unrolling 8, the whole in-block loop unrolled by hand for blockDim.x <= 1024,
//     and the last warp unrolled.
void reduce_complete_unroll8(int* data, int n, int* partial, Launch launch);
// (9) The same with the block size as a template parameter, so the compiler
//     removes the branches that cannot be taken.
void reduce_complete_unroll_template(int* data, int n, int* partial, Launch launch);
// (10) Your fastest reduction: a grid-stride loop (any grid covers any n), wide
//      loads, warp shuffles, and the whole sum written to partial[0].
void reduce_shuffle(int* data, int n, int* partial, Launch launch);

// (11)-(13) Nested reductions with dynamic parallelism (nested_kernels.cu, the
//      only file compiled with relocatable device code, so the only one whose
//      kernels may launch kernels). The course's gpuRecursiveReduce,
//      gpuRecursiveReduceNosync and gpuRecursiveReduce2 in their CUDA 12 form:
//      device-side cudaDeviceSynchronize() is gone (README, "Nested reduction").
// (11) Each block halves its chunk in place, then its thread 0 launches a child grid
//      of one block on the first half, and so on down to 2 elements; the sums
//      stay at the start of each chunk, and a tail launch (cudaStreamTailLaunch),
//      which starts once the parent grid and all its children are complete, copies
//      them to partial. At most kMaxNestedBlocks blocks (one child tree each).
void nested_reduce(int* data, int n, int* partial, Launch launch);
// (12) The same tree, but the last child writes its chunk's sum to partial itself:
//      nothing waits for anything (the host's wait covers the whole tree).
void nested_reduce_nosync(int* data, int n, int* partial, Launch launch);
// (13) Only thread 0 of block 0 launches: the next level is one grid of every
//      block with half the threads, tail-launched so that it starts after the
//      whole parent grid. log2(launch.threads) launches in all.
void nested_reduce2(int* data, int n, int* partial, Launch launch);

// (11) and (12) launch a child tree per block; the harness raises the device
// runtime's pending-launch limit for them (a launch past it fails inside the
// kernel and its sum is lost) up to this many blocks: the course's 2^24 ints in
// blocks of 512.
inline constexpr int kMaxNestedBlocks = 32768;

}  // namespace lab3
