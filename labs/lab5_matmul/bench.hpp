// Runs, checks and times lab5 products: used by the lab program and by the tests,
// so both judge a variant the same way.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cpu_reference.hpp"
#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"
#include "matmul.cuh"
#include "variants.hpp"

namespace lab5 {

// Checks: products with n k m <= kExactLimit against the float64 CPU product,
// element by element, |got - ref| <= kElementTolerance * max(|ref|, 1) (float32
// rounding gives about 1e-6 there for k <= 1000); larger ones with Freivalds'
// check, kFreivaldsVectors random vectors, tolerance kFreivaldsTolerance.
inline constexpr double kExactLimit = 3e8;
inline constexpr double kElementTolerance = 1e-4;
inline constexpr int kFreivaldsVectors = 3;
inline constexpr double kFreivaldsTolerance = 1e-4;
inline constexpr std::uint64_t kFreivaldsSeed = 77;

class MatmulBench {
 public:
  // A = random_matrix(n k, seed), B = random_matrix(k m, seed + 1000003).
  MatmulBench(int n, int k, int m, std::uint64_t seed = 1);

  int n() const { return n_; }
  int k() const { return k_; }
  int m() const { return m_; }
  double flops() const { return 2.0 * n_ * k_ * static_cast<double>(m_); }
  // Bytes a product must move at least: A and B read, C written.
  double bytes_moved() const {
    return 4.0 * (static_cast<double>(n_) * k_ + static_cast<double>(k_) * m_ +
                  static_cast<double>(n_) * m_);
  }
  bool exact_check() const { return static_cast<double>(n_) * k_ * m_ <= kExactLimit; }

  // Poisons C, runs once, waits (with the deadline) and checks. "" when right.
  std::string check(Launcher run, Launch launch);
  std::string check_cublas();
  std::string check_seed_naive();

  // Times a launcher (check it first), then checks the last timed run's product
  // and one more on fresh matrices (harness::time_fresh); the matrices stay the
  // fresh ones. The yardsticks are timed without the freshness checks.
  harness::TimingStats time(Launcher run, Launch launch,
                            const harness::TimingOptions& options = {});
  harness::TimingStats time_cublas(const harness::TimingOptions& options = {});
  harness::TimingStats time_seed_naive(const harness::TimingOptions& options = {});

 private:
  std::string compare();
  void draw(std::uint64_t seed);
  harness::TimingOptions least(const harness::TimingOptions& options) const;
  int n_, k_, m_;
  std::vector<float> a_, b_;
  std::vector<double> expected_;  // for exact checks
  FreivaldsProbe probe_;          // for the others
  std::vector<float> got_;        // the last product downloaded
  harness::DeviceBuffer<float> d_a_, d_b_, d_c_;
  std::shared_ptr<void> cublas_;
};

// One MQDB instance (A, B with the same D) on the host and on the device.
class MqdbBench {
 public:
  MqdbBench(int n, int k, std::uint64_t seed);

  const Mqdb& a() const { return pair_.a; }
  int n() const { return pair_.a.n; }
  double flops() const { return mqdb_flops(pair_.a.block_size); }
  double dense_flops() const { return 2.0 * n() * n() * static_cast<double>(n()); }
  // Bytes any product of the two must move: A's and B's blocks read, all of C
  // written (the zeros too).
  double bytes_moved() const;

  // mqdb_naive (with `launch`) or mqdb_best (naive == false): poison, run, check.
  std::string check(bool naive, Launch launch = {16, 16});
  // matmul_best on the same matrices stored densely (n x n x n).
  std::string check_dense_best();

  // Times, then checks the last timed run and one more on fresh blocks (same D),
  // as MatmulBench does. The dense product must do at least the block product's
  // work too: skipping the zero tiles is fair.
  harness::TimingStats time(bool naive, Launch launch = {16, 16},
                            const harness::TimingOptions& options = {});
  harness::TimingStats time_dense_best(const harness::TimingOptions& options = {});
  // The seed's sequential host product, milliseconds of one run.
  double time_host_ms();

 private:
  bool exact_check() const;
  void probe();  // the Freivalds probe of the current blocks, when not exact
  std::string compare();
  harness::TimingStats time_fresh(const std::function<void()>& launch,
                                  const harness::TimingOptions& options);
  MqdbDevice view(harness::DeviceBuffer<float>& elem);
  MqdbPair pair_;
  std::vector<int> offsets_;
  harness::DeviceBuffer<int> d_offsets_;
  harness::DeviceBuffer<float> d_a_, d_b_, d_c_;
  FreivaldsProbe probe_;
  std::vector<float> got_;
};

}  // namespace lab5
