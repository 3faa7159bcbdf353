// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// its shuffle variant against CUB's DeviceReduce::Sum, same process, same GPU.
#include <gtest/gtest.h>

#include <cstdio>

#include "lab3.hpp"
#include "lab3_bars.hpp"
#include "labs/dataset.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab3 {
namespace {

void expect_as_fast_as_cub(ReductionBench& bench, const char* what) {
  const Variant& best = find_variant("shuffle");
  const Launch launch = resolve_launch(best, bench.n(), Launch{0, best.threads});
  const std::string wrong = bench.check(best, launch);
  ASSERT_TRUE(wrong.empty()) << "shuffle gives a wrong sum:\n" << wrong;
  const std::string cub_wrong = bench.check_cub();
  ASSERT_TRUE(cub_wrong.empty()) << "CUB gives a wrong sum:\n" << cub_wrong;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kReferenceOverCub, [&] {
    const harness::TimingStats cub = bench.time_cub();
    const harness::TimingStats mine = bench.time(best, launch);
    char detail[200];
    std::snprintf(detail, sizeof detail, "%s: shuffle %.4f ms, CUB DeviceReduce::Sum %.4f ms", what,
                  mine.median_ms, cub.median_ms);
    return harness::speedup(cub, mine, detail);
  });
  harness::report_timing(std::string("reference shuffle / CUB, ") + what, verdict);
  EXPECT_TRUE(verdict.passed) << verdict.message();
}

TEST(Reference, ShuffleKeepsUpWithCubAt2p24) {
  ReductionBench bench(load_values(harness::dataset_path(LAB_DATA_DIR, kTimedCase), kTimedN));
  expect_as_fast_as_cub(bench, "2^24 ints (dataset)");
}

TEST(Reference, ShuffleKeepsUpWithCubAt2p28) {
  ReductionBench bench(random_values(kLargeN));  // 1 GiB, generated in-process
  expect_as_fast_as_cub(bench, "2^28 ints (generated, values 0..7)");
}

}  // namespace
}  // namespace lab3
