// lab1 timing bars for students: ratios measured in this process, on this GPU.
#include <gtest/gtest.h>

#include <cstdio>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/bandwidth.hpp"
#include "labs/dataset.hpp"
#include "labs/verdict.hpp"
#include "timing_bars.hpp"
#include "variants.hpp"

namespace lab1 {
namespace {

HistogramBench uniform_bench() {
  return HistogramBench(load_samples(harness::dataset_path(LAB_DATA_DIR, kTimedCase), 1 << 25));
}

TEST(Timing, SharedVariantIsAtLeast5xFasterThanTheSeedGlobalAtomics) {
  HistogramBench bench = uniform_bench();
  const Variant& shared = find_variant("shared");
  const Launch launch = resolve_launch(shared, bench.n(), shared.defaults);
  const std::string wrong = bench.check(shared.run, launch);
  ASSERT_TRUE(wrong.empty()) << "the shared variant gives a wrong histogram, so its time means "
                                "nothing; fix the correctness tests first:\n"
                             << wrong;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kSharedSpeedup, [&] {
    const harness::TimingStats seed = bench.time_seed_global();
    const harness::TimingStats mine = bench.time(shared.run, launch);
    char detail[200];
    std::snprintf(detail, sizeof detail,
                  "shared %.3f ms vs the seed's global-atomics kernel %.3f ms (%s)", mine.median_ms,
                  seed.median_ms, "2^25 uniform samples");
    return harness::Ratio{seed.median_ms / mine.median_ms, seed.cv + mine.cv, detail};
  });
  harness::report_timing("lab1 shared speedup over seed global: " + verdict.message());
  EXPECT_TRUE(verdict.passed) << "shared variant speedup over the global-atomics baseline: "
                              << verdict.message();
}

TEST(Timing, FastestVariantReachesItsShareOfTheCopyBandwidth) {
  HistogramBench bench = uniform_bench();
  const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
  harness::TimingOptions quick;  // the slow variants must not eat the test's time limit
  quick.min_reps = 5;
  quick.max_total_ms = 400;
  std::string notes;
  const Variant* fastest = nullptr;
  Launch fastest_launch{};
  double fastest_ms = 0;
  for (const Variant& v : variants()) {
    const Launch launch = resolve_launch(v, bench.n(), v.defaults);
    if (!bench.check(v.run, launch).empty()) {
      notes += std::string("\n  ") + v.name + ": wrong histogram, not timed";
      continue;
    }
    const double ms = bench.time(v.run, launch, quick).median_ms;
    notes += std::string("\n  ") + v.name + ": " + std::to_string(ms) + " ms";
    if (!fastest || ms < fastest_ms) fastest = &v, fastest_launch = launch, fastest_ms = ms;
  }
  ASSERT_NE(fastest, nullptr) << "no variant gives a correct histogram:" << notes;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kStudentCopyShare, [&] {
    const harness::TimingStats t = bench.time(fastest->run, fastest_launch);
    const double achieved = harness::gbps(bench.bytes_moved(), t.median_ms);
    char detail[240];
    std::snprintf(detail, sizeof detail,
                  "fastest variant %s: %.3f ms, %.0f GB/s = %.0f%% of this GPU's measured copy "
                  "bandwidth (%.0f GB/s); %.0f%% needed",
                  fastest->name, t.median_ms, achieved, 100 * achieved / ceiling.gbps, ceiling.gbps,
                  100 * kStudentCopyShare);
    return harness::Ratio{achieved / ceiling.gbps, t.cv + ceiling.timing.cv, detail};
  });
  harness::report_timing("lab1 fastest share of copy bandwidth: " + verdict.message());
  EXPECT_TRUE(verdict.passed) << verdict.message()
                              << "\nmedians at the seed configurations:" << notes;
}

}  // namespace
}  // namespace lab1
