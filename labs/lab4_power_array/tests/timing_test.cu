// lab4 timing bars for students: ratios measured in this process, on this GPU.
#include <gtest/gtest.h>

#include <cstdio>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/bandwidth.hpp"
#include "labs/dataset.hpp"
#include "labs/verdict.hpp"
#include "timing_bars.hpp"
#include "variants.hpp"
#include "yardsticks.hpp"

namespace lab4 {
namespace {

PowerBench timed_bench() {
  return PowerBench(load_values(harness::dataset_path(LAB_DATA_DIR, kTimedCase), kTimedN));
}

TEST(Timing, FastestPowerVariantReachesItsShareOfTheCopyBandwidth) {
  PowerBench bench = timed_bench();
  const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
  harness::TimingOptions quick = bench.timing_options();
  quick.min_reps = 5;
  quick.max_total_ms = 300;
  std::string notes;
  const PowerVariant* fastest = nullptr;
  Launch fastest_launch{};
  double fastest_ms = 0;
  for (const PowerVariant& v : power_variants()) {
    const Launch launch = resolve_launch(v.grid, bench.n(), v.defaults);
    if (!bench.check(v, kTimedK, launch).empty()) {
      notes += std::string("\n  ") + v.name + ": wrong result, not timed";
      continue;
    }
    const double ms = bench.time(v, kTimedK, launch, quick).median_ms;
    notes += std::string("\n  ") + v.name + ": " + std::to_string(ms) + " ms";
    if (!fastest || ms < fastest_ms) fastest = &v, fastest_launch = launch, fastest_ms = ms;
  }
  ASSERT_NE(fastest, nullptr) << "no Part 1 variant gives a correct result for k = " << kTimedK
                              << " on 2^24 values, so no time means anything; fix correctness "
                                 "first:"
                              << notes;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kStudentCopyShare, [&] {
    const harness::TimingStats t =
        bench.time(*fastest, kTimedK, fastest_launch, bench.timing_options());
    const double achieved = harness::gbps(bench.bytes_moved(), t.median_ms);
    char detail[260];
    std::snprintf(detail, sizeof detail,
                  "fastest variant %s: %.4f ms, %.0f GB/s = %.0f%% of this GPU's measured copy "
                  "bandwidth (%.0f GB/s); %.0f%% needed",
                  fastest->name, t.median_ms, achieved, 100 * achieved / ceiling.gbps, ceiling.gbps,
                  100 * kStudentCopyShare);
    return harness::Ratio{achieved / ceiling.gbps, t.cv + ceiling.timing.cv, detail};
  });
  harness::report_timing("lab4 fastest share of copy bandwidth: " + verdict.message());
  EXPECT_TRUE(verdict.passed) << verdict.message() << "\nmedians, k = " << kTimedK << ":" << notes;
}

TEST(Timing, SharedWindowIsFasterThanTheGlobalMemoryWindow) {
  PowerBench bench = timed_bench();
  const WindowVariant& shared = find_window_variant("window_shared");
  const Launch launch = resolve_launch(shared.grid, bench.n(), shared.defaults);
  const std::string wrong = bench.check(shared, kTimedRadius, launch);
  ASSERT_TRUE(wrong.empty()) << "window_shared gives a wrong result, so its time means nothing; "
                                "fix correctness first:\n"
                             << wrong;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kWindowSharedSpeedup, [&] {
    const harness::TimingStats global =
        bench.time_window_yardstick(kTimedRadius, bench.timing_options());
    const harness::TimingStats mine =
        bench.time(shared, kTimedRadius, launch, bench.timing_options());
    char detail[220];
    std::snprintf(detail, sizeof detail,
                  "window_shared %.4f ms vs the harness's global-memory window %.4f ms "
                  "(radius %d, 2^24 floats)",
                  mine.median_ms, global.median_ms, kTimedRadius);
    return harness::Ratio{global.median_ms / mine.median_ms, global.cv + mine.cv, detail};
  });
  harness::report_timing("lab4 window_shared speedup over global window: " + verdict.message());
  EXPECT_TRUE(verdict.passed) << "shared-memory window speedup over the global-memory one: "
                              << verdict.message();
}

}  // namespace
}  // namespace lab4
