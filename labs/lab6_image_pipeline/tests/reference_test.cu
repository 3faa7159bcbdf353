// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// its radix sort, 2 bits per pass, against CUB's DeviceRadixSort::SortKeys, same
// process, same GPU. Sixteen passes of 2 bits move each key far more often than
// CUB's passes of 8 bits: the bar asks for the same order of speed, not CUB's.
#include <gtest/gtest.h>

#include "lab6.hpp"
#include "lab6_bars.hpp"
#include "labs/result_writer.hpp"
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
  harness::expect_speedup(
      kReferenceRadixOverCub, [&] { return bench.time_cub(); }, [&] { return bench.time_sort(); },
      [](const harness::TimingStats& cub, const harness::TimingStats& mine) {
        return harness::str_printf(
            "2^24 keys: radix_sort %.4f ms, CUB DeviceRadixSort::SortKeys %.4f ms", mine.median_ms,
            cub.median_ms);
      },
      {"reference radix_sort / CUB DeviceRadixSort"});
}

}  // namespace
}  // namespace lab6
