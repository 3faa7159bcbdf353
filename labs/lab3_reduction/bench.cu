#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
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

harness::TimingStats ReductionBench::time(const Variant& v, Launch launch,
                                          const harness::TimingOptions& options) {
  harness::TimingOptions restoring = options;
  restoring.prepare = [&] { restore(); };  // in-place kernels overwrite their input
  return harness::time_gpu(
      [&] { v.run(d_data_.get(), static_cast<int>(n()), d_partial_.get(), launch); }, restoring);
}

harness::TimingStats ReductionBench::time_cub(const harness::TimingOptions& options) {
  // CUB only reads its input: it runs on the pristine copy, nothing to restore.
  return harness::time_gpu(
      [&] {
        cub_sum(d_pristine_.get(), static_cast<int>(n()), d_partial_.get(), d_cub_temp_.get(),
                d_cub_temp_.bytes());
      },
      options);
}

}  // namespace lab3
