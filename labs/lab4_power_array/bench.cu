#include <algorithm>
#include <limits>
#include <stdexcept>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/sync.hpp"
#include "yardsticks.hpp"

namespace lab4 {

PowerBench::PowerBench(std::vector<float> x) : x_(std::move(x)), d_in_(x_), d_out_(x_.size()) {}

harness::TimingOptions PowerBench::timing_options(harness::TimingOptions base) const {
  int device = 0, l2 = 0;
  LAB_CUDA_CHECK(cudaGetDevice(&device));
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  base.flush_l2 = bytes_moved() <= 2.0 * l2;
  return base;
}

std::string PowerBench::finish_power(int k, bool from_symbol) {
  harness::synchronize_or_die();
  if (from_symbol) {
    last_.assign(x_.size(), std::numeric_limits<float>::quiet_NaN());
    LAB_CUDA_CHECK(symbol_download(last_.data(), size()));
    LAB_CUDA_CHECK(cudaGetLastError());
  } else {
    d_out_.download(last_);
  }
  return describe_power_mismatches(x_, expected_power(k), last_, k);
}

std::string PowerBench::finish_window(int radius) {
  harness::synchronize_or_die();
  d_out_.download(last_);
  return describe_window_mismatches(expected_window(radius), last_, radius);
}

const std::vector<double>& PowerBench::expected_power(int k) {
  auto found = power_by_k_.find(k);
  if (found == power_by_k_.end()) found = power_by_k_.emplace(k, power_cpu(x_, k)).first;
  return found->second;
}

const WindowReference& PowerBench::expected_window(int radius) {
  auto found = window_by_radius_.find(radius);
  if (found == window_by_radius_.end()) {
    found = window_by_radius_.emplace(radius, window_cpu(x_, radius)).first;
  }
  return found->second;
}

std::string PowerBench::check(const PowerVariant& v, int k, Launch launch) {
  check_fits_symbol(v, n());
  if (v.storage == Storage::Symbol) {
    LAB_CUDA_CHECK(symbol_upload(x_.data(), size()));
    LAB_CUDA_CHECK(cudaGetLastError());
    v.symbol(size(), k, launch);
  } else {
    d_out_.poison();
    v.pointer(d_in_.get(), d_out_.get(), size(), k, launch);
  }
  LAB_CHECK_LAUNCH();
  return finish_power(k, v.storage == Storage::Symbol);
}

std::string PowerBench::check(const WindowVariant& v, int radius, Launch launch) {
  d_out_.poison();
  v.run(d_in_.get(), d_out_.get(), size(), radius, launch);
  LAB_CHECK_LAUNCH();
  return finish_window(radius);
}

std::string PowerBench::check_window_yardstick(int radius) {
  d_out_.poison();
  window_global_yardstick(d_in_.get(), d_out_.get(), size(), radius);
  return finish_window(radius);
}

std::string PowerBench::check_volatile(int k) {
  d_out_.poison();
  power_volatile_reads(d_in_.get(), d_out_.get(), size(), k);
  return finish_power(k, false);
}

// Fresh values of the same distribution: the array rotated by a random offset, so
// every output moves to another index.
void PowerBench::redraw() {
  if (x_.size() < 2) return;
  const std::size_t offset = 1 + harness::fresh_seed() % (x_.size() - 1);
  std::rotate(x_.begin(), x_.begin() + static_cast<std::ptrdiff_t>(offset), x_.end());
  for (auto& [k, expected] : power_by_k_) {  // x^k moves with x
    std::rotate(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(offset),
                expected.end());
  }
  window_by_radius_.clear();  // a window across the seam is new
  d_in_.upload(x_);
}

harness::TimingStats PowerBench::time(const PowerVariant& v, int k, Launch launch,
                                      const harness::TimingOptions& options) {
  check_fits_symbol(v, n());
  harness::TimingOptions least = harness::doing_at_least(options, bytes_moved());
  const bool symbol = v.storage == Storage::Symbol;
  if (symbol) {  // in place: the upload is the poison
    least.prepare = [&] {
      LAB_CUDA_CHECK(symbol_upload(x_.data(), size()));
      LAB_CUDA_CHECK(cudaGetLastError());
    };
  }
  const harness::FreshChecks fresh{
      symbol ? std::vector<harness::Output>{} : std::vector{harness::output_of(d_out_)},
      [&] { return finish_power(k, symbol); }, [&] { redraw(); }};
  if (symbol) return harness::time_fresh([&] { v.symbol(size(), k, launch); }, least, fresh);
  return harness::time_fresh([&] { v.pointer(d_in_.get(), d_out_.get(), size(), k, launch); },
                             least, fresh);
}

harness::TimingStats PowerBench::time(const WindowVariant& v, int radius, Launch launch,
                                      const harness::TimingOptions& options) {
  return harness::time_fresh(
      [&] { v.run(d_in_.get(), d_out_.get(), size(), radius, launch); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_out_)}, [&] { return finish_window(radius); }, [&] { redraw(); }});
}

harness::TimingStats PowerBench::time_window_yardstick(int radius,
                                                       const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] { window_global_yardstick(d_in_.get(), d_out_.get(), size(), radius); },
      harness::doing_at_least(options, bytes_moved()));
}

harness::TimingStats PowerBench::time_volatile(int k, const harness::TimingOptions& options) {
  return harness::time_gpu([&] { power_volatile_reads(d_in_.get(), d_out_.get(), size(), k); },
                           harness::doing_at_least(options, bytes_moved()));
}
}  // namespace lab4
