// GoogleTest main for every lab test program. Without a usable GPU each test
// reports itself skipped (exit 77 plus a marker line), never passed. With a GPU
// it prints the device so every log says what it was measured on.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "labs/gpu_info.hpp"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  // Listing the tests (at build time, on machines without GPU) must not touch CUDA.
  if (testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();
  std::string why;
  if (!harness::cuda_device_available(&why)) {
    std::printf("cuda-labs: skipped: no CUDA device (%s)\n", why.c_str());
    return 77;
  }
  std::printf("cuda-labs: device: %s\n", harness::one_line(harness::query_gpu_info()).c_str());
  return RUN_ALL_TESTS();
}
