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

}  // namespace harness
