// lab3's timed sizes. Its bars come from lab.json ("bars", generated into
// lab3_bars.hpp); what they were set from is in calibration.json.
#pragma once

#include "lab3_bars.hpp"

namespace lab3 {

inline constexpr const char* kTimedCase = "uniform_2p24";  // the seeds' 16M elements
inline constexpr long long kTimedN = 1LL << 24;
inline constexpr long long kLargeN = 1LL << 28;  // reference only, generated in-process

}  // namespace lab3
