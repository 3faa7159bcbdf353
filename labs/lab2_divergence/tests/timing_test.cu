// lab2 timing bars: ratios measured in this process, on this GPU. The baselines
// are the harness's own divergent kernels (the same even/odd branch and 32-way
// switch as kernels (a) and (d)), so a slow (a) or (d) cannot lower the bar.
#include <gtest/gtest.h>

#include <cstdio>

#include "lab2.hpp"
#include "lab2_bars.hpp"
#include "labs/copy_share.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab2 {
namespace {

// `fast` must be at least `bar` times faster than the harness's divergent kernel of
// its family; both the student's divergent twin and `fast` must be correct first.
void expect_speedup(const char* fast_name, const char* twin_name, harness::Bar bar) {
  ElementwiseBench bench(kTimedN, 1);
  const Launch launch{kTimedThreads};
  const Variant& fast = find_variant(fast_name);
  const Variant& twin = find_variant(twin_name);
  const std::string wrong = bench.check(fast, launch);
  ASSERT_TRUE(wrong.empty()) << fast.name << " (" << fast.letter << ") gives a wrong output, so "
                             << "its time means nothing; fix correctness first:\n"
                             << wrong;
  const std::string twin_wrong = bench.check(twin, launch);
  ASSERT_TRUE(twin_wrong.empty()) << twin.name << " (" << twin.letter << ") gives a wrong output; "
                                  << "fix correctness first:\n"
                                  << twin_wrong;
  const double twin_ms = bench.time(twin, launch).median_ms;
  const harness::RatioVerdict verdict = harness::ratio_at_least(bar, [&] {
    const harness::TimingStats base = bench.time_reference(fast.family);
    const harness::TimingStats mine = bench.time(fast, launch);
    char detail[300];
    std::snprintf(detail, sizeof detail,
                  "%s %.3f ms vs the harness's divergent kernel %.3f ms (your %s: %.3f ms); "
                  "2^24 floats, %d threads per block",
                  fast.name, mine.median_ms, base.median_ms, twin.name, twin_ms, kTimedThreads);
    return harness::speedup(base, mine, detail);
  });
  harness::report_timing(std::string(fast.name) + " / " + twin.name, verdict);
  EXPECT_TRUE(verdict.passed) << fast.name << " speedup over the divergent " << twin.name << ": "
                              << verdict.message();
}

TEST(Timing, WarpAlignedBeatsEvenOdd) {
  expect_speedup("warp_aligned", "even_odd", kWarpAlignedSpeedup);
}

TEST(Timing, HalfBlockBeatsEvenOdd) { expect_speedup("half_block", "even_odd", kHalfBlockSpeedup); }

TEST(Timing, SwitchUniformBeatsSwitchDivergent) {
  expect_speedup("switch_uniform", "switch_divergent", kSwitchSpeedup);
}

TEST(Timing, SumMatrixWithTheBestCourseShapeReachesItsShareOfTheCopyBandwidth) {
  MatrixBench bench(kTimedMatrix, kTimedMatrix, 11);
  const Block2D block{32, 16};
  const std::string wrong = bench.check(block);
  ASSERT_TRUE(wrong.empty()) << "sum_matrix_2d (g) gives a wrong sum, so its time means nothing; "
                                "fix correctness first:\n"
                             << wrong;
  const harness::RatioVerdict verdict = harness::copy_share_at_least(
      kSumMatrixCopyShare, bench.bytes_moved(), [&] { return bench.time(block); },
      "sum_matrix_2d (32,16) on 2^13 x 2^13");
  harness::report_timing("sum_matrix_2d / copy ceiling", verdict);
  EXPECT_TRUE(verdict.passed) << verdict.message();
}

}  // namespace
}  // namespace lab2
