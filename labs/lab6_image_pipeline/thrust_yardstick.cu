// lab6's Thrust pipeline (pipeline.hpp), the report's section 15, as the
// end-to-end comparison's yardstick: a unit of its own because Thrust takes long
// to compile. Functors, not device lambdas: no --extended-lambda for one file.
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/find.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include "labs/cuda_check.hpp"
#include "pipeline.hpp"

namespace lab6 {
namespace {

struct NotGarbage {
  __host__ __device__ bool operator()(int v) const { return v != kGarbage; }
};

// The report's ApplyMapFunctor: pixel i gets kMapDelta[i & 3].
struct ApplyMap {
  __host__ __device__ int operator()(int i, int pixel) const {
    return pixel + (i % 4 == 0 ? 1 : i % 4 == 1 ? -5 : i % 4 == 2 ? 3 : -8);
  }
};

struct NonZero {
  __host__ __device__ bool operator()(int v) const { return v != 0; }
};

// The report's ApplyMapTransformation: the course's equalisation, in float.
struct Equalize {
  const int* cdf;
  int cdf_min;
  int size;
  __device__ int operator()(int pixel) const {
    if (size == cdf_min) return 0;  // one grey level: 0 / 0, which the contract makes 0
    return static_cast<int>(
        roundf(((cdf[pixel] - cdf_min) / static_cast<float>(size - cdf_min)) * 255.0f));
  }
};

}  // namespace

int thrust_fix_image(const int* buffer, int n, int* image, int* sorted, int* bins, int* total) {
  const auto device = thrust::device;
  const int size =
      static_cast<int>(thrust::copy_if(device, buffer, buffer + n, image, NotGarbage()) - image);
  thrust::transform(device, thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(size),
                    image, image, ApplyMap());
  // The histogram from a sorted copy: upper_bound gives, for each level v, the
  // pixels <= v, already the cumulative histogram; the report takes its adjacent
  // difference (the histogram) and scans it again, and so does this, step for step.
  thrust::copy(device, image, image + size, sorted);
  thrust::sort(device, sorted, sorted + size);
  thrust::upper_bound(device, sorted, sorted + size, thrust::counting_iterator<int>(0),
                      thrust::counting_iterator<int>(kBins), bins);
  thrust::adjacent_difference(device, bins, bins + kBins, bins);
  thrust::inclusive_scan(device, bins, bins + kBins, bins);
  const int* first = thrust::find_if(device, bins, bins + kBins, NonZero());
  int cdf_min = 0;
  if (first != bins + kBins) {
    LAB_CUDA_CHECK(cudaMemcpy(&cdf_min, first, sizeof(int), cudaMemcpyDeviceToHost));
  }
  thrust::transform(device, image, image + size, image, Equalize{bins, cdf_min, size});
  const int sum = thrust::reduce(device, image, image + size);
  LAB_CUDA_CHECK(cudaMemcpy(total, &sum, sizeof(int), cudaMemcpyHostToDevice));
  return size;
}

void thrust_sort_sums(unsigned* sums, int count) {
  thrust::sort(thrust::device, sums, sums + count);
}

}  // namespace lab6
