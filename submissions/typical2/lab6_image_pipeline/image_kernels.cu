// lab6 steps 4-8: the image. Read labs/lab6_image_pipeline/README.md and the
// contract labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the kernels and their launchers, by the contract's rules for every
// launcher. Put your kernels and helpers in the anonymous namespace below.
#include "image_pipeline.cuh"

namespace lab6 {
namespace {

// (4a) image[i] += 1, -5, +3 or -8 by i % 4, with if / else if as the course's CPU
// loop (lab6.cu's apply_map_cpu).
__global__ void map_branchy_kernel(int* image, int image_size) {
  // TODO
}

// (4b) The same map with the four values in a __constant__ table of yours,
// indexed with i & 3 (declare it here, in the anonymous namespace).
__global__ void map_constant_kernel(int* image, int image_size) {
  // TODO
}

// (5a) One atomicAdd in global memory per pixel (histo cleared by the launcher).
__global__ void histogram_global_kernel(const int* image, int image_size, int* histo) {
  // TODO
}

// (5b) lab1's privatisation: each block counts its pixels into a histogram in
// shared memory (cleared first), then adds its non-zero bins to histo.
__global__ void histogram_shared_kernel(const int* image, int image_size, int* histo) {
  // TODO
}

// (6a) cdf = the inclusive scan of the kBins bins: one block of kBins threads is
// enough.
__global__ void cumulative_kernel(const int* histo, int* cdf) {
  // TODO
}

// (6b) The course's find_if as a compaction: predicate[v] = (cdf[v] != 0), its
// inclusive scan, and the one bin whose predicate and scan are both 1 writes
// *cdf_min. Why not `if (cdf[v] != 0) *cdf_min = cdf[v];`? (REPORT.md)
__global__ void first_non_zero_kernel(const int* cdf, int* cdf_min) {
  // TODO
}

// (7) The equalisation, exactly the contract's expression, in float, with roundf.
__global__ void equalize_kernel(int* image, int image_size, const int* cdf, const int* cdf_min) {
  // TODO
}

// (8) *total = the sum of the image (cleared by the launcher): each block reduces
// its pixels (lab3's reductions), then adds its sum with one atomicAdd.
__global__ void reduce_sum_kernel(const int* image, int image_size, int* total) {
  // TODO
}

}  // namespace

void apply_map_branchy(int* image, int image_size) {
  map_branchy_kernel<<<1, 256>>>(image, image_size);  // TODO: your grid
}

void apply_map_constant(int* image, int image_size) {
  map_constant_kernel<<<1, 256>>>(image, image_size);  // TODO: your grid
}

void histogram_global(const int* image, int image_size, int* histo) {
  // TODO: clear histo (it arrives poisoned)
  histogram_global_kernel<<<1, 256>>>(image, image_size, histo);  // TODO: your grid
}

void histogram_shared(const int* image, int image_size, int* histo) {
  // TODO: clear histo (it arrives poisoned)
  histogram_shared_kernel<<<1, 256>>>(image, image_size, histo);  // TODO: your grid
}

void cumulative_histogram(const int* histo, int* cdf) {
  cumulative_kernel<<<1, 32>>>(histo, cdf);  // TODO: your block
}

void first_non_zero(const int* cdf, int* cdf_min, Scratch scratch) {
  // TODO: scratch is yours if you scan with kernels of several blocks
  first_non_zero_kernel<<<1, 32>>>(cdf, cdf_min);  // TODO: your block
}

void equalize(int* image, int image_size, const int* cdf, const int* cdf_min) {
  equalize_kernel<<<1, 256>>>(image, image_size, cdf, cdf_min);  // TODO: your grid
}

void reduce_sum(const int* image, int image_size, int* total, Scratch scratch) {
  // TODO: clear *total (it arrives poisoned), or write it from one block at the end
  reduce_sum_kernel<<<1, 256>>>(image, image_size, total);  // TODO: your grid
}

}  // namespace lab6
