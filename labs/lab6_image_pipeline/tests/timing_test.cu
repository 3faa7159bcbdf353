// lab6 timing bars: ratios measured in this process, on this GPU (lab.json "bars",
// generated into lab6_bars.hpp).
#include <gtest/gtest.h>

#include "lab6.hpp"
#include "lab6_bars.hpp"
#include "labs/result_writer.hpp"
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
  harness::expect_speedup(
      kLookbackOverCub, [&] { return bench.time_cub(); }, [&] { return bench.time(lookback); },
      [](const harness::TimingStats& cub, const harness::TimingStats& mine) {
        return harness::str_printf(
            "2^26 ints: lookback %.4f ms, CUB DeviceScan::InclusiveSum %.4f ms", mine.median_ms,
            cub.median_ms);
      },
      {"lookback scan / CUB DeviceScan"});
}

}  // namespace
}  // namespace lab6
