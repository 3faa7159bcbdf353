#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// lab6, the pipeline in Thrust (the course's section 15). Read
// labs/lab6_image_pipeline/README.md and the contract
// labs/lab6_image_pipeline/image_pipeline.cuh first.
//
// You write the two functions with Thrust's algorithms on the device pointers
// you receive (thrust::device as the execution policy), with functors, not
// device lambdas. This is the one file of the lab that may use Thrust (and
// CUB); the others may not.
#else
// lab6 reference solution, the pipeline in Thrust (the course's section 15): copy_if,
// a transform over a counting iterator, the histogram from a sorted copy and
// upper_bound, its adjacent difference and inclusive scan, find_if, transform,
// reduce; thrust::sort for the sums. Functors, not device lambdas: no
// --extended-lambda for one file.
#endif
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

#if LAB_SKELETON
// Your functors here: the course's Predicate (not kGarbage), ApplyMapFunctor
// (pixel i gets kMapDelta[i & 3]), NonZeroPredicate and ApplyMapTransformation
// (the equalisation of step 7, exactly as the contract writes it), each a struct
// with a __host__ __device__ (or __device__) operator().
#else
struct NotGarbage {
  __host__ __device__ bool operator()(int v) const { return v != kGarbage; }
};

// The course's ApplyMapFunctor: pixel i gets kMapDelta[i & 3].
struct ApplyMap {
  __host__ __device__ int operator()(int i, int pixel) const {
    return pixel + (i % 4 == 0 ? 1 : i % 4 == 1 ? -5 : i % 4 == 2 ? 3 : -8);
  }
};

struct NonZero {
  __host__ __device__ bool operator()(int v) const { return v != 0; }
};

// The course's ApplyMapTransformation: the equalisation, in float. cdf_min points
// to the first non-zero bin in device memory: no copy to the host for it.
struct Equalize {
  const int* cdf;
  const int* cdf_min;
  int size;
  __device__ int operator()(int pixel) const {
    if (size == *cdf_min) return 0;  // one grey level: 0 / 0, which the contract makes 0
    return static_cast<int>(
        roundf(((cdf[pixel] - *cdf_min) / static_cast<float>(size - *cdf_min)) * 255.0f));
  }
};
#endif

}  // namespace

int thrust_fix_image(const int* buffer, int n, int* image, int* sorted, int* bins, int* total) {
#if LAB_SKELETON
  // TODO: thrust::copy_if (steps 1-3), thrust::transform over a
  // thrust::counting_iterator (step 4), thrust::sort of a copy then
  // thrust::upper_bound over the kBins levels, thrust::adjacent_difference and
  // thrust::inclusive_scan (steps 5-6a), thrust::find_if (6b), thrust::transform
  // (7), thrust::reduce (8), its sum written to *total (thrust::fill_n).
  // Return the image's size.
  return 0;
#else
  const auto device = thrust::device;
  const int size =
      static_cast<int>(thrust::copy_if(device, buffer, buffer + n, image, NotGarbage()) - image);
  thrust::transform(device, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(size),
                    image, image, ApplyMap());
  // The histogram from a sorted copy: upper_bound gives, for each level v, the
  // pixels <= v, already the cumulative histogram; the course takes its adjacent
  // difference (the histogram) and scans it again, and so does this, step for step.
  thrust::copy(device, image, image + size, sorted);
  thrust::sort(device, sorted, sorted + size);
  thrust::upper_bound(device, sorted, sorted + size, thrust::counting_iterator<int>(0),
                      thrust::counting_iterator<int>(kBins), bins);
  thrust::adjacent_difference(device, bins, bins + kBins, bins);
  thrust::inclusive_scan(device, bins, bins + kBins, bins);
  // No non-zero bin only for an empty image, whose transform reads nothing.
  const int* first = thrust::find_if(device, bins, bins + kBins, NonZero());
  thrust::transform(device, image, image + size, image, Equalize{bins, first, size});
  thrust::fill_n(device, total, 1, thrust::reduce(device, image, image + size));
  return size;
#endif
}

void thrust_sort_sums(unsigned* sums, int count) {
#if LAB_SKELETON
  // TODO: thrust::sort.
#else
  thrust::sort(thrust::device, sums, sums + count);
#endif
}

}  // namespace lab6
