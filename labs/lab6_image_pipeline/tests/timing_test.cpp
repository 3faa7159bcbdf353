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

// The single-pass scan against the course's three-kernel scan (the harness's copy),
// on 2^26 values 0..7. Three kernels read and write the values twice, one pass
// once: what the look-back buys. CUB's scan, near the speed of memory, is reported
// beside them.
TEST(Timing, LookbackScanKeepsUpWithTheCourseThreeKernelScanAt2p26) {
  ScanBench bench(random_values(kTimedScanN, kTimedScanSeed));
  const ScanVariant& lookback = find_scan_variant("lookback");
  const std::string wrong = bench.check(lookback);
  ASSERT_TRUE(wrong.empty()) << "the lookback scan is wrong, so its time means nothing; fix "
                                "correctness first:\n"
                             << wrong;
  const ScanVariant& course = course_scan_variant();
  const std::string course_wrong = bench.check(course);
  ASSERT_TRUE(course_wrong.empty()) << "the course's three-kernel scan is wrong:\n" << course_wrong;
  const harness::TimingStats cub = bench.time_cub();
  harness::expect_speedup(
      kLookbackOverCourseScan, [&] { return bench.time(course); },
      [&] { return bench.time(lookback); },
      [&](const harness::TimingStats& three, const harness::TimingStats& mine) {
        return harness::str_printf(
            "2^26 ints: lookback %.4f ms, the course's three kernels %.4f ms (the harness's "
            "copy); CUB DeviceScan::InclusiveSum %.4f ms, lookback / CUB %.3f",
            mine.median_ms, three.median_ms, cub.median_ms, cub.median_ms / mine.median_ms);
      },
      {"lookback scan / the course's three-kernel scan",
       "lookback speedup over the course's three-kernel scan: "});
}

}  // namespace
}  // namespace lab6
