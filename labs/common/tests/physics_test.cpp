// The physics check's verdicts and message, without a GPU (label `harness`).
#include <gtest/gtest.h>

#include <string>

#include "labs/timing.hpp"

namespace {

constexpr double kCeiling = 3000;  // GB/s
constexpr double kPeak = 67000;    // GFLOP/s

TEST(Physics, AMedianAtTheCeilingIsPossible) {
  // 64 MiB read at 1.2x a 3000 GB/s ceiling: fast, not impossible.
  const double bytes = 64.0 * (1 << 20);
  EXPECT_EQ(harness::impossible_timing(bytes / (1.2 * kCeiling * 1e6), bytes, 0, kCeiling, kPeak),
            "");
}

TEST(Physics, BytesBeyondTheMarginAreImpossible) {
  const double bytes = 64.0 * (1 << 20);
  const std::string why =
      harness::impossible_timing(bytes / (4 * kCeiling * 1e6), bytes, 0, kCeiling, kPeak);
  EXPECT_EQ(why.rfind("impossible timing: the work was not done inside the timed launch", 0), 0u)
      << why;
  EXPECT_NE(why.find("12000 GB/s, 4.0x"), std::string::npos) << why;
  EXPECT_NE(why.find("3000 GB/s"), std::string::npos) << why;
}

TEST(Physics, FlopsBeyondThePeakAreImpossible) {
  const double flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  EXPECT_EQ(harness::impossible_timing(2.7, 0, flops, kCeiling, kPeak), "");  // cuBLAS-like
  const std::string why = harness::impossible_timing(0.06, 0, flops, kCeiling, kPeak);
  EXPECT_EQ(why.rfind("impossible timing: the work was not done inside the timed launch", 0), 0u)
      << why;
  EXPECT_NE(why.find("GFLOP/s"), std::string::npos) << why;
  EXPECT_NE(why.find("FP32 peak of 67000 GFLOP/s"), std::string::npos) << why;
}

TEST(Physics, AnEmptyWindowIsImpossible) {
  EXPECT_NE(harness::impossible_timing(0.0, 4096, 0, kCeiling, kPeak), "");
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
