// lab6, the pipeline in Thrust (the course's section 15): a typical student
// solution, written from the README, the contract image_pipeline.cuh and the
// skeleton's hints. Functors, not device lambdas.
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "image_pipeline.cuh"

namespace lab6 {
namespace {

// Steps 1-3: keep what is not garbage.
struct Predicate {
  __host__ __device__ bool operator()(int value) const { return value != kGarbage; }
};

// Step 4: pixel i gets +1, -5, +3 or -8 by i % 4.
struct ApplyMapFunctor {
  __host__ __device__ int operator()(int i, int pixel) const {
    switch (i & 3) {
      case 0:
        return pixel + 1;
      case 1:
        return pixel - 5;
      case 2:
        return pixel + 3;
      default:
        return pixel - 8;
    }
  }
};

// Step 6b: the first bin of the cdf that is not zero.
struct NonZeroPredicate {
  __host__ __device__ bool operator()(int value) const { return value != 0; }
};

// Step 7: the equalisation, exactly as the contract writes it. cdf_min points at
// the bin find_if found (device memory): no copy back to the host for it.
struct ApplyMapTransformation {
  const int* cdf;
  const int* cdf_min;
  int image_size;
  __device__ int operator()(int pixel) const {
    const int m = *cdf_min;
    if (image_size == m) return 0;  // one grey level: 0 / 0, the pixels become 0
    return static_cast<int>(
        roundf(((cdf[pixel] - m) / static_cast<float>(image_size - m)) * 255.0f));
  }
};

}  // namespace

int thrust_fix_image(const int* buffer, int n, int* image, int* sorted, int* bins, int* total) {
  // Steps 1-3: compaction.
  int* image_end = thrust::copy_if(thrust::device, buffer, buffer + n, image, Predicate());
  const int image_size = static_cast<int>(image_end - image);

  // Step 4: the map, pixel i by its index.
  thrust::transform(thrust::device, thrust::counting_iterator<int>(0),
                    thrust::counting_iterator<int>(image_size), image, image, ApplyMapFunctor());

  // Steps 5-6a: sort a copy, count the pixels <= v for each level (upper_bound),
  // the histogram is their adjacent difference, the cdf its inclusive scan.
  thrust::copy(thrust::device, image, image + image_size, sorted);
  thrust::sort(thrust::device, sorted, sorted + image_size);
  thrust::upper_bound(thrust::device, sorted, sorted + image_size,
                      thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(kBins),
                      bins);
  thrust::adjacent_difference(thrust::device, bins, bins + kBins, bins);
  thrust::inclusive_scan(thrust::device, bins, bins + kBins, bins);

  // Step 6b: cdf_min.
  const int* cdf_min = thrust::find_if(thrust::device, bins, bins + kBins, NonZeroPredicate());

  // Step 7: the equalisation.
  thrust::transform(thrust::device, image, image + image_size, image,
                    ApplyMapTransformation{bins, cdf_min, image_size});

  // Step 8: the sum.
  const int sum = thrust::reduce(thrust::device, image, image + image_size, 0);
  thrust::fill_n(thrust::device, total, 1, sum);
  return image_size;
}

void thrust_sort_sums(unsigned* sums, int count) {
  thrust::sort(thrust::device, sums, sums + count);
}

}  // namespace lab6
