// Runs, checks and times lab1 histograms on one dataset: used by the lab program
// and by the tests, so both judge a variant the same way.
#pragma once
#include <string>
#include <vector>

#include "histogram.cuh"
#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"
#include "variants.hpp"

namespace lab1 {

class HistogramBench {
 public:
  explicit HistogramBench(std::vector<int> samples);

  long long n() const { return static_cast<long long>(samples_.size()); }
  double bytes_moved() const { return 4.0 * n() + 4.0 * kBins; }  // samples read, bins written
  const std::vector<int>& expected() const { return expected_; }

  // Poisons the output, runs once, waits (with the deadline) and compares with the
  // CPU reference. Returns "" when right, else the first mismatches.
  std::string check(Launcher run, Launch launch);
  std::string check_cub();
  const std::vector<int>& last_result() const { return last_; }

  // Times a launcher (check it first: a wrong histogram has no meaningful time),
  // then checks the last timed run's histogram and one more on fresh samples
  // (harness::time_fresh); the samples stay the fresh ones. The yardsticks are
  // timed without the freshness checks; all must read the samples in the window.
  harness::TimingStats time(Launcher run, Launch launch,
                            const harness::TimingOptions& options = {});
  harness::TimingStats time_seed_global(const harness::TimingOptions& options = {});
  harness::TimingStats time_cub(const harness::TimingOptions& options = {});

 private:
  std::string compare();
  void redraw();
  std::vector<int> samples_;
  std::vector<int> expected_;
  std::vector<int> last_;
  harness::DeviceBuffer<int> d_samples_;
  harness::DeviceBuffer<int> d_hist_;
  harness::DeviceBuffer<char> d_cub_temp_;
};

}  // namespace lab1
