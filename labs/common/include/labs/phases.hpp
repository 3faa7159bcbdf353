// Where a timing test's seconds go: the timed repetitions, the checks of each
// timed output, and the inputs drawn anew before each run (time_fresh). The rest is
// the test's own setup and its checks before timing. For people tuning what a
// grading costs: report_timing prints one line of it per timing test.
#pragma once
#include <string>

namespace harness {

enum class Phase { Timed, Check, Redraw };

// Adds the seconds of its own lifetime to `phase`.
class PhaseTimer {
 public:
  explicit PhaseTimer(Phase phase);
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  ~PhaseTimer();

 private:
  Phase phase_;
  double start_s_;
};

// Starts the count again (test_main.cpp: at each test's start).
void reset_phases();

// "timed 1.52 s, checks 0.41 s, redraws 0.12 s, rest 2.30 s" since the last reset.
std::string phase_summary();

}  // namespace harness
