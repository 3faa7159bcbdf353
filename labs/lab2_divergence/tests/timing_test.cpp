// lab2 timing bars: ratios measured in this process, on this GPU. The baselines
// are the harness's own divergent kernels (the same even/odd branch and 32-way
// switch as kernels (a) and (d)), so a slow (a) or (d) cannot lower the bar.
#include <gtest/gtest.h>

#include "lab2.hpp"
#include "lab2_bars.hpp"
#include "labs/copy_share.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab2 {
namespace {

// `fast` must be at least `bar` times faster than the harness's divergent kernel of
// its family; both the student's divergent twin and `fast` must be correct first.
void expect_beats_divergent(const char* fast_name, const char* twin_name, harness::Bar bar) {
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
  harness::expect_speedup(
      bar, [&] { return bench.time_reference(fast.family); },
      [&] { return bench.time(fast, launch); },
      [&](const harness::TimingStats& base, const harness::TimingStats& mine) {
        return harness::str_printf(
            "%s %.3f ms vs the harness's divergent kernel %.3f ms (your %s: %.3f ms); "
            "2^24 floats, %d threads per block",
            fast.name, mine.median_ms, base.median_ms, twin.name, twin_ms, kTimedThreads);
      },
      {std::string(fast.name) + " / " + twin.name,
       std::string(fast.name) + " speedup over the divergent " + twin.name + ": "});
}

TEST(Timing, WarpAlignedBeatsEvenOdd) {
  expect_beats_divergent("warp_aligned", "even_odd", kWarpAlignedSpeedup);
}

TEST(Timing, HalfBlockBeatsEvenOdd) {
  expect_beats_divergent("half_block", "even_odd", kHalfBlockSpeedup);
}

TEST(Timing, SwitchUniformBeatsSwitchDivergent) {
  expect_beats_divergent("switch_uniform", "switch_divergent", kSwitchSpeedup);
}

TEST(Timing, SumMatrixWithTheBestCourseShapeReachesItsShareOfTheCopyBandwidth) {
  MatrixBench bench(kTimedMatrix, kTimedMatrix, 11);
  const Block2D block{32, 16};
  const std::string wrong = bench.check(block);
  ASSERT_TRUE(wrong.empty()) << "sum_matrix_2d (g) gives a wrong sum, so its time means nothing; "
                                "fix correctness first:\n"
                             << wrong;
  harness::expect_passed(
      harness::copy_share_at_least(
          kSumMatrixCopyShare, bench.bytes_moved(), [&] { return bench.time(block); },
          "sum_matrix_2d (32,16) on 2^13 x 2^13"),
      {"sum_matrix_2d / copy ceiling"});
}

}  // namespace
}  // namespace lab2
