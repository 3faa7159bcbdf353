// Runs, checks and times lab3 reductions on one input: used by the lab program
// and by the tests, so both judge a variant the same way.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"
#include "reduction.cuh"
#include "variants.hpp"

namespace lab3 {

class ReductionBench {
 public:
  explicit ReductionBench(std::vector<int> values);

  long long n() const { return static_cast<long long>(values_.size()); }
  double bytes_moved() const { return 4.0 * n(); }  // every input read once
  int expected_sum() const { return expected_sum_; }
  // The GPU's sum from the last check (partials added on the host when per-block).
  long long last_sum() const { return last_sum_; }

  // Restores the input, poisons the partial sums, runs once, waits (with the
  // deadline) and compares with the CPU reference: every partial[b] for the
  // per-block variants, partial[0] for shuffle. "" when right, else the first
  // mismatches.
  std::string check(const Variant& v, Launch launch);
  std::string check_cub();

  // Times a launcher (check it first: a wrong sum has no meaningful time). The
  // input is restored before every run, outside the timed region. Then checks the
  // last timed run's sums and one more run's on fresh values (harness::time_fresh);
  // the values stay the fresh ones. CUB is timed without the freshness checks.
  harness::TimingStats time(const Variant& v, Launch launch,
                            const harness::TimingOptions& options = {});
  harness::TimingStats time_cub(const harness::TimingOptions& options = {});

 private:
  void restore();
  std::string compare(const Variant& v, Launch launch);
  void redraw();
  std::vector<int> values_;
  int expected_sum_;
  long long last_sum_ = 0;
  harness::DeviceBuffer<int> d_pristine_;  // the input plus poisoned padding
  harness::DeviceBuffer<int> d_data_;      // what the kernels get (and may overwrite)
  harness::DeviceBuffer<int> d_partial_;
  harness::DeviceBuffer<char> d_cub_temp_;
};

}  // namespace lab3
