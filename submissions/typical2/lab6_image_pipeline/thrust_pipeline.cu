// lab6, the pipeline in Thrust (the course's report, section 15; contract:
// labs/lab6_image_pipeline/image_pipeline.cuh): Thrust's algorithms with functors on
// the device pointers, thrust::device as the execution policy.
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

// The map's corrections, in constant memory (the report's map_thrust).
__constant__ int c_map_thrust[4] = {kMapDelta[0], kMapDelta[1], kMapDelta[2], kMapDelta[3]};

// Keeps every value but the garbage.
struct Predicate {
  __host__ __device__ bool operator()(int value) const { return value != kGarbage; }
};

// Pixel gid gets its correction.
struct ApplyMapFunctor {
  __device__ int operator()(int gid, int pixel) const { return pixel + c_map_thrust[gid & 3]; }
};

struct NonZeroPredicate {
  __host__ __device__ bool operator()(int value) const { return value != 0; }
};

// The equalisation of step 7, from the cdf and the first non-zero bin, both read on
// the device (no copy of cdf_min to the host).
struct ApplyMapTransformation {
  const int* cdf;
  const int* cdf_min;
  int image_size;
  __device__ int operator()(int pixel) const {
    const int low = *cdf_min;
    if (image_size == low) return 0;  // one grey level: 0 / 0
    return static_cast<int>(
        roundf(((cdf[pixel] - low) / static_cast<float>(image_size - low)) * 255.0f));
  }
};

}  // namespace

int thrust_fix_image(const int* buffer, int n, int* image, int* sorted, int* bins, int* total) {
  // Steps 1-3: the compaction.
  int* const end = thrust::copy_if(thrust::device, buffer, buffer + n, image, Predicate{});
  const int image_size = static_cast<int>(end - image);

  // Step 4: the map, by position.
  thrust::transform(thrust::device, thrust::counting_iterator<int>(0),
                    thrust::counting_iterator<int>(image_size), image, image, ApplyMapFunctor{});

  // Steps 5-6a: a sorted copy, the number of pixels up to each level (upper_bound),
  // its adjacent difference (the histogram), and the histogram's inclusive scan.
  thrust::copy(thrust::device, image, image + image_size, sorted);
  thrust::sort(thrust::device, sorted, sorted + image_size);
  thrust::upper_bound(thrust::device, sorted, sorted + image_size,
                      thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(kBins),
                      bins);
  thrust::adjacent_difference(thrust::device, bins, bins + kBins, bins);
  thrust::inclusive_scan(thrust::device, bins, bins + kBins, bins);

  // Step 6b: the first non-zero bin (the cdf's last bin is image_size >= 1).
  const int* const first = thrust::find_if(thrust::device, bins, bins + kBins, NonZeroPredicate{});

  // Step 7: the equalisation, in place.
  thrust::transform(thrust::device, image, image + image_size, image,
                    ApplyMapTransformation{bins, first, image_size});

  // Step 8: the sum, written back to the device.
  const int sum = thrust::reduce(thrust::device, image, image + image_size, 0);
  thrust::fill_n(thrust::device, total, 1, sum);
  return image_size;
}

void thrust_sort_sums(unsigned* sums, int count) {
  thrust::sort(thrust::device, sums, sums + count);
}

}  // namespace lab6
