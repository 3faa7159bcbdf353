// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// its radix sort, 2 bits per pass, against CUB's DeviceRadixSort::SortKeys, same
// process, same GPU. Sixteen passes of 2 bits move each key far more often than
// CUB's passes of 8 bits: the bar asks for the same order of speed, not CUB's.
#include <gtest/gtest.h>

#include <cstdio>

#include "lab6.hpp"
#include "lab6_bars.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab6 {
namespace {

TEST(Reference, RadixSortWithinReachOfCubAt2p24) {
  SortBench bench(random_keys(kTimedSortN, kTimedSortSeed));
  const std::string wrong = bench.check_sort();
  ASSERT_TRUE(wrong.empty()) << "radix_sort is wrong, so its time means nothing:\n" << wrong;
  const std::string cub_wrong = bench.check_cub();
  ASSERT_TRUE(cub_wrong.empty()) << "CUB's sort is wrong:\n" << cub_wrong;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kReferenceRadixOverCub, [&] {
    const harness::TimingStats cub = bench.time_cub();
    const harness::TimingStats mine = bench.time_sort();
    char detail[200];
    std::snprintf(detail, sizeof detail,
                  "2^24 keys: radix_sort %.4f ms, CUB DeviceRadixSort::SortKeys %.4f ms",
                  mine.median_ms, cub.median_ms);
    return harness::speedup(cub, mine, detail);
  });
  harness::report_timing("reference radix_sort / CUB DeviceRadixSort", verdict);
  EXPECT_TRUE(verdict.passed) << verdict.message();
}

}  // namespace
}  // namespace lab6
