// What a timing test reports of the bar it judged: a line in its output for people,
// and the same figure in GoogleTest's XML report for the grader, which lists it on
// the leaderboard of results.json (grader/gtest_xml.py reads these properties). The
// grader never reads the output, which student code can print into. The report
// counts only with the harness's end marker (test_main.cpp), and a student's objects
// may not call GoogleTest (the object check), so the figures are the harness's; but
// student code runs in the same process, so they stay informative, never scored.
#pragma once
#include <string>

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

}  // namespace harness
