// lab4 timing bars for students: ratios measured in this process, on this GPU.
#include <gtest/gtest.h>

#include "lab4.hpp"
#include "lab4_bars.hpp"
#include "labs/copy_share.hpp"
#include "labs/dataset.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab4 {
namespace {

PowerBench timed_bench() {
  return PowerBench(load_values(harness::dataset_path(LAB_DATA_DIR, kTimedCase), kTimedN));
}

TEST(Timing, FastestPowerVariantReachesItsShareOfTheCopyBandwidth) {
  PowerBench bench = timed_bench();
  const harness::TimingOptions quick = harness::quick_options(300, bench.timing_options());
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
  harness::expect_passed(
      harness::copy_share_at_least(
          kStudentCopyShare, bench.bytes_moved(), [&] { return best.time(bench.timing_options()); },
          "fastest variant " + best.name),
      {"fastest variant / copy ceiling", "",
       "\nmedians, k = " + std::to_string(kTimedK) + ":" + fastest.notes});
}

TEST(Timing, SharedWindowIsFasterThanTheGlobalMemoryWindow) {
  PowerBench bench = timed_bench();
  const WindowVariant& shared = find_window_variant("window_shared");
  const Launch launch = resolve_launch(shared.grid, bench.n(), shared.defaults);
  const std::string wrong = bench.check(shared, kTimedRadius, launch);
  ASSERT_TRUE(wrong.empty()) << "window_shared gives a wrong result, so its time means nothing; "
                                "fix correctness first:\n"
                             << wrong;
  harness::expect_speedup(
      kWindowSharedSpeedup,
      [&] { return bench.time_window_yardstick(kTimedRadius, bench.timing_options()); },
      [&] { return bench.time(shared, kTimedRadius, launch, bench.timing_options()); },
      [](const harness::TimingStats& global, const harness::TimingStats& mine) {
        return harness::str_printf(
            "window_shared %.4f ms vs the harness's global-memory window %.4f ms "
            "(radius %d, 2^24 floats)",
            mine.median_ms, global.median_ms, kTimedRadius);
      },
      {"window_shared / global-memory window",
       "shared-memory window speedup over the global-memory one: "});
}

}  // namespace
}  // namespace lab4
