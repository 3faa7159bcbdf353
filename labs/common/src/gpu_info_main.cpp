// lab_gpu_info: prints the GPU as one JSON object, or exits 77 when there is none.
// `lab_gpu_info --context [MIB]` also creates a context and allocates and clears MIB
// MiB (default 256; 0: the context alone), what every test process pays at least, so
// scripts can time a test's start-up and tell the context's share from the memory's.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "labs/cuda_check.hpp"
#include "labs/device_buffer.hpp"
#include "labs/gpu_info.hpp"

int main(int argc, char** argv) {
  const bool with_context = argc > 1 && std::strcmp(argv[1], "--context") == 0;
  const std::size_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 256;
  std::string why;
  if (!harness::cuda_device_available(&why)) {
    std::printf("cuda-labs: skipped: no CUDA device (%s)\n", why.c_str());
    return 77;
  }
  try {
    std::printf("%s\n", harness::to_json(harness::query_gpu_info()).c_str());
    if (with_context && mib == 0) LAB_CUDA_CHECK(cudaFree(nullptr));  // creates the context
    if (with_context && mib > 0) {
      harness::DeviceBuffer<unsigned char> buffer(mib << 20);
      buffer.fill_bytes(0);
      LAB_CUDA_CHECK(cudaDeviceSynchronize());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab_gpu_info: %s\n", e.what());
    return 1;
  }
  return 0;
}
