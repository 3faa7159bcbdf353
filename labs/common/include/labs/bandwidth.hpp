// The GPU's memory ceiling, measured in the same process as the kernel it judges:
// a device-to-device copy, counting bytes read plus bytes written.
#pragma once
#include <cstddef>
#include <vector>

#include "labs/timing.hpp"

namespace harness {

struct CopyCeiling {
  double gbps = 0;  // (read + written bytes) / median time
  TimingStats timing;
};

// 256 MiB: well past any L2, and large enough that launch and tail costs vanish.
inline constexpr std::size_t kCopyCeilingBytes = std::size_t{256} << 20;
// What the copy moves: every byte read once and written once.
inline constexpr double kCopyCeilingTraffic = 2.0 * kCopyCeilingBytes;

// Copies `bytes` device to device.
CopyCeiling measure_copy_ceiling(std::size_t bytes = kCopyCeilingBytes);

// `values` repeated until there are at least `count`: a kernel judged against the
// copy ceiling runs on as much traffic as the copy moves. On a smaller array the
// launch and the last wave weigh: on an H100 a 64 MiB copy reaches only 0.92 of
// the 256 MiB one.
template <class T>
std::vector<T> repeated(const std::vector<T>& values, std::size_t count) {
  std::vector<T> out;
  if (values.empty()) return out;
  out.reserve(count + values.size());
  while (out.size() < count) out.insert(out.end(), values.begin(), values.end());
  out.resize(count);
  return out;
}

}  // namespace harness
