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
  return time_gpu_prepared(
      [&] { restore(); },
      [&] { v.run(d_data_.get(), static_cast<int>(n()), d_partial_.get(), launch); }, options);
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

harness::TimingStats time_gpu_prepared(const std::function<void()>& prepare,
                                       const std::function<void()>& launch,
                                       const harness::TimingOptions& options) {
  std::unique_ptr<harness::DeviceBuffer<char>> flush;
  if (options.flush_l2) {
    int device = 0, l2_bytes = 0;
    LAB_CUDA_CHECK(cudaGetDevice(&device));
    LAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    flush = std::make_unique<harness::DeviceBuffer<char>>(std::max(2 * l2_bytes, 1 << 20));
  }
  for (int i = 0; i < options.warmup; ++i) {
    prepare();
    launch();
    harness::synchronize_or_die();
  }
  cudaEvent_t start, stop;
  LAB_CUDA_CHECK(cudaEventCreate(&start));
  LAB_CUDA_CHECK(cudaEventCreate(&stop));
  harness::TimingStats stats;
  double total = 0;
  for (int rep = 0; rep < options.max_reps; ++rep) {
    if (rep >= options.min_reps && total >= options.max_total_ms) break;
    prepare();
    if (flush) LAB_CUDA_CHECK(cudaMemsetAsync(flush->get(), 0x5A, flush->bytes()));
    LAB_CUDA_CHECK(cudaEventRecord(start));
    launch();
    LAB_CUDA_CHECK(cudaEventRecord(stop));
    harness::synchronize_or_die();
    float ms = 0;
    LAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    stats.samples_ms.push_back(ms);
    total += ms;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::vector<double> sorted = stats.samples_ms;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t count = sorted.size();
  stats.reps = static_cast<int>(count);
  stats.median_ms =
      count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
  stats.min_ms = sorted.front();
  stats.max_ms = sorted.back();
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / count;
  double var = 0;
  for (double x : sorted) var += (x - mean) * (x - mean);
  stats.cv = count > 1 && mean > 0 ? std::sqrt(var / (count - 1)) / mean : 0;
  return stats;
}

}  // namespace lab3
