// lab3 timing bars for students: ratios measured in this process, on this GPU,
// on the course's 2^24 elements with the course's block of 512.
#include <gtest/gtest.h>

#include "lab3.hpp"
#include "lab3_bars.hpp"
#include "labs/copy_share.hpp"
#include "labs/dataset.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab3 {
namespace {

ReductionBench timed_bench() {
  return ReductionBench(load_values(harness::dataset_path(LAB_DATA_DIR, kTimedCase), kTimedN));
}

// Your `faster` must beat the course's `slower` kernel, the harness's copy
// (course_variant), by `threshold` (its time / yours). Your own `slower` must give the
// right sum too, but its time is not the baseline: slowing it would move the bar.
void expect_beats(const char* faster, const char* slower, harness::Bar threshold) {
  ReductionBench bench = timed_bench();
  const Variant& fast = find_variant(faster);
  const Variant& yours = find_variant(slower);
  const Variant& course = course_variant(slower);
  const Launch fast_launch = resolve_launch(fast, bench.n(), Launch{0, fast.threads});
  const Launch slow_launch = resolve_launch(yours, bench.n(), Launch{0, yours.threads});
  for (const auto& [v, l] : {std::pair{&fast, fast_launch}, std::pair{&yours, slow_launch}}) {
    const std::string wrong = bench.check(*v, l);
    ASSERT_TRUE(wrong.empty()) << "the " << v->name << " variant gives a wrong sum, so its time "
                               << "means nothing; fix correctness first:\n"
                               << wrong;
  }
  harness::expect_speedup(
      threshold, [&] { return bench.time(course, slow_launch); },
      [&] { return bench.time(fast, fast_launch); },
      [&](const harness::TimingStats& s, const harness::TimingStats& f) {
        return harness::str_printf(
            "%s %.4f ms vs the course's %s %.4f ms (the harness's copy; 2^24 ints, block %d)",
            faster, f.median_ms, course.course_name, s.median_ms, fast_launch.threads);
      },
      {std::string(faster) + " / " + slower,
       std::string(faster) + " speedup over " + slower + ": "});
}

TEST(Timing, InterleavedBeatsNeighbored) {
  expect_beats("interleaved", "neighbored", kInterleavedOverNeighbored);
}

TEST(Timing, Unrolling8BeatsInterleaved) {
  expect_beats("unrolling8", "interleaved", kUnrolledOverInterleaved);
}

TEST(Timing, FastestVariantReachesItsShareOfTheCopyBandwidth) {
  ReductionBench bench = timed_bench();
  const harness::TimingOptions quick = harness::quick_options(200);
  std::vector<harness::Candidate> candidates;
  for (const Variant& v : variants()) {
    if (v.nested()) continue;  // slow by design (README): never the fastest
    const Launch launch = resolve_launch(v, bench.n(), Launch{0, v.threads});
    candidates.push_back({v.name, [&bench, &v, launch] { return bench.check(v, launch); },
                          [&bench, &v, launch](const harness::TimingOptions& options) {
                            return bench.time(v, launch, options);
                          }});
  }
  const harness::Fastest fastest = harness::fastest_correct(candidates, quick, "wrong sum");
  ASSERT_GE(fastest.index, 0) << "no variant gives a correct sum; fix correctness first:"
                              << fastest.notes;
  const harness::Candidate& best = candidates[fastest.index];
  harness::expect_passed(
      harness::copy_share_at_least(
          kStudentCopyShare, bench.bytes_moved(),
          [&] { return best.time(harness::TimingOptions{}); }, "fastest variant " + best.name),
      {"fastest variant / copy ceiling", "", "\nmedians at block 512:" + fastest.notes});
}

}  // namespace
}  // namespace lab3
