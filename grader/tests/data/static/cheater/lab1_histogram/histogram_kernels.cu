// A submission breaking several rules at once (a fixture of grader/tests/test_static_check.py).
#include "histogram.cuh"
#include <cub/cub.cuh>
#include <chrono>

namespace lab1 {

// Comments may say thrust::sort, cudaEventElapsedTime or exit(1): never a finding.
void histogram_best(const int* samples, int n, int* hist, Launch launch) {
  int host[kBins] = {0};
  cudaMemcpy(host, hist, sizeof host, cudaMemcpyDeviceToHost);
  printf("thrust::reduce in a string is no finding\n");
  std::exit(0);
}

}  // namespace lab1
