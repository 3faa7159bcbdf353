#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>

#include "labs/cuda_check.hpp"
#include "labs/device_buffer.hpp"
#include "labs/sync.hpp"
#include "labs/timing.hpp"

namespace harness {
namespace {

// Writing a buffer twice the size of L2 evicts whatever the last run left there.
class L2Flusher {
 public:
  L2Flusher() {
    int device = 0;
    int l2_bytes = 0;
    LAB_CUDA_CHECK(cudaGetDevice(&device));
    LAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    buffer_ = std::make_unique<DeviceBuffer<char>>(std::max(2 * l2_bytes, 1 << 20));
  }
  void flush() { LAB_CUDA_CHECK(cudaMemsetAsync(buffer_->get(), 0x5A, buffer_->bytes())); }

 private:
  std::unique_ptr<DeviceBuffer<char>> buffer_;
};

}  // namespace

std::string TimingStats::summary() const {
  char text[128];
  std::snprintf(text, sizeof text, "%.4f ms (median of %d, cv %.1f%%)", median_ms, reps,
                100.0 * cv);
  return text;
}

TimingStats time_gpu(const std::function<void()>& launch, const TimingOptions& options) {
  std::unique_ptr<L2Flusher> flusher;
  if (options.flush_l2) flusher = std::make_unique<L2Flusher>();
  for (int i = 0; i < options.warmup; ++i) {
    if (options.prepare) options.prepare();
    launch();
    synchronize_or_die();
  }
  cudaEvent_t start, stop;
  LAB_CUDA_CHECK(cudaEventCreate(&start));
  LAB_CUDA_CHECK(cudaEventCreate(&stop));
  TimingStats stats;
  double total = 0;
  for (int rep = 0; rep < options.max_reps; ++rep) {
    if (rep >= options.min_reps && total >= options.max_total_ms) break;
    if (options.prepare) options.prepare();
    if (flusher) flusher->flush();
    LAB_CUDA_CHECK(cudaEventRecord(start));
    launch();
    LAB_CUDA_CHECK(cudaEventRecord(stop));
    synchronize_or_die();
    float ms = 0;
    LAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    stats.samples_ms.push_back(ms);
    total += ms;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);

  std::vector<double> sorted = stats.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  stats.reps = static_cast<int>(n);
  stats.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  stats.min_ms = sorted.front();
  stats.max_ms = sorted.back();
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  double var = 0;
  for (double x : sorted) var += (x - mean) * (x - mean);
  stats.cv = n > 1 && mean > 0 ? std::sqrt(var / (n - 1)) / mean : 0;
  return stats;
}

}  // namespace harness
