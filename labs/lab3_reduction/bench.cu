#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numeric>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/parallel.hpp"
#include "labs/random.hpp"
#include "labs/sync.hpp"
#include "yardsticks.hpp"

namespace lab3 {

ReductionBench::ReductionBench(std::vector<int> values)
    : values_(std::move(values)),
      expected_sum_(reduce_cpu(values_)),
      d_pristine_(padded_size(n())),
      d_data_(padded_size(n())),
      d_partial_(padded_size(n()) / 64),
      d_cub_temp_(cub_sum_temp_bytes(static_cast<int>(n()))) {
  d_pristine_.poison();  // the padding past n stays garbage: kernels must not add it
  LAB_CUDA_CHECK(cudaMemcpy(d_pristine_.get(), values_.data(), values_.size() * sizeof(int),
                            cudaMemcpyHostToDevice));
}

void ReductionBench::restore() {
  LAB_CUDA_CHECK(
      cudaMemcpyAsync(d_data_.get(), d_pristine_.get(), d_data_.bytes(), cudaMemcpyDeviceToDevice));
}

std::string ReductionBench::check(const Variant& v, Launch launch) {
  restore();
  d_partial_.poison();
  harness::synchronize_or_die();
  v.run(d_data_.get(), static_cast<int>(n()), d_partial_.get(), launch);
  LAB_CHECK_LAUNCH();
  return compare(v, launch);
}

std::string ReductionBench::compare(const Variant& v, Launch launch) {
  harness::synchronize_or_die();
  if (!v.per_block()) {
    int total = 0;
    LAB_CUDA_CHECK(cudaMemcpy(&total, d_partial_.get(), sizeof(int), cudaMemcpyDeviceToHost));
    last_sum_ = total;
    return harness::describe_mismatches(std::vector<int>{expected_sum_}, std::vector<int>{total},
                                        "sum (partial[0])");
  }
  // The seeds' host side: copy the per-block partial sums back, add them here.
  std::vector<int> partial(launch.blocks);
  LAB_CUDA_CHECK(cudaMemcpy(partial.data(), d_partial_.get(), partial.size() * sizeof(int),
                            cudaMemcpyDeviceToHost));
  last_sum_ = std::accumulate(partial.begin(), partial.end(), 0LL);
  std::string wrong = harness::describe_mismatches(block_sums_cpu(values_, chunk_of(v, launch)),
                                                   partial, "partial sum of block");
  if (!wrong.empty()) {
    wrong += "\n  (block b sums elements [b x " + std::to_string(chunk_of(v, launch)) +
             ", (b + 1) x " + std::to_string(chunk_of(v, launch)) +
             ") of n = " + std::to_string(n()) + "; host total " + std::to_string(last_sum_) +
             ", expected " + std::to_string(expected_sum_) + ")";
  }
  return wrong;
}

std::string ReductionBench::check_cub() {
  d_partial_.poison();
  cub_sum(d_pristine_.get(), static_cast<int>(n()), d_partial_.get(), d_cub_temp_.get(),
          d_cub_temp_.bytes());
  harness::synchronize_or_die();
  int total = 0;
  LAB_CUDA_CHECK(cudaMemcpy(&total, d_partial_.get(), sizeof(int), cudaMemcpyDeviceToHost));
  return harness::describe_mismatches(std::vector<int>{expected_sum_}, std::vector<int>{total},
                                      "CUB sum");
}

// Fresh values of the same distribution: each value v in [lo, hi] (the input's
// range) becomes lo + hi - v with probability 1/2, so the sum moves. Where that
// could overflow an int (not for the harness's inputs), v becomes -v instead,
// which keeps sum(|value|).
void ReductionBench::redraw() {
  const auto [lo, hi] = std::minmax_element(values_.begin(), values_.end());
  const long long mirror = static_cast<long long>(*lo) + *hi;
  const std::uint64_t seed = harness::fresh_seed();
  std::vector<int> fresh(values_.size());
  const std::vector<long long> magnitudes = harness::map_ranges<long long>(
      values_.size(), 1 << 16, [&](std::size_t begin, std::size_t end) {
        long long magnitude = 0;
        std::uint64_t bits = harness::splitmix64_at(seed, begin / 64);
        for (std::size_t i = begin; i < end; ++i) {
          if (i % 64 == 0) bits = harness::splitmix64_at(seed, i / 64);
          fresh[i] = (bits >> (i % 64)) & 1 ? static_cast<int>(mirror - values_[i]) : values_[i];
          magnitude += std::llabs(fresh[i]);
        }
        return magnitude;
      });
  const long long magnitude = std::accumulate(magnitudes.begin(), magnitudes.end(), 0LL);
  if (magnitude > INT_MAX) {
    for (std::size_t i = 0; i < values_.size(); ++i) {
      fresh[i] = fresh[i] == values_[i] ? values_[i] : -values_[i];
    }
  }
  values_ = std::move(fresh);
  expected_sum_ = reduce_cpu(values_);
  LAB_CUDA_CHECK(cudaMemcpy(d_pristine_.get(), values_.data(), values_.size() * sizeof(int),
                            cudaMemcpyHostToDevice));
}

harness::TimingStats ReductionBench::time(const Variant& v, Launch launch,
                                          const harness::TimingOptions& options) {
  harness::TimingOptions restoring = harness::doing_at_least(options, bytes_moved());
  restoring.prepare = [&] { restore(); };  // in-place kernels overwrite their input
  return harness::time_fresh(
      [&] { v.run(d_data_.get(), static_cast<int>(n()), d_partial_.get(), launch); }, restoring,
      {{harness::output_of(d_partial_)}, [&] { return compare(v, launch); }, [&] { redraw(); }});
}

harness::TimingStats ReductionBench::time_cub(const harness::TimingOptions& options) {
  // CUB only reads its input: it runs on the pristine copy, nothing to restore.
  return harness::time_gpu(
      [&] {
        cub_sum(d_pristine_.get(), static_cast<int>(n()), d_partial_.get(), d_cub_temp_.get(),
                d_cub_temp_.bytes());
      },
      harness::doing_at_least(options, bytes_moved()));
}

}  // namespace lab3
