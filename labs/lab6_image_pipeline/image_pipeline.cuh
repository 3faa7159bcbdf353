// lab6 contract: every function the harness calls, for the nine steps of the
// course's image-repair pipeline (the project report). The student writes them in
// three files of skeletons/lab6_image_pipeline/ (reference: solutions/...):
//   scan_kernels.cu   steps 1-3: the predicate, the two inclusive scans and the
//                     shift to an exclusive scan, the scatter (stream compaction);
//                     it launches the three-kernel scan through
//                     image_pipeline_launchers.cuh
//   image_kernels.cu  steps 4-8: the map, the histogram, the first non-zero bin,
//                     the equalisation, the sum
//   sort_kernels.cu   step 9: the radix sort and its order check
//   thrust_pipeline.cu  steps 1-9 again in Thrust (the course's section 15): the
//                     one file of the lab that may use Thrust and CUB
//
// The pipeline (lab6.hpp's fix_image_cpu, the course's CPU code): a corrupted
// buffer of n ints holds the image_size pixels of an image, in order, with
// kGarbage values inserted among them. Steps 1-3 drop every kGarbage and keep the
// order of the rest (compaction), step 4 adds kMapDelta[i & 3] to pixel i, steps
// 5-7 equalise the histogram, step 8 sums the image (the check), step 9 sorts
// the sums of a batch of images.
//
// Every launcher receives device pointers (256-byte aligned, distinct: no output
// is also an input), launches on the default stream and returns without
// synchronizing, allocating or copying to the host; it picks its own grid and
// block sizes, and any size from 1 up to the step's limit must work. Every output
// arrives POISONED (a garbage byte pattern): write every element the step asks
// for, and clear what you accumulate into (cudaMemset is allowed).
#pragma once
#include <cstddef>

