// lab4's timed sizes. Its bars come from lab.json ("bars", generated into
// lab4_bars.hpp); what they were set from is in calibration.json.
#pragma once

#include "lab4_bars.hpp"

namespace lab4 {

inline constexpr const char* kTimedCase = "big_2p24";  // 2^24 floats, 0.5 <= |x| < 1.5
inline constexpr long long kTimedN = 1LL << 24;
inline constexpr int kTimedK = 4;  // the seed's powerArray<<<...>>>(N, 4)
// A window of 65 neighbours: shared memory pays only from a radius of about 8 up.
inline constexpr int kTimedRadius = 32;

}  // namespace lab4
