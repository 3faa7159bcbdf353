// lab6 timing bars: ratios measured in this process, on this GPU (lab.json "bars",
// generated into lab6_bars.hpp).
#include <gtest/gtest.h>

#include <cstdio>

#include "lab6.hpp"
#include "lab6_bars.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab6 {
namespace {

// The single-pass scan against CUB's, on 2^26 values 0..7: one read and one write
// of 256 MiB each, where a scan runs at the speed of memory.
TEST(Timing, LookbackScanKeepsUpWithCubAt2p26) {
  ScanBench bench(random_values(kTimedScanN, kTimedScanSeed));
  const ScanVariant& lookback = find_scan_variant("lookback");
  const std::string wrong = bench.check(lookback);
  ASSERT_TRUE(wrong.empty()) << "the lookback scan is wrong, so its time means nothing; fix "
                                "correctness first:\n"
                             << wrong;
  const std::string cub_wrong = bench.check_cub();
  ASSERT_TRUE(cub_wrong.empty()) << "CUB's scan is wrong:\n" << cub_wrong;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kLookbackOverCub, [&] {
    const harness::TimingStats cub = bench.time_cub();
    const harness::TimingStats mine = bench.time(lookback);
    char detail[200];
    std::snprintf(detail, sizeof detail,
                  "2^26 ints: lookback %.4f ms, CUB DeviceScan::InclusiveSum %.4f ms",
                  mine.median_ms, cub.median_ms);
    return harness::speedup(cub, mine, detail);
  });
  harness::report_timing("lookback scan / CUB DeviceScan", verdict);
  EXPECT_TRUE(verdict.passed) << verdict.message();
}

}  // namespace
}  // namespace lab6
