// Timing verdicts as ratios measured in the same process on the same GPU, with
// one rule for noise: a result that misses its threshold by less than the measured
// spread is measured again before it fails.
#pragma once
#include <functional>
#include <string>
#include <utility>

#include "labs/timing.hpp"

namespace harness {

struct Ratio {
  double value = 0;    // e.g. baseline time / student time, or achieved / ceiling bandwidth
  double noise = 0;    // relative spread of the measurements behind it (sum of cvs)
  std::string detail;  // what was measured, for the failure message
};

// How many times faster `mine` ran than `baseline`: their median times' ratio, with
// both runs' spread as its noise.
inline Ratio speedup(const TimingStats& baseline, const TimingStats& mine, std::string detail) {
  return {baseline.median_ms / mine.median_ms, baseline.cv + mine.cv, std::move(detail)};
}

// A threshold, and the name of the lab.json bar it comes from (labN_bars.hpp makes
// one per bar): the name goes into the test's report, so that `grader repeat
// --calibrate` knows which bar a measured figure speaks for. A threshold computed
// in a test (a bar times a factor) keeps the bar's name when built from it.
struct Bar {
  const char* name = "";
  double value = 0;
  constexpr Bar(double v) : value(v) {}  // NOLINT: a plain threshold, no bar's name
  constexpr Bar(const char* n, double v) : name(n), value(v) {}
  constexpr operator double() const { return value; }  // NOLINT: used as the number
};

struct RatioVerdict {
  bool passed = false;
  Ratio ratio;  // the measurement the verdict rests on
  int attempts = 0;
  std::string message() const;  // "4.9x (needed >= 5x); 2 measurements; <detail>"
  double threshold = 0;
  std::string bar;  // the lab.json bar the threshold comes from, "" for none
};

// Measures, and measures again (up to `attempts` in all) while the ratio is below
// `threshold` but within 2 x noise + 2% of it. Keeps the best measurement: a
// kernel that really is slower fails every time.
RatioVerdict ratio_at_least(const Bar& threshold, const std::function<Ratio()>& measure,
                            int attempts = 3);

}  // namespace harness
