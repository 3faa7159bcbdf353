// lab6 steps 1-3: the compaction. Read labs/lab6_image_pipeline/README.md and the
// contract labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the kernels and their launchers, except the three-kernel scan's
// launcher, which the lab fixes (image_pipeline_launchers.cuh, included at the
// end): you write the two kernels it launches and choose its two constants.
// Every launcher follows the contract's rules. Put your helpers in the anonymous
// namespace below.
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

// The three-kernel scan's shape, used by its launcher: threads per block and
// elements per tile (at least 256). Change them as your kernels need.
constexpr int kThreeKernelThreads = 256;
constexpr int kThreeKernelTile = 256;
// The blocks per SM the compiler leaves registers for in the scan kernels
// (__launch_bounds__): raise it when `nvcc -Xptxas -v` shows that registers
// limit how many blocks an SM holds.
constexpr int kScanBlocksPerSm = 1;

// (1) predicate[i] = (buffer[i] != kGarbage) for every i < n. Start with one element
// per thread, then try a grid-stride loop over several elements per thread with a
// grid that many times smaller (the course's report: four), and 16-byte loads (int4).
__global__ void predicate_kernel(const int* buffer, int n, int* predicate) {
  // TODO
}

// (2a) The three-kernel scan's first and third kernels (the launcher is fixed,
// image_pipeline_launchers.cuh: read it). Block b scans tile b of
// kThreeKernelTile elements inclusively into out (0 past n) and, when tile_totals
// is not null, writes the tile's total to tile_totals[b]. Start with a simple
// block scan in shared memory (Hillis-Steele or Blelloch, one element per
// thread, kThreeKernelTile == kThreeKernelThreads); then several elements per
// thread.
__global__ void __launch_bounds__(kThreeKernelThreads, kScanBlocksPerSm)
    scan_tile_kernel(const int* in, int* out, int n, int* tile_totals) {
  // TODO
}

// (2a) The third kernel: block b > 0 adds scanned_totals[b - 1] to every element
// of its tile of out (below n).
__global__ void add_tile_prefix_kernel(int* out, int n, const int* scanned_totals) {
  // TODO
}

// (2b) The single-pass scan with decoupled look-back. In `scratch` (poisoned:
// clear what must start at zero with cudaMemsetAsync in the launcher, before the
// kernel): a tile counter, and per tile a flag and two values (its aggregate, its
// inclusive prefix). Each block:
//   - takes its tile index from atomicAdd on the counter (blockIdx.x gives no
//     order in which blocks start: waiting on a block that has not started hangs);
//   - scans its tile, publishes its aggregate (flag 1; tile 0 publishes its
//     inclusive prefix at once, flag 2);
//   - looks back at the tiles before it, adding aggregates until it meets an
//     inclusive prefix, waiting on tiles whose flag is still 0;
//   - publishes its own inclusive prefix (flag 2) and writes its tile plus the
//     prefix of the tiles before it.
// A value must be visible to other blocks before its flag: __threadfence()
// between writing a value and its flag, and between reading a flag and its
// value; flags and values read while other blocks write them are `volatile`.
// Then make it fast enough for the timing bar: the fences cost time, and a flag
// and its value packed in one 64-bit word, written with one store and read with
// one load, need none (the README's question 4).

// (2b) Your look-back scan kernel (the state's layout in `scratch` is yours).
__global__ void lookback_kernel(const int* in, int* out, int n) {
  // TODO
}

// (2c) exclusive[0] = 0, exclusive[i] = inclusive[i - 1].
__global__ void shift_kernel(const int* inclusive, int* exclusive, int n) {
  // TODO
}

// (3) For every i < n whose buffer[i] is not kGarbage: out[addresses[i]] = buffer[i].
__global__ void scatter_kernel(const int* buffer, const int* addresses, int n, int* out) {
  // TODO
}

}  // namespace

void build_predicate(const int* buffer, int n, int* predicate) {
  predicate_kernel<<<1, 256>>>(buffer, n, predicate);  // TODO: your grid
}

void scan_lookback(const int* in, int* out, int n, Scratch scratch) {
  // TODO: clear your state in scratch (cudaMemsetAsync) and hand it to the kernel
  lookback_kernel<<<1, 256>>>(in, out, n);  // TODO: one block per tile
}

void shift_exclusive(const int* inclusive, int* exclusive, int n) {
  shift_kernel<<<1, 256>>>(inclusive, exclusive, n);  // TODO: your grid
}

void scatter(const int* buffer, const int* addresses, int n, int* out) {
  scatter_kernel<<<1, 256>>>(buffer, addresses, n, out);  // TODO: your grid
}

}  // namespace lab6

// The three-kernel scan's launcher, fixed by the lab: it launches scan_tile_kernel
// and add_tile_prefix_kernel.
#include "image_pipeline_launchers.cuh"
