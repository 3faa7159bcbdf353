#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/sync.hpp"
#include "yardsticks.hpp"

namespace lab1 {

HistogramBench::HistogramBench(std::vector<int> samples)
    : samples_(std::move(samples)),
      expected_(histogram_cpu(samples_)),
      d_samples_(samples_),
      d_hist_(kBins),
      d_cub_temp_(cub_histogram_temp_bytes(static_cast<int>(samples_.size()))) {}

std::string HistogramBench::compare() {
  harness::synchronize_or_die();
  last_ = d_hist_.download();
  return harness::describe_mismatches(expected_, last_, "bin");
}

std::string HistogramBench::check(Launcher run, Launch launch) {
  d_hist_.poison();
  run(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), launch);
  LAB_CHECK_LAUNCH();
  return compare();
}

std::string HistogramBench::check_cub() {
  d_hist_.poison();
  cub_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), d_cub_temp_.get(),
                d_cub_temp_.bytes());
  return compare();
}

// Fresh samples of the same distribution: every value v becomes (v + s) mod kBins
// for a random s, so every bin's count moves to another bin.
void HistogramBench::redraw() {
  const int shift = 1 + static_cast<int>(harness::fresh_seed() % (kBins - 1));
  for (int& v : samples_) v = (v + shift) % kBins;
  std::vector<int> moved(kBins);
  for (int b = 0; b < kBins; ++b) moved[(b + shift) % kBins] = expected_[b];
  expected_ = std::move(moved);
  d_samples_.upload(samples_);
}

harness::TimingStats HistogramBench::time(Launcher run, Launch launch,
                                          const harness::TimingOptions& options) {
  return harness::time_fresh(
      [&] { run(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), launch); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_hist_)}, [&] { return compare(); }, [&] { redraw(); }});
}

harness::TimingStats HistogramBench::time_seed_global(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] { seed_global_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get()); },
      harness::doing_at_least(options, bytes_moved()));
}

harness::TimingStats HistogramBench::time_cub(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] {
        cub_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), d_cub_temp_.get(),
                      d_cub_temp_.bytes());
      },
      harness::doing_at_least(options, bytes_moved()));
}

}  // namespace lab1
