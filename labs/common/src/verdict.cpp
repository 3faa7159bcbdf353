#include "labs/verdict.hpp"

#include <cstdio>

namespace harness {

std::string RatioVerdict::message() const {
  char text[160];
  std::snprintf(text, sizeof text,
                "%.3g (needed >= %.3g), %d measurement%s, noise %.1f%%: ", ratio.value, threshold,
                attempts, attempts > 1 ? "s" : "", 100 * ratio.noise);
  return text + ratio.detail;
}

RatioVerdict ratio_at_least(const Bar& threshold, const std::function<Ratio()>& measure,
                            int attempts) {
  RatioVerdict verdict;
  verdict.threshold = threshold;
  verdict.bar = threshold.name;
  for (int i = 0; i < attempts; ++i) {
    const Ratio r = measure();
    verdict.attempts = i + 1;
    if (i == 0 || r.value > verdict.ratio.value) verdict.ratio = r;
    if (verdict.ratio.value >= threshold) break;
    const double margin = 2 * verdict.ratio.noise + 0.02;
    if (verdict.ratio.value < threshold * (1 - margin)) break;  // clearly short: no retry
  }
  verdict.passed = verdict.ratio.value >= threshold;
  return verdict;
}

}  // namespace harness
