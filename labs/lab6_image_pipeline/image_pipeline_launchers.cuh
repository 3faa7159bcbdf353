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

namespace lab6 {

static_assert(kThreeKernelTile >= 256, "a tile of 256 elements or more: Scratch's room");

// One level: scan the tiles, scan their totals (the same three kernels, one level
// down, until they fit in one tile), add the scanned totals back. Each level's
// totals and their scan take 256-byte-aligned room at the front of the scratch.
void scan_three_kernel(const int* in, int* out, int n, Scratch scratch) {
  const int tiles =
      static_cast<int>((static_cast<long long>(n) + kThreeKernelTile - 1) / kThreeKernelTile);
  if (tiles == 1) {
    scan_tile_kernel<<<1, kThreeKernelThreads>>>(in, out, n, nullptr);
    return;
  }
  const std::size_t room = (static_cast<std::size_t>(tiles) + 63) / 64 * 64;
  int* totals = static_cast<int*>(scratch.data);
  int* scanned = totals + room;
  const Scratch rest{scanned + room, scratch.bytes - 2 * room * sizeof(int)};
  scan_tile_kernel<<<tiles, kThreeKernelThreads>>>(in, out, n, totals);
  scan_three_kernel(totals, scanned, tiles, rest);
  add_tile_prefix_kernel<<<tiles, kThreeKernelThreads>>>(out, n, scanned);
}

}  // namespace lab6
