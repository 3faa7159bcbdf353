#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab6 steps 4-8: the image. Read labs/lab6_image_pipeline/README.md and the
// contract labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the kernels and their launchers. Launchers launch on the default
// stream and must not synchronize, allocate or copy to the host. Every size from
// 1 must work: check bounds. Put your kernels and helpers in the anonymous
// namespace below.
#else
// lab6 reference solution, steps 4-8: the map, the histogram, the first non-zero
// bin, the equalisation, the sum. Their bodies, and their tests, are not written
// yet: each launcher launches nothing.
#endif
#include "image_pipeline.cuh"

namespace lab6 {
namespace {}  // namespace

// (4a) TODO: a kernel with if / else if on i % 4, as the course's CPU loop.
void apply_map_branchy(int* image, int image_size) {}

// (4b) TODO: a __constant__ table of the four kMapDelta values, indexed with i & 3.
void apply_map_constant(int* image, int image_size) {}

// (5a) TODO: clear histo, then atomicAdd on it in global memory.
void histogram_global(const int* image, int image_size, int* histo) {}

// (5b) TODO: a histogram per block in shared memory, added to histo at the end.
void histogram_shared(const int* image, int image_size, int* histo) {}

// (6a) TODO: cdf = the inclusive scan of the kBins bins.
void cumulative_histogram(const int* histo, int* cdf) {}

// (6b) TODO: the predicate cdf[v] != 0, its inclusive scan, and the bin where both are 1.
void first_non_zero(const int* cdf, int* cdf_min, Scratch scratch) {}

// (7) TODO: the equalisation with roundf, exactly as the contract writes it.
void equalize(int* image, int image_size, const int* cdf, const int* cdf_min) {}

// (8) TODO: *total = the sum of the image.
void reduce_sum(const int* image, int image_size, int* total, Scratch scratch) {}

}  // namespace lab6
