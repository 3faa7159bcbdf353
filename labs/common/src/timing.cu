#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "labs/bandwidth.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device_buffer.hpp"
#include "labs/integrity.hpp"
#include "labs/phases.hpp"
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

class Event {
 public:
  Event() { LAB_CUDA_CHECK(cudaEventCreate(&event_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { cudaEventDestroy(event_); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_;
};

// This process's copy ceiling, measured at its first use. `again` measures once
// more and keeps the higher: a first measurement on a GPU still at idle clocks
// must not make a kernel timed later at full clocks look impossible.
double copy_ceiling_gbps(bool again) {
  static double ceiling = 0;
  if (ceiling == 0 || again) ceiling = std::max(ceiling, measure_copy_ceiling().gbps);
  return ceiling;
}

}  // namespace

std::string TimingStats::summary() const {
  char text[128];
  std::snprintf(text, sizeof text, "%.4f ms (median of %d, cv %.1f%%)", median_ms, reps,
                100.0 * cv);
  return text;
}

TimingStats not_timed() {
  TimingStats stats;
  stats.median_ms = stats.min_ms = stats.max_ms = stats.cv = NAN;
  return stats;
}

TimingStats stats_of(std::vector<double> samples_ms) {
  TimingStats stats;
  stats.samples_ms = samples_ms;
  std::vector<double>& sorted = samples_ms;  // the copy this call owns
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

namespace detail {

TimingStats time_repetitions(const std::function<void()>& launch, const TimingOptions& options) {
  const PhaseTimer timing(Phase::Timed);
  std::unique_ptr<L2Flusher> flusher;
  if (options.flush_l2) flusher = std::make_unique<L2Flusher>();
  for (int i = 0; i < options.warmup; ++i) {
    if (options.prepare) options.prepare();
    reset_device_settings();
    launch();
    synchronize_or_die();
    if (options.after) options.after();
  }
  const Event start, stop;
  std::vector<double> samples;
  double total = 0;
  for (int rep = 0; rep < options.max_reps; ++rep) {
    if (rep >= options.min_reps && total >= options.max_total_ms) break;
    if (options.prepare) options.prepare();
    // A launcher can leave device-wide settings that slow the next kernel (the
    // persisting-L2 carve-out, a cache preference): the harness's again, every time.
    reset_device_settings();
    if (flusher) flusher->flush();
    // Both on the legacy default stream: the stop event completes only after
    // every blocking stream's work enqueued before it.
    LAB_CUDA_CHECK(cudaEventRecord(start.get(), cudaStreamLegacy));
    launch();
    LAB_CUDA_CHECK(cudaEventRecord(stop.get(), cudaStreamLegacy));
    synchronize_or_die();  // the whole device: nothing left over overlaps the next run
    float ms = 0;
    LAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    samples.push_back(ms);
    total += ms;
    if (options.after) options.after();
  }

  return stats_of(std::move(samples));
}

}  // namespace detail

std::string impossible_timing(double median_ms, double min_bytes, double min_flops,
                              double ceiling_gbps, double peak_gflops) {
  const double ms = std::max(median_ms, 1e-6);  // an empty window can read 0 ms
  char text[400];
  const double achieved_gbps = gbps(min_bytes, ms);
  if (min_bytes > 0 && achieved_gbps > kCeilingMargin * ceiling_gbps) {
    std::snprintf(text, sizeof text,
                  "impossible timing: the work was not done inside the timed launch: "
                  "%.4f ms for at least %.0f bytes is %.0f GB/s, %.1fx this GPU's copy ceiling "
                  "of %.0f GB/s measured in this process (at most %.1fx is possible)",
                  median_ms, min_bytes, achieved_gbps, achieved_gbps / ceiling_gbps, ceiling_gbps,
                  kCeilingMargin);
    return text;
  }
  const double achieved_gflops = min_flops / (ms * 1e6);
  if (min_flops > 0 && achieved_gflops > peak_gflops) {
    std::snprintf(text, sizeof text,
                  "impossible timing: the work was not done inside the timed launch: "
                  "%.4f ms for at least %.4g FLOP is %.0f GFLOP/s, %.1fx this GPU's FP32 peak "
                  "of %.0f GFLOP/s (SMs x clock x 128 lanes x 2)",
                  median_ms, min_flops, achieved_gflops, achieved_gflops / peak_gflops,
                  peak_gflops);
    return text;
  }
  return "";
}

double fp32_peak_gflops() {
  int device = 0, sms = 0, khz = 0;
  LAB_CUDA_CHECK(cudaGetDevice(&device));
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  return sms * (khz / 1e6) * 128 * 2;
}

TimingStats time_gpu(const std::function<void()>& launch, const TimingOptions& options) {
  if (!(options.min_bytes > 0) && !(options.min_flops > 0)) {
    throw std::invalid_argument(
        "time_gpu: the options set no least work (min_bytes or min_flops): every timed launch "
        "must, or an impossible time could pass");
  }
  const TimingStats stats = detail::time_repetitions(launch, options);
  const double peak = fp32_peak_gflops();
  const double ceiling = options.min_bytes > 0 ? copy_ceiling_gbps(false) : 0;
  std::string why =
      impossible_timing(stats.median_ms, options.min_bytes, options.min_flops, ceiling, peak);
  if (!why.empty() && options.min_bytes > 0) {
    why = impossible_timing(stats.median_ms, options.min_bytes, options.min_flops,
                            copy_ceiling_gbps(true), peak);
  }
  if (!why.empty()) throw UntrustedTiming(why);
  return stats;
}

}  // namespace harness
