#include "labs/timing_report.hpp"

#include <gtest/gtest.h>

#include <cstdio>

#include "labs/phases.hpp"

namespace harness {

void report_timing(const std::string& figure, const RatioVerdict& verdict) {
  std::printf("cuda-labs: timing: %s: %s\n", figure.c_str(), verdict.message().c_str());
  std::printf("cuda-labs: phases: %s\n", phase_summary().c_str());
  std::fflush(stdout);
  char value[32], needed[32];
  std::snprintf(value, sizeof value, "%.6g", verdict.ratio.value);
  std::snprintf(needed, sizeof needed, "%.6g", verdict.threshold);
  testing::Test::RecordProperty(kFigureProperty, figure);
  testing::Test::RecordProperty(kValueProperty, value);
  testing::Test::RecordProperty(kNeededProperty, needed);
  if (!verdict.bar.empty()) testing::Test::RecordProperty(kBarProperty, verdict.bar);
}

void expect_passed(const RatioVerdict& verdict, const Figure& figure, CallSite at) {
  report_timing(figure.name, verdict);
  if (verdict.passed) return;
  // What ADD_FAILURE_AT expands to, with the words EXPECT_TRUE(verdict.passed) writes.
  GTEST_MESSAGE_AT_(at.file, at.line, "Value of: verdict.passed\n  Actual: false\nExpected: true",
                    testing::TestPartResult::kNonFatalFailure)
      << figure.prefix << verdict.message() << figure.suffix;
}

RatioVerdict expect_speedup(const Bar& bar, const std::function<TimingStats()>& baseline,
                            const std::function<TimingStats()>& mine, const SpeedupDetail& detail,
                            const Figure& figure, CallSite at) {
  const RatioVerdict verdict = ratio_at_least(bar, [&] {
    const TimingStats b = baseline();
    const TimingStats m = mine();
    return speedup(b, m, detail(b, m));
  });
  expect_passed(verdict, figure, at);
  return verdict;
}

}  // namespace harness
