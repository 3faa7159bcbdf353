// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// its fast variant sets the standard the student bars are derived from.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "lab1.hpp"
#include "lab1_bars.hpp"
#include "labs/bandwidth.hpp"
#include "labs/copy_share.hpp"
#include "labs/dataset.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab1 {
namespace {

std::vector<int> load_case(const char* case_name) {
  return load_samples(harness::dataset_path(LAB_DATA_DIR, case_name), 1 << 25);
}

struct Fast {
  HistogramBench bench;
  Launch launch;
  explicit Fast(std::vector<int> samples)
      : bench(std::move(samples)),
        launch(resolve_launch(find_variant("best"), bench.n(), find_variant("best").defaults)) {}
};

// On the timed case repeated to the copy ceiling's traffic (2^27 samples read):
// the kernel and the copy it is judged against move the same bytes.
TEST(Reference, BestReachesItsShareOfTheCopyBandwidth) {
  const auto count = static_cast<std::size_t>(harness::kCopyCeilingTraffic / sizeof(int));
  Fast fast(harness::repeated(load_case(kTimedCase), count));
  ASSERT_EQ(fast.bench.check(histogram_best, fast.launch), "") << "best gives a wrong histogram";
  harness::expect_passed(harness::copy_share_at_least(
                             kReferenceCopyShare, fast.bench.bytes_moved(),
                             [&] { return fast.bench.time(histogram_best, fast.launch); }, "best"),
                         {"reference best / copy ceiling"});
}

class BeatsCub : public testing::TestWithParam<const char*> {};

TEST_P(BeatsCub, BestIsFasterThanCubHistogramEven) {
  Fast fast(load_case(GetParam()));
  ASSERT_EQ(fast.bench.check(histogram_best, fast.launch), "") << "best gives a wrong histogram";
  ASSERT_EQ(fast.bench.check_cub(), "") << "CUB gives a wrong histogram";
  harness::expect_speedup(
      1.0, [&] { return fast.bench.time_cub(); },
      [&] { return fast.bench.time(histogram_best, fast.launch); },
      [&](const harness::TimingStats& cub, const harness::TimingStats& best) {
        return harness::str_printf("%s: best %.4f ms, CUB HistogramEven %.4f ms", GetParam(),
                                   best.median_ms, cub.median_ms);
      },
      {std::string("reference best / CUB HistogramEven, ") + GetParam()});
}

INSTANTIATE_TEST_SUITE_P(Reference, BeatsCub, testing::Values(kTimedCase, kContentionCase),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace lab1
