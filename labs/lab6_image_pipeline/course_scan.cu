// lab6's harness: the course's own three-kernel scan, the yardstick the look-back
// scan is timed against (lab6.hpp), launched by scan_levels (lab6.cu) as the lab's
// launcher launches the student's kernels.
#include "lab6.hpp"
#include "scan_levels.cuh"

namespace lab6 {

namespace {

// The course's first version, as plainly as the lab's README describes it: one
// element per thread, blocks of 512, each warp's elements scanned with shuffles and
// the warps' totals scanned by the first warp.
constexpr int kCourseThreads = 512;

__global__ void course_scan_tile(const int* in, int* out, int n, int* tile_totals) {
  __shared__ int warp_totals[kCourseThreads / 32];
  const long long i = static_cast<long long>(blockIdx.x) * kCourseThreads + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int x = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d *= 2) {
    const int other = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += other;
  }
  if (lane == 31) warp_totals[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int total = lane < kCourseThreads / 32 ? warp_totals[lane] : 0;
    for (int d = 1; d < 32; d *= 2) {
      const int other = __shfl_up_sync(0xffffffffu, total, d);
      if (lane >= d) total += other;
    }
    if (lane < kCourseThreads / 32) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) x += warp_totals[warp - 1];
  if (i < n) out[i] = x;
  if (tile_totals != nullptr && threadIdx.x == kCourseThreads - 1) {
    tile_totals[blockIdx.x] = warp_totals[kCourseThreads / 32 - 1];
  }
}

__global__ void course_add_tile_prefix(int* out, int n, const int* scanned_totals) {
  const long long i = static_cast<long long>(blockIdx.x) * kCourseThreads + threadIdx.x;
  if (blockIdx.x > 0 && i < n) out[i] += scanned_totals[blockIdx.x - 1];
}

void course_scan_three_kernel(const int* in, int* out, int n, Scratch scratch) {
  scan_levels({kCourseThreads, kCourseThreads, course_scan_tile, course_add_tile_prefix}, in, out,
              n, scratch);
}

}  // namespace

const ScanVariant& course_scan_variant() {
  static const ScanVariant course{"three_kernel", "the course's scan in three kernels",
                                  course_scan_three_kernel};
  return course;
}

}  // namespace lab6
