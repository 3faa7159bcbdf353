// lab6: a three-kernel scan's kernels and shape, and scan_levels, which launches
// them level by level. It is the harness's (lab6.cu): the lab's launcher
// (image_pipeline_launchers.cuh) calls it with the student's kernels, and the
// course's own three-kernel scan, the look-back scan's yardstick, with its own.
// The name sorts after the contract's: the object check reads the lab's first
// *.cuh as its contract.
#pragma once
#include "image_pipeline.cuh"

namespace lab6 {

struct ThreeKernelScan {
  int threads;  // per block, in both kernels
  int tile;     // elements per block
  // Block b scans tile b of in into out and, when tile_totals is not null, writes
  // the tile's total to tile_totals[b].
  void (*scan_tile)(const int* in, int* out, int n, int* tile_totals);
  // Block b > 0 adds scanned_totals[b - 1] to every element of its tile of out.
  void (*add_tile_prefix)(int* out, int n, const int* scanned_totals);
};

void scan_levels(const ThreeKernelScan& kernels, const int* in, int* out, int n, Scratch scratch);

}  // namespace lab6
