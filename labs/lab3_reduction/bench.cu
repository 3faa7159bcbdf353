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
  struct Span {
    int lo, hi;
  };
  const std::vector<Span> spans =
      harness::map_ranges<Span>(values_.size(), 1 << 16, [&](std::size_t begin, std::size_t end) {
        Span s{INT_MAX, INT_MIN};
        for (std::size_t i = begin; i < end; ++i) {
          s.lo = std::min(s.lo, values_[i]);
          s.hi = std::max(s.hi, values_[i]);
        }
        return s;
      });
  Span all{INT_MAX, INT_MIN};
  for (const Span& s : spans) all.lo = std::min(all.lo, s.lo), all.hi = std::max(all.hi, s.hi);
  const long long mirror = static_cast<long long>(all.lo) + all.hi;  // unused when empty
  const std::uint64_t seed = harness::fresh_seed();
  std::vector<int> fresh(values_.size());
  struct Totals {
    long long magnitude, sum;
  };
  const std::vector<Totals> totals =
      harness::map_ranges<Totals>(values_.size(), 1 << 16, [&](std::size_t begin, std::size_t end) {
        Totals t{0, 0};
        std::uint64_t bits = 0;
        for (std::size_t i = begin; i < end; ++i) {
          if (i == begin || i % 64 == 0) bits = harness::splitmix64_at(seed, i / 64);
          fresh[i] = (bits >> (i % 64)) & 1 ? static_cast<int>(mirror - values_[i]) : values_[i];
          t.magnitude += std::llabs(fresh[i]);
          t.sum += fresh[i];
        }
        return t;
      });
  long long magnitude = 0, sum = 0;
  for (const Totals& t : totals) magnitude += t.magnitude, sum += t.sum;
  if (magnitude > INT_MAX) {
    for (std::size_t i = 0; i < values_.size(); ++i) {
      fresh[i] = fresh[i] == values_[i] ? values_[i] : -values_[i];
    }
  }
  values_ = std::move(fresh);
  // With sum(|value|) within an int, no partial sum overflows and every order of
  // adding gives the course's recursiveReduce's answer; only the fallback needs it.
  expected_sum_ = magnitude > INT_MAX ? reduce_cpu(values_) : static_cast<int>(sum);
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
