// lab3 timing bars for students: ratios measured in this process, on this GPU,
// on the seeds' 2^24 elements with the seeds' block of 512.
#include <gtest/gtest.h>

#include <cstdio>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/bandwidth.hpp"
#include "labs/dataset.hpp"
#include "labs/verdict.hpp"
#include "timing_bars.hpp"
#include "variants.hpp"

namespace lab3 {
namespace {

ReductionBench timed_bench() {
  return ReductionBench(load_values(harness::dataset_path(LAB_DATA_DIR, kTimedCase), kTimedN));
}

// `faster` must beat `slower` by `threshold` (slower time / faster time).
void expect_speedup(const char* faster, const char* slower, double threshold) {
  ReductionBench bench = timed_bench();
  const Variant& fast = find_variant(faster);
  const Variant& slow = find_variant(slower);
  const Launch fast_launch = resolve_launch(fast, bench.n(), Launch{0, fast.threads});
  const Launch slow_launch = resolve_launch(slow, bench.n(), Launch{0, slow.threads});
  for (const auto& [v, l] : {std::pair{&fast, fast_launch}, std::pair{&slow, slow_launch}}) {
    const std::string wrong = bench.check(*v, l);
    ASSERT_TRUE(wrong.empty()) << "the " << v->name << " variant gives a wrong sum, so its time "
                               << "means nothing; fix correctness first:\n"
                               << wrong;
  }
  const harness::RatioVerdict verdict = harness::ratio_at_least(threshold, [&] {
    const harness::TimingStats s = bench.time(slow, slow_launch);
    const harness::TimingStats f = bench.time(fast, fast_launch);
    char detail[200];
    std::snprintf(detail, sizeof detail, "%s %.4f ms vs %s %.4f ms (2^24 ints, block %d)", faster,
                  f.median_ms, slower, s.median_ms, fast_launch.threads);
    return harness::Ratio{s.median_ms / f.median_ms, s.cv + f.cv, detail};
  });
  harness::report_timing(std::string("lab3 ") + faster + " speedup over " + slower + ": " +
                         verdict.message());
  EXPECT_TRUE(verdict.passed) << faster << " speedup over " << slower << ": " << verdict.message();
}

TEST(Timing, InterleavedIsAtLeast1p5xFasterThanNeighbored) {
  expect_speedup("interleaved", "neighbored", kInterleavedOverNeighbored);
}

TEST(Timing, Unrolling8IsAtLeast2xFasterThanInterleaved) {
  expect_speedup("unrolling8", "interleaved", kUnrolledOverInterleaved);
}

TEST(Timing, FastestVariantReachesItsShareOfTheCopyBandwidth) {
  ReductionBench bench = timed_bench();
  const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
  harness::TimingOptions quick;  // the slow variants must not eat the test's time limit
  quick.min_reps = 5;
  quick.max_total_ms = 200;
  std::string notes;
  const Variant* fastest = nullptr;
  Launch fastest_launch{};
  double fastest_ms = 0;
  for (const Variant& v : variants()) {
    const Launch launch = resolve_launch(v, bench.n(), Launch{0, v.threads});
    if (!bench.check(v, launch).empty()) {
      notes += std::string("\n  ") + v.name + ": wrong sum, not timed";
      continue;
    }
    const double ms = bench.time(v, launch, quick).median_ms;
    notes += std::string("\n  ") + v.name + ": " + std::to_string(ms) + " ms";
    if (!fastest || ms < fastest_ms) fastest = &v, fastest_launch = launch, fastest_ms = ms;
  }
  ASSERT_NE(fastest, nullptr) << "no variant gives a correct sum; fix correctness first:" << notes;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kStudentCopyShare, [&] {
    const harness::TimingStats t = bench.time(*fastest, fastest_launch);
    const double achieved = harness::gbps(bench.bytes_moved(), t.median_ms);
    char detail[240];
    std::snprintf(detail, sizeof detail,
                  "fastest variant %s: %.4f ms, %.0f GB/s = %.0f%% of this GPU's measured copy "
                  "bandwidth (%.0f GB/s); %.0f%% needed",
                  fastest->name, t.median_ms, achieved, 100 * achieved / ceiling.gbps, ceiling.gbps,
                  100 * kStudentCopyShare);
    return harness::Ratio{achieved / ceiling.gbps, t.cv + ceiling.timing.cv, detail};
  });
  harness::report_timing("lab3 fastest share of copy bandwidth: " + verdict.message());
  EXPECT_TRUE(verdict.passed) << verdict.message() << "\nmedians at block 512:" << notes;
}

}  // namespace
}  // namespace lab3
