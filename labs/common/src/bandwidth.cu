#include "labs/bandwidth.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device_buffer.hpp"

namespace harness {

CopyCeiling measure_copy_ceiling(std::size_t bytes) {
  DeviceBuffer<char> src(bytes), dst(bytes);
  src.fill_bytes(0x3C);
  CopyCeiling ceiling;
  TimingOptions options;
  options.min_reps = 20;
  options.flush_l2 = false;  // 256 MiB does not fit in any L2
  // Not time_gpu: the physics check measures its ceiling with this.
  ceiling.timing = detail::time_repetitions(
      [&] {
        LAB_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice));
      },
      options);
  ceiling.gbps = gbps(2.0 * bytes, ceiling.timing.median_ms);
  return ceiling;
}

}  // namespace harness
