// lab4 timing bars for students: ratios measured in this process, on this GPU.
#include <gtest/gtest.h>

#include <cstdio>

#include "lab4.hpp"
#include "lab4_bars.hpp"
#include "labs/copy_share.hpp"
#include "labs/dataset.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab4 {
namespace {

PowerBench timed_bench() {
  return PowerBench(load_values(harness::dataset_path(LAB_DATA_DIR, kTimedCase), kTimedN));
}

TEST(Timing, FastestPowerVariantReachesItsShareOfTheCopyBandwidth) {
  PowerBench bench = timed_bench();
  harness::TimingOptions quick = bench.timing_options();
  quick.min_reps = 5;
  quick.max_total_ms = 300;
  std::vector<harness::Candidate> candidates;
  for (const PowerVariant& v : power_variants()) {
    const Launch launch = resolve_launch(v.grid, bench.n(), v.defaults);
    candidates.push_back({v.name, [&bench, &v, launch] { return bench.check(v, kTimedK, launch); },
                          [&bench, &v, launch](const harness::TimingOptions& options) {
                            return bench.time(v, kTimedK, launch, options);
                          }});
  }
  const harness::Fastest fastest = harness::fastest_correct(candidates, quick, "wrong result");
  ASSERT_GE(fastest.index, 0) << "no Part 1 variant gives a correct result for k = " << kTimedK
                              << " on 2^24 values, so no time means anything; fix correctness "
                                 "first:"
                              << fastest.notes;
  const harness::Candidate& best = candidates[fastest.index];
  const harness::RatioVerdict verdict = harness::copy_share_at_least(
      kStudentCopyShare, bench.bytes_moved(), [&] { return best.time(bench.timing_options()); },
      "fastest variant " + best.name);
  harness::report_timing("fastest variant / copy ceiling", verdict);
  EXPECT_TRUE(verdict.passed) << verdict.message() << "\nmedians, k = " << kTimedK << ":"
                              << fastest.notes;
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
    return harness::speedup(global, mine, detail);
  });
  harness::report_timing("window_shared / global-memory window", verdict);
  EXPECT_TRUE(verdict.passed) << "shared-memory window speedup over the global-memory one: "
                              << verdict.message();
}

}  // namespace
}  // namespace lab4
