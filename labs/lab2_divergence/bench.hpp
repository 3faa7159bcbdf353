// Runs, checks and times lab2 kernels: used by the lab programs and by the tests,
// so both judge a kernel the same way.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "divergence.cuh"
#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"
#include "variants.hpp"

namespace lab2 {

// Up to this many elements the expected output is recomputed on the CPU; above it
// (the 2^24 timed size), by the harness's own one-thread-per-element GPU kernel,
// which the correctness tests check against the CPU.
inline constexpr long long kCpuCheckLimit = 1 << 21;

// n random floats in [-1, 1) and an output buffer, for the parity and switch kernels.
class ElementwiseBench {
 public:
  ElementwiseBench(int n, std::uint64_t seed);

  int n() const { return n_; }
  const std::vector<float>& input() const { return input_; }
  const std::vector<float>& expected(Family family);

  // Poisons the output, runs once, waits (with the deadline) and compares exactly.
  // Returns "" when right, else the first mismatches.
  std::string check(const Variant& v, Launch launch);
  // The GPU reference kernel's output against the CPU's (a harness self-check).
  std::string check_gpu_reference(Family family);
  // Bytes a pass must move: n floats read and n written.
  double bytes_moved() const { return 8.0 * n_; }

  // Times a kernel (check it first: a wrong output has no meaningful time), then
  // checks the last timed run's output and one more on fresh inputs
  // (harness::time_fresh); the inputs stay the fresh ones. The harness's own
  // kernels below are timed without the freshness checks.
  harness::TimingStats time(const Variant& v, Launch launch,
                            const harness::TimingOptions& options = {});
  // The harness's divergent kernel for `family` (one thread per element, branch on
  // i % 2 or switch on i % 32): the baseline the timing bars compare against.
  harness::TimingStats time_reference(Family family, const harness::TimingOptions& options = {});
  // The course's tiny pari_dispari kernels, on n ints.
  harness::TimingStats time_textbook(bool warp_aligned, Launch launch,
                                     const harness::TimingOptions& options = {});

 private:
  std::string compare(Family family);
  void redraw(Family family);
  int n_;
  std::vector<float> input_;
  std::vector<float> expected_[2];
  bool have_expected_[2] = {false, false};
  harness::DeviceBuffer<float> d_in_;
  harness::DeviceBuffer<float> d_out_;
};

// simpleDivergence on n random ints (or 0..n-1 as in the course, with `iota`).
std::string check_simple_divergence(const std::vector<int>& data, Launch launch,
                                    std::vector<int>* result = nullptr);

// sumMatrixOnGPU2D on two random nx x ny matrices.
class MatrixBench {
 public:
  MatrixBench(int nx, int ny, std::uint64_t seed);
  int nx() const { return nx_; }
  int ny() const { return ny_; }
  double bytes_moved() const { return 12.0 * nx_ * ny_; }  // two reads, one write
  std::string check(Block2D block);
  // Times, then checks the last timed run and one on fresh matrices (as above).
  harness::TimingStats time(Block2D block, const harness::TimingOptions& options = {});

 private:
  void draw(std::uint64_t seed);
  std::string compare();
  int nx_, ny_;
  std::vector<float> expected_;
  harness::DeviceBuffer<float> d_a_, d_b_, d_c_;
};

}  // namespace lab2
