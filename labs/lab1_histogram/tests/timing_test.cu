// lab1 timing bars for students: ratios measured in this process, on this GPU.
#include <gtest/gtest.h>

#include "lab1.hpp"
#include "lab1_bars.hpp"
#include "labs/copy_share.hpp"
#include "labs/dataset.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab1 {
namespace {

HistogramBench uniform_bench() {
  return HistogramBench(load_samples(harness::dataset_path(LAB_DATA_DIR, kTimedCase), 1 << 25));
}

TEST(Timing, SharedBeatsTheSeedGlobalAtomics) {
  HistogramBench bench = uniform_bench();
  const Variant& shared = find_variant("shared");
  const Launch launch = resolve_launch(shared, bench.n(), shared.defaults);
  const std::string wrong = bench.check(shared.run, launch);
  ASSERT_TRUE(wrong.empty()) << "the shared variant gives a wrong histogram, so its time means "
                                "nothing; fix the correctness tests first:\n"
                             << wrong;
  harness::expect_speedup(
      kSharedSpeedup, [&] { return bench.time_course_global(); },
      [&] { return bench.time(shared.run, launch); },
      [](const harness::TimingStats& course, const harness::TimingStats& mine) {
        return harness::str_printf(
            "shared %.3f ms vs the course's global-atomics kernel %.3f ms (%s)", mine.median_ms,
            course.median_ms, "2^25 uniform samples");
      },
      {"shared / seed global atomics",
       "shared variant speedup over the global-atomics baseline: "});
}

TEST(Timing, FastestVariantReachesItsShareOfTheCopyBandwidth) {
  HistogramBench bench = uniform_bench();
  const harness::TimingOptions quick = harness::quick_options(400);
  std::vector<harness::Candidate> candidates;
  for (const Variant& v : variants()) {
    const Launch launch = resolve_launch(v, bench.n(), v.defaults);
    candidates.push_back({v.name, [&bench, &v, launch] { return bench.check(v.run, launch); },
                          [&bench, &v, launch](const harness::TimingOptions& options) {
                            return bench.time(v.run, launch, options);
                          }});
  }
  const harness::Fastest fastest = harness::fastest_correct(candidates, quick, "wrong histogram");
  ASSERT_GE(fastest.index, 0) << "no variant gives a correct histogram:" << fastest.notes;
  const harness::Candidate& best = candidates[fastest.index];
  harness::expect_passed(
      harness::copy_share_at_least(
          kStudentCopyShare, bench.bytes_moved(),
          [&] { return best.time(harness::TimingOptions{}); }, "fastest variant " + best.name),
      {"fastest variant / copy ceiling", "",
       "\nmedians at the course's configurations:" + fastest.notes});
}

}  // namespace
}  // namespace lab1
