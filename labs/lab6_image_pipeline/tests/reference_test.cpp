// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// its radix sort, 2 bits per pass, and its best, 8 bits per pass, against CUB's
// DeviceRadixSort::SortKeys, same process, same GPU. Sixteen passes of 2 bits move
// each key far more often than CUB's passes of 8 bits: that bar asks for the same
// order of speed, not CUB's; the best sort's asks for most of CUB's.
#include <gtest/gtest.h>

#include "lab6.hpp"
#include "lab6_bars.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab6 {

// The reference's best sort (solutions/lab6_image_pipeline/reference/), not in the
// contract: a student's tree has none, and this program is the reference's only.
void radix_sort_best(unsigned* keys, int n, unsigned* temp, Scratch scratch);

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

// The one-sweep sort of 8 bits per pass: exact on every size the steps' tests sort
// (a tile of 8192 keys plus and minus one among them), then timed against CUB.
TEST(Reference, BestRadixSortNearCubAt2p24) {
  for (const TestSize& size : kTestSizes) {
    SortBench small(random_keys(size.n, 900 + size.n));
    const std::string wrong = small.check_sort(radix_sort_best);
    ASSERT_TRUE(wrong.empty()) << "radix_sort_best of " << size.n << " keys:\n" << wrong;
  }
  SortBench bench(random_keys(kTimedSortN, kTimedSortSeed));
  const std::string wrong = bench.check_sort(radix_sort_best);
  ASSERT_TRUE(wrong.empty()) << "radix_sort_best is wrong, so its time means nothing:\n" << wrong;
  harness::expect_speedup(
      kReferenceBestSortOverCub, [&] { return bench.time_cub(); },
      [&] { return bench.time_sort({}, radix_sort_best); },
      [](const harness::TimingStats& cub, const harness::TimingStats& mine) {
        return harness::str_printf(
            "2^24 keys: radix_sort_best %.4f ms, CUB DeviceRadixSort::SortKeys %.4f ms",
            mine.median_ms, cub.median_ms);
      },
      {"reference radix_sort_best / CUB DeviceRadixSort"});
}

}  // namespace
}  // namespace lab6
