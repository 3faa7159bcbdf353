#include "labs/phases.hpp"

#include <array>
#include <chrono>
#include <cstdio>

namespace harness {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Phases {
  std::array<double, 3> seconds{};
  double since = now_s();
};

Phases& phases() {
  static Phases p;
  return p;
}

}  // namespace

PhaseTimer::PhaseTimer(Phase phase) : phase_(phase), start_s_(now_s()) {}

PhaseTimer::~PhaseTimer() { phases().seconds[static_cast<int>(phase_)] += now_s() - start_s_; }

void reset_phases() { phases() = Phases{}; }

std::string phase_summary() {
  const Phases& p = phases();
  const double timed = p.seconds[0], check = p.seconds[1], redraw = p.seconds[2];
  char text[160];
  std::snprintf(text, sizeof text, "timed %.2f s, checks %.2f s, redraws %.2f s, rest %.2f s",
                timed, check, redraw, now_s() - p.since - timed - check - redraw);
  return text;
}

}  // namespace harness
