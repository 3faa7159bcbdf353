// lab_gpu_info: prints the GPU as one JSON object, or exits 77 when there is none.
#include <cstdio>
#include <exception>

#include "labs/gpu_info.hpp"

int main() {
  std::string why;
  if (!harness::cuda_device_available(&why)) {
    std::printf("cuda-labs: skipped: no CUDA device (%s)\n", why.c_str());
    return 77;
  }
  try {
    std::printf("%s\n", harness::to_json(harness::query_gpu_info()).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab_gpu_info: %s\n", e.what());
    return 1;
  }
  return 0;
}
