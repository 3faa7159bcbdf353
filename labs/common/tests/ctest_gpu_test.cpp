// The GPU a test runs on under ctest's resource allocation, without a GPU (label
// `harness`): ctest's value read into CUDA_VISIBLE_DEVICES, and the errors.
#include "labs/ctest_gpu.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

std::string visible(const std::string& allocation, const char* current = nullptr) {
  std::string error;
  const std::string devices = harness::ctest_visible_devices(allocation, current, &error);
  EXPECT_EQ(error, "");
  return devices;
}

std::string error_for(const std::string& allocation, const char* current = nullptr) {
  std::string error;
  EXPECT_EQ(harness::ctest_visible_devices(allocation, current, &error), "");
  return error;
}

TEST(CtestGpu, TheIdIsNvidiaSmisIndex) {
  EXPECT_EQ(visible("id:0,slots:1"), "0");
  EXPECT_EQ(visible("id:3,slots:2"), "3");
  EXPECT_EQ(visible("id:007,slots:1"), "7");
}

TEST(CtestGpu, TheIdMustBeAGpuCudaVisibleDevicesLists) {
  EXPECT_EQ(visible("id:3,slots:1", "2,3"), "3");
  EXPECT_EQ(visible("id:2,slots:1", "2"), "2");
  const std::string why = error_for("id:0,slots:1", "2,3");
  EXPECT_NE(why.find("GPU 0 is not one that CUDA_VISIBLE_DEVICES='2,3' lets this process use"),
            std::string::npos)
      << why;
  EXPECT_NE(error_for("id:0,slots:1", "").find("is not one that"), std::string::npos);
  EXPECT_NE(error_for("id:0,slots:1", "GPU-aaaa").find("is not one that"), std::string::npos);
}

TEST(CtestGpu, AMalformedValueSaysWhatWasExpected) {
  for (const char* bad :
       {"", "0", "id:0", "id:,slots:1", "id:x,slots:1", "id:0,slots:0",
        "id:0,slots:", "slots:1,id:0", "id:0,slots:1,extra", "id:0,slots:1;id:1,slots:1",
        "id:-1,slots:1", "id:99999999999,slots:1", " id:0,slots:1"}) {
    const std::string why = error_for(bad);
    const std::string expected =
        std::string("CTEST_RESOURCE_GROUP_0_GPUS='") + bad + "': expected one GPU as id:N,slots:N";
    EXPECT_EQ(why.rfind(expected, 0), 0u) << bad << ": " << why;
  }
}

TEST(CtestGpu, WithoutAnAllocationNothingChanges) {
  unsetenv(harness::kCtestGpuEnv);
  setenv("CUDA_VISIBLE_DEVICES", "5", 1);
  std::string error;
  EXPECT_TRUE(harness::use_ctest_gpu(&error));
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "5");
}

TEST(CtestGpu, AnAllocationBecomesTheOnlyVisibleGpu) {
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("CUDA_DEVICE_ORDER");
  setenv(harness::kCtestGpuEnv, "id:1,slots:1", 1);
  std::string error;
  EXPECT_TRUE(harness::use_ctest_gpu(&error)) << error;
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "1");
  EXPECT_STREQ(std::getenv("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
  setenv(harness::kCtestGpuEnv, "gpus", 1);
  EXPECT_FALSE(harness::use_ctest_gpu(&error));
  EXPECT_NE(error.find("expected one GPU"), std::string::npos) << error;
  unsetenv(harness::kCtestGpuEnv);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
