// lab1's timed sizes. Its bars come from lab.json ("bars", generated into
// lab1_bars.hpp); what they were set from is in calibration.json.
#pragma once

#include "lab1_bars.hpp"

namespace lab1 {

inline constexpr const char* kTimedCase = "uniform_2p25";          // the seed's 2^25 samples
inline constexpr const char* kContentionCase = "contention_2p25";  // 90% in one bin

}  // namespace lab1
