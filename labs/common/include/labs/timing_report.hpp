// What a timing test reports of the bar it judged: a line in its output for people,
// and the same figure in GoogleTest's XML report for the grader, which lists it on
// the leaderboard of results.json (grader/gtest_xml.py reads these properties). The
// grader never reads the output, which student code can print into. The report
// counts only with the harness's end marker (test_main.cpp), and a student's objects
// may not call GoogleTest (the object check), so the figures are the harness's; but
// student code runs in the same process, so they stay informative, never scored.
//
// A timed test ends with expect_passed (a verdict it has, e.g. copy_share_at_least's)
// or expect_speedup (the whole block of a speedup bar): the report, then the test's
// expectation, so that every timed test reports and fails alike.
#pragma once
#include <functional>
#include <string>

#include "labs/timing.hpp"
#include "labs/verdict.hpp"

namespace harness {

// The properties' names in the report (grader/gtest_xml.py reads the same names).
inline constexpr const char* kFigureProperty = "timing_figure";  // the figure's name
inline constexpr const char* kValueProperty = "timing_value";    // verdict.ratio.value
inline constexpr const char* kNeededProperty = "timing_needed";  // verdict.threshold
inline constexpr const char* kBarProperty = "timing_bar";        // verdict.bar, when named

// Prints "cuda-labs: timing: <figure>: <verdict.message()>" and records the figure in
// the running test's report. `figure` names the measurement the same way in every
// run, "<what> / <against>": the speed of <what> in units of <against>'s (a speedup,
// a share of the copy ceiling or of cuBLAS), so higher is better, as every bar is a
// ratio_at_least. The grader puts the lab in front. One figure per test: a second
// call replaces the first.
void report_timing(const std::string& figure, const RatioVerdict& verdict);

// What a timed test reports and says: the figure report_timing records, and the
// words its failure message puts around verdict.message(): prefix + message + suffix.
struct Figure {
  std::string name;         // "<what> / <against>" (report_timing)
  std::string prefix = {};  // e.g. "tiled speedup over the course's naive kernel: "
  std::string suffix = {};  // e.g. the medians of the variants the test chose from
};

// Where a test called a helper: the failure the helper records names that file and
// line, as the test's own EXPECT would. Left to its default, it is the caller's.
struct CallSite {
  const char* file;
  int line;
  CallSite(const char* f = __builtin_FILE(), int l = __builtin_LINE())  // NOLINT: implicit
      : file(f), line(l) {}
};

// The end of a timed test: report_timing(figure.name, verdict), then, when the
// verdict did not pass, a non-fatal failure at the caller's line in the words of
// EXPECT_TRUE(verdict.passed) << figure.prefix << verdict.message() << figure.suffix.
void expect_passed(const RatioVerdict& verdict, const Figure& figure, CallSite at = {});

// What a speedup test says it measured, written from both runs' timings (e.g. with
// harness::str_printf, result_writer.hpp).
using SpeedupDetail =
    std::function<std::string(const TimingStats& baseline, const TimingStats& mine)>;

// The timed part of a speedup test: times `baseline`, then `mine`, and judges
// speedup(baseline, mine, detail(baseline, mine)) against `bar` with ratio_at_least
// (both timed again, in the same order, while short of the bar within the noise);
// then expect_passed. A test that times in another order, or judges another ratio,
// calls ratio_at_least and expect_passed itself.
RatioVerdict expect_speedup(const Bar& bar, const std::function<TimingStats()>& baseline,
                            const std::function<TimingStats()>& mine, const SpeedupDetail& detail,
                            const Figure& figure, CallSite at = {});

}  // namespace harness
