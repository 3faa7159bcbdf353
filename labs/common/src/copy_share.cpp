#include "labs/copy_share.hpp"

#include <cstdio>

#include "labs/bandwidth.hpp"

namespace harness {

Fastest fastest_correct(const std::vector<Candidate>& candidates, const TimingOptions& quick,
                        const std::string& wrong) {
  Fastest fastest;
  double fastest_ms = 0;
  for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
    const Candidate& c = candidates[i];
    if (!c.check().empty()) {
      fastest.notes += "\n  " + c.name + ": " + wrong + ", not timed";
      continue;
    }
    const double ms = c.time(quick).median_ms;
    fastest.notes += "\n  " + c.name + ": " + std::to_string(ms) + " ms";
    if (fastest.index < 0 || ms < fastest_ms) fastest.index = i, fastest_ms = ms;
  }
  return fastest;
}

RatioVerdict copy_share_at_least(const Bar& share, double bytes,
                                 const std::function<TimingStats()>& time,
                                 const std::string& what) {
  return ratio_at_least(share, [&] {
    const CopyCeiling ceiling = measure_copy_ceiling();
    const TimingStats t = time();
    const double achieved = gbps(bytes, t.median_ms);
    char detail[300];
    std::snprintf(detail, sizeof detail,
                  "%s: %.4f ms, %.0f GB/s = %.1f%% of this GPU's measured copy bandwidth "
                  "(%.0f GB/s); %.0f%% needed",
                  what.c_str(), t.median_ms, achieved, 100 * achieved / ceiling.gbps, ceiling.gbps,
                  100 * share);
    return Ratio{achieved / ceiling.gbps, t.cv + ceiling.timing.cv, detail};
  });
}

}  // namespace harness
