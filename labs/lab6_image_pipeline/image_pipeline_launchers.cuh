// lab6: the launcher the lab fixes, the three-kernel scan (2a). It is a
// definition, not a declaration: scan_kernels.cu includes this once, at its end,
// after what it uses:
//   kThreeKernelThreads  threads per block of both kernels
//   kThreeKernelTile     elements per tile (a block's share), at least 256
//   scan_tile_kernel(in, out, n, tile_totals)
//       block b scans tile b, in[b * tile .. min((b + 1) * tile, n)), inclusively
//       into out, and, when tile_totals is not null, writes the tile's total to
//       tile_totals[b];
//   add_tile_prefix_kernel(out, n, scanned_totals)
//       block b > 0 adds scanned_totals[b - 1], the total of tiles 0 .. b - 1, to
//       every element of its tile of out.
// The name sorts after the contract's: the object check reads the lab's first
// *.cuh as its contract.
#pragma once
#include "image_pipeline.cuh"
#include "scan_levels.cuh"

namespace lab6 {

static_assert(kThreeKernelTile >= 256, "a tile of 256 elements or more: Scratch's room");

// The levels are launched by the harness's scan_levels (scan_levels.cuh).
void scan_three_kernel(const int* in, int* out, int n, Scratch scratch) {
  scan_levels({kThreeKernelThreads, kThreeKernelTile, scan_tile_kernel, add_tile_prefix_kernel}, in,
              out, n, scratch);
}

}  // namespace lab6
