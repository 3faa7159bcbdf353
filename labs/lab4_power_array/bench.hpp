// Runs, checks and times lab4 variants on one array: used by the lab program and
// by the tests, so both judge a variant the same way.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "cpu_reference.hpp"
#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"
#include "power_array.cuh"
#include "variants.hpp"

namespace lab4 {

class PowerBench {
 public:
  explicit PowerBench(std::vector<float> x);

  long long n() const { return static_cast<long long>(x_.size()); }
  // Bytes a pass must move: n floats read and n floats written.
  double bytes_moved() const { return 8.0 * n(); }
  const std::vector<float>& input() const { return x_; }
  const std::vector<float>& last_result() const { return last_; }

  // Timing options for this array: no L2 flush when the data (read + written) is
  // more than twice the L2, as for the copy ceiling it is compared with.
  harness::TimingOptions timing_options(harness::TimingOptions base = {}) const;

  // Poisons the output (NaN), runs once, waits (with the deadline) and compares
  // with the CPU reference. Returns "" when right, else the first mismatches.
  std::string check(const PowerVariant& v, int k, Launch launch);
  std::string check(const WindowVariant& v, int radius, Launch launch);
  std::string check_window_yardstick(int radius);
  std::string check_volatile(int k);

  // Times a variant (check it first: a wrong answer has no meaningful time). The
  // symbol variants are timed in place on dA, kernel only, dA uploaded again
  // before every run. Then checks the last timed run's output and one more on
  // fresh values (harness::time_fresh); the values stay the fresh ones. The
  // harness's own kernels are timed without the freshness checks.
  harness::TimingStats time(const PowerVariant& v, int k, Launch launch,
                            const harness::TimingOptions& options);
  harness::TimingStats time(const WindowVariant& v, int radius, Launch launch,
                            const harness::TimingOptions& options);
  harness::TimingStats time_window_yardstick(int radius, const harness::TimingOptions& options);
  harness::TimingStats time_volatile(int k, const harness::TimingOptions& options);

 private:
  std::string finish_power(int k, bool from_symbol);
  std::string finish_window(int radius);
  void redraw();
  // The CPU references of x_, computed at their first use after each draw.
  const std::vector<double>& expected_power(int k);
  const WindowReference& expected_window(int radius);
  int size() const { return static_cast<int>(x_.size()); }
  std::vector<float> x_;
  std::map<int, std::vector<double>> power_by_k_;
  std::map<int, WindowReference> window_by_radius_;
  std::vector<float> last_;
  harness::DeviceBuffer<float> d_in_;
  harness::DeviceBuffer<float> d_out_;
};

}  // namespace lab4
