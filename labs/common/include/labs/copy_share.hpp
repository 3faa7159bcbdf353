// The two timing verdicts several labs share: "the fastest correct variant" and
// "a kernel's share of the copy ceiling".
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "labs/timing.hpp"
#include "labs/verdict.hpp"

namespace harness {

// A variant to consider: `check` returns "" when its output is right, `time`
// times it with the options given.
struct Candidate {
  std::string name;
  std::function<std::string()> check;
  std::function<TimingStats(const TimingOptions&)> time;
};

struct Fastest {
  int index = -1;     // into the candidates; -1 when none was right
  std::string notes;  // a line per candidate: its median, or "<wrong>, not timed"
};

// Checks every candidate and times the right ones with `quick` (few repetitions,
// so slow variants do not eat the test's time limit); a wrong one is not timed.
Fastest fastest_correct(const std::vector<Candidate>& candidates, const TimingOptions& quick,
                        const std::string& wrong);

// `bytes` moved by `time`'s kernel at least `share` of the copy ceiling, both
// measured in this process (and again when within noise). `what` names the kernel.
RatioVerdict copy_share_at_least(const Bar& share, double bytes,
                                 const std::function<TimingStats()>& time, const std::string& what);

}  // namespace harness
