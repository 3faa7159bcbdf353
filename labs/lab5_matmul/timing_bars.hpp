// lab5's timed sizes. Its bars come from lab.json ("bars", generated into
// lab5_bars.hpp); what they were set from is in calibration.json.
#pragma once

#include "lab5_bars.hpp"

namespace lab5 {

inline constexpr int kTimedSize = 4096;  // square products, n = k = m

}  // namespace lab5
