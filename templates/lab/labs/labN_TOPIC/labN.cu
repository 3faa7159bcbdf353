// labN's harness (labN.hpp): the launch rules, the inputs, the CPU reference, the bench.
#include <stdexcept>
#include <string>

#include "labN.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/random.hpp"
#include "labs/redraw.cuh"
#include "labs/sync.hpp"

namespace labN {

Launch covering(long long n, int threads) {
  return Launch{static_cast<int>((n + threads - 1) / threads), threads};
}

Launch checked_launch(long long n, Launch requested) {
  if (requested.threads < 1 || requested.threads > kMaxThreads) {
    throw std::invalid_argument("threads per block must be from 1 to " +
                                std::to_string(kMaxThreads) + ", not " +
                                std::to_string(requested.threads));
  }
  if (requested.blocks == 0) return covering(n, requested.threads);
  const long long covered = static_cast<long long>(requested.blocks) * requested.threads;
  if (covered < n) {
    throw std::invalid_argument(std::to_string(requested.blocks) + " blocks x " +
                                std::to_string(requested.threads) + " threads cover " +
                                std::to_string(covered) +
                                " elements, fewer than n = " + std::to_string(n));
  }
  return requested;
}

namespace {

// A value of [-64, 64) in steps of 1/256, from a random word: a * x + y is exact in float.
struct Value {
  LAB_HOST_DEVICE float operator()(std::uint64_t r) const {
    return static_cast<float>(static_cast<int>(r >> 49) - (1 << 14)) / 256.0f;
  }
};

// The harness's own saxpy, for the answer to inputs redrawn on the device.
__global__ void saxpy_reference(float a, const float* x, const float* y, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

}  // namespace

std::vector<float> draw_values(std::size_t n, std::uint64_t seed) {
  return harness::random_values<float>(n, seed, Value{});
}

std::vector<float> saxpy_cpu(float a, const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = a * x[i] + y[i];
  return out;
}

SaxpyBench::SaxpyBench(int n, std::uint64_t seed, float a)
    : n_(n), a_(a), d_x_(n), d_y_(n), d_out_(n), d_truth_(n) {
  draw(seed);
}

// x and y from two streams of `seed`, and the output they must give.
void SaxpyBench::draw(std::uint64_t seed) {
  seed_ = seed;
  const std::vector<float> x = draw_values(n_, seed);
  const std::vector<float> y = draw_values(n_, seed ^ 0x5EED);
  d_x_.upload(x);
  d_y_.upload(y);
  expected_ = saxpy_cpu(a_, x, y);
}

std::string SaxpyBench::compare() {
  harness::synchronize_or_die();
  return harness::describe_mismatches(expected_, d_out_.download(), "element");
}

std::string SaxpyBench::check(Launch launch) {
  d_out_.poison();
  saxpy(a_, d_x_.get(), d_y_.get(), d_out_.get(), n_, launch);
  LAB_CHECK_LAUNCH();
  return compare();
}

// The run's output against the harness's own saxpy of the same inputs, computed
// only now that the run is over.
std::string SaxpyBench::compare_with_reference() {
  saxpy_reference<<<(n_ + 255) / 256, 256>>>(a_, d_x_.get(), d_y_.get(), d_truth_.get(), n_);
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  return harness::describe_mismatches(d_truth_.download(), d_out_.download(), "element");
}

harness::TimingStats SaxpyBench::time(Launch launch, const harness::TimingOptions& options) {
  const harness::TimingStats stats = harness::time_fresh(
      [&] { saxpy(a_, d_x_.get(), d_y_.get(), d_out_.get(), n_, launch); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_out_)},
       [&] { return compare_with_reference(); },
       [&](std::uint64_t seed) {  // every run on new x and y, drawn on the device
         harness::drawn(d_x_.get(), n_, seed, Value{});
         harness::drawn(d_y_.get(), n_, seed ^ 0x5EED, Value{});
       },
       {harness::region_of(d_x_), harness::region_of(d_y_)}});
  draw(seed_);  // the bench's own inputs again
  return stats;
}

}  // namespace labN