namespace lab6 {

// The value the compaction drops (the course's garbage_val).
inline constexpr int kGarbage = -27;
// What the map adds to pixel i of the compacted image: kMapDelta[i & 3], which is
// i % 4 for every i >= 0. Copy the values into your own table (device code cannot
// read this host array).
inline constexpr int kMapDelta[4] = {1, -5, 3, -8};
// Grey levels after the map: histogram bins.
inline constexpr int kBins = 256;

// Size limits. Scans: n <= kMaxScanN and every input the harness scans has a
// total below 2^31, so no prefix sum overflows an int. Images: image_size <=
// kMaxImagePixels, so the sum of 8-bit pixels (255 x 2^23 < 2^31) fits an int.
inline constexpr long long kMaxScanN = 1LL << 28;
inline constexpr long long kMaxImagePixels = 1LL << 23;

// Device memory for a launcher's own temporary data (block sums, look-back
// states, digit counts): POISONED before every call, so clear what must start at
// zero. At least scratch_bytes(n) bytes for a call on n elements: room for 16
// bytes per 64 elements plus 1 MiB, enough for tiles of 256 elements or more.
struct Scratch {
  void* data;
  std::size_t bytes;
};
inline std::size_t scratch_bytes(long long n) {
  return static_cast<std::size_t>(n / 64 + 1) * 16 + (std::size_t{1} << 20);
}

// ---- Steps 1-3: compaction (scan_kernels.cu) ---------------------------------

// (1) predicate[i] = 1 when buffer[i] != kGarbage, else 0, for i < n. A kernel
//     that only moves memory: a grid-stride loop, several elements per thread.
void build_predicate(const int* buffer, int n, int* predicate);

// (2) Inclusive scans: out[i] = in[0] + ... + in[i] for i < n.
// (2a) Three kernels, the course's first version: each block scans its tile and
//      writes the tile's total, the totals are scanned (the same way, again and
//      again while they fill more than one tile), and each tile adds the scanned
//      total of the tiles before it. The launcher is the lab's
//      (image_pipeline_launchers.cuh); you write the kernels it launches.
void scan_three_kernel(const int* in, int* out, int n, Scratch scratch);
// (2b) One pass with decoupled look-back: tiles take their index from an atomic
//      counter (in launch order), publish their total then their inclusive
//      prefix with a flag, and look back over the tiles before them for their
//      prefix. The counter and flags live in `scratch` (poisoned: clear them).
void scan_lookback(const int* in, int* out, int n, Scratch scratch);
// (2c) The shift to an exclusive scan: exclusive[0] = 0 and exclusive[i] =
//      inclusive[i - 1] for 0 < i < n.
void shift_exclusive(const int* inclusive, int* exclusive, int n);

// (3) The scatter: out[addresses[i]] = buffer[i] for every i < n with
//     buffer[i] != kGarbage, where addresses is the exclusive scan of the
//     predicate. out holds n ints; out[0 .. image_size) is checked, the rest is
//     free. Out of place: the course's CPU loop scatters in place, which threads
//     running at once cannot do (REPORT.md).
void scatter(const int* buffer, const int* addresses, int n, int* out);

// ---- Steps 4-8: the image (image_kernels.cu) ---------------------------------

// (4) The map, in place: image[i] += kMapDelta[i & 3] for i < image_size.
// (4a) With if / else if on i % 4, the course's CPU loop as written.
void apply_map_branchy(int* image, int image_size);
// (4b) With the four values in a __constant__ table indexed with i & 3.
void apply_map_constant(int* image, int image_size);

// (5) histo[v] = the number of pixels equal to v, for the kBins levels (every
//     pixel is in [0, kBins) after the map). histo arrives poisoned.
// (5a) atomicAdd on the histogram in global memory.
void histogram_global(const int* image, int image_size, int* histo);
// (5b) A histogram per block in shared memory, added to histo at the end.
void histogram_shared(const int* image, int image_size, int* histo);

// (6a) The cumulative histogram: cdf[v] = histo[0] + ... + histo[v], kBins bins.
void cumulative_histogram(const int* histo, int* cdf);
// (6b) *cdf_min = cdf[v] for the first v with cdf[v] != 0 (the course's
//      find_if): a predicate (cdf[v] != 0), its inclusive scan, and the one bin
//      where both are 1 writes. A plain `if (cdf[v] != 0)` is wrong (REPORT.md).
void first_non_zero(const int* cdf, int* cdf_min, Scratch scratch);

// (7) The equalisation, in place, exactly as the course writes it:
//       image[i] = roundf(((cdf[image[i]] - *cdf_min) /
//                          static_cast<float>(image_size - *cdf_min)) * 255.0f)
//     for i < image_size. An image of a single grey level (image_size ==
//     *cdf_min, a one-pixel image for one) divides 0 by 0: its pixels become 0.
void equalize(int* image, int image_size, const int* cdf, const int* cdf_min);

// (8) *total = image[0] + ... + image[image_size - 1] (the check of the course's
//     pipeline). total arrives poisoned.
void reduce_sum(const int* image, int image_size, int* total, Scratch scratch);

// ---- Step 9: the radix sort (sort_kernels.cu) --------------------------------

// (9a) The order check: *sorted = 1 when keys[0 .. n) never decreases, else 0.
void check_order(const unsigned* keys, int n, int* sorted);
// (9b) One pass of the radix sort, 2 bits: out holds the keys of `in` with digit
//      (key >> shift) & 3 equal to 0, then 1, then 2, then 3, each group in the
//      order of `in` (stable). shift is even, 0 to 30.
void radix_pass(const unsigned* in, unsigned* out, int n, int shift, Scratch scratch);
// (9c) Sorts keys[0 .. n) ascending with passes of 2 bits (least significant
//      first); the result is in keys. temp holds n keys of room.
void radix_sort(unsigned* keys, int n, unsigned* temp, Scratch scratch);

// ---- The pipeline in Thrust (thrust_pipeline.cu) -------------------------------

// Thrust's algorithms on the default stream (thrust::device), not kernels of your
// own. Unlike the launchers above, these may do what Thrust does: allocate its
// temporary memory, read its counts and sums back to the host and wait for them.

// Steps 1-8 on one image: the n values of `buffer` repaired into image[0 ..
// image_size), their sum written to *total; returns image_size. image and
// sorted hold n ints each (sorted: room for a sorted copy of the image), bins
// holds kBins. Every output arrives poisoned.
int thrust_fix_image(const int* buffer, int n, int* image, int* sorted, int* bins, int* total);
// Step 9: sums[0 .. count) sorted ascending.
void thrust_sort_sums(unsigned* sums, int count);

}  // namespace lab6
