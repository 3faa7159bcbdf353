// lab2's timed sizes. Its bars come from lab.json ("bars", generated into
// lab2_bars.hpp); what they were set from is in calibration.json.
#pragma once

#include "lab2_bars.hpp"

namespace lab2 {

inline constexpr int kTimedN = 1 << 24;  // 2^24 elements, 256 threads per block
inline constexpr int kTimedThreads = 256;
inline constexpr int kTimedMatrix = 1 << 13;  // sumMatrix timing: 2^13 x 2^13 floats

}  // namespace lab2
