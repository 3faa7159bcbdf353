// labN's harness, shared by the program and the tests so that both judge saxpy the
// same way: the launch rules, the seeded inputs (drawn in-process: this lab reads no
// dataset files), the CPU reference and the bench that runs, checks and times it.
// The bar is lab.json's (labN_bars.hpp, for the timing test).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "TOPIC.cuh"
#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"

namespace labN {

inline constexpr int kDefaultThreads = 256;
inline constexpr int kMaxThreads = 1024;
inline constexpr long long kMaxN = 1LL << 28;  // three arrays of 1 GiB
// The a of the program and the timed test. With the values drawn below, a * x + y
// is exact in float for this a and for the tests' other one (-0.75).
inline constexpr float kA = 1.5f;
// The timed size: three arrays of 128 MiB, 384 MiB moved per pass, near the 512 MiB
// the copy ceiling moves (on a much smaller array launch and tail costs weigh).
inline constexpr int kTimedN = 1 << 25;
inline constexpr std::uint64_t kTimedSeed = 1;

// Just enough blocks of `threads` to cover n.
Launch covering(long long n, int threads);
// The launch the program runs: `requested.blocks` 0 means covering(n, threads).
// Throws std::invalid_argument (the programs' exit status 2) for threads outside
// 1..kMaxThreads or a grid that covers fewer than n elements.
Launch checked_launch(long long n, Launch requested);

// n values k / 256 with -2^14 <= k < 2^14, from `seed`: with a = 1.5 or -0.75,
// a * x + y needs at most 17 significant bits, so any order of evaluation, fused
// multiply-add or not, gives the same float.
std::vector<float> draw_values(std::size_t n, std::uint64_t seed);

// The CPU reference: out[i] = a * x[i] + y[i].
std::vector<float> saxpy_cpu(float a, const std::vector<float>& x, const std::vector<float>& y);

// x and y of n values and the output, on the device; the expected output on the host.
class SaxpyBench {
 public:
  SaxpyBench(int n, std::uint64_t seed, float a = kA);

  int n() const { return n_; }
  // Bytes a pass must move: x and y read, out written.
  double bytes_moved() const { return 12.0 * n_; }

  // Poisons the output (NaN), runs once, waits (with the deadline) and compares
  // exactly. Returns "" when right, else the first mismatches.
  std::string check(Launch launch);
  // Times saxpy (check it first: a wrong output has no meaningful time), every run
  // on inputs drawn anew on the device and checked against the harness's own saxpy
  // of them (harness::time_fresh); the inputs are the bench's own again after it.
  harness::TimingStats time(Launch launch, const harness::TimingOptions& options = {});

 private:
  void draw(std::uint64_t seed);
  std::string compare();
  std::string compare_with_reference();
  int n_;
  std::uint64_t seed_ = 0;  // the bench's own inputs' seed
  float a_;
  std::vector<float> expected_;
  harness::DeviceBuffer<float> d_x_, d_y_, d_out_;
  harness::DeviceBuffer<float> d_truth_;  // the harness's answer to a redraw, made after the run
};

}  // namespace labN
