// The GPU's memory ceiling, measured in the same process as the kernel it judges:
// a device-to-device copy, counting bytes read plus bytes written.
#pragma once
#include "labs/timing.hpp"

namespace harness {

struct CopyCeiling {
  double gbps = 0;  // (read + written bytes) / median time
  TimingStats timing;
};

// Copies `bytes` (default 256 MiB: well past any L2) device to device.
CopyCeiling measure_copy_ceiling(std::size_t bytes = std::size_t{256} << 20);

}  // namespace harness
