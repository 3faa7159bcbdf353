// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// its shuffle variant against CUB's DeviceReduce::Sum, same process, same GPU.
#include <gtest/gtest.h>

#include "lab3.hpp"
#include "lab3_bars.hpp"
#include "labs/dataset.hpp"
#include "labs/result_writer.hpp"
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
  harness::expect_speedup(
      kReferenceOverCub, [&] { return bench.time_cub(); }, [&] { return bench.time(best, launch); },
      [&](const harness::TimingStats& cub, const harness::TimingStats& mine) {
        return harness::str_printf("%s: shuffle %.4f ms, CUB DeviceReduce::Sum %.4f ms", what,
                                   mine.median_ms, cub.median_ms);
      },
      {std::string("reference shuffle / CUB, ") + what});
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
