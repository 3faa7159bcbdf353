// lab2's harness, shared by the programs and the tests so that both judge a kernel
// the same way: the kernels as the harness sees them, the CPU reference and the
// seeded inputs (generated in-process: the lab's data are random numbers, not
// files), the timed sizes, the harness's own kernels, and the benches that run,
// check and time a kernel. The bars are lab.json's (lab2_bars.hpp, for the timing
// tests); what they were set from is in calibration.json.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "divergence.cuh"
#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"

namespace lab2 {

// ---- The kernels and the launch rules --------------------------------------

using Launcher = void (*)(const float*, int, float*, Launch);

enum class Family {
  Parity,  // out[i] = i even ? work_even(in[i]) : work_odd(in[i])
  Switch,  // out[i] = switch_work(i % 32, in[i])
};

struct Variant {
  const char* name;
  const char* letter;  // the exercise's item: (a), (b), ...
  Launcher run;
  Family family;
  const char* branch;  // what the branch is on, for the program's table
};

// (a) even_odd, (b) warp_aligned, (c) half_block, (d) switch_divergent, (e) switch_uniform.
const std::vector<Variant>& variants();
// The named variant; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

inline constexpr int kDefaultThreads = 256;

// Throws std::invalid_argument unless threads is a multiple of 32 in 32..1024.
Launch check_launch(long long threads);
// Throws std::invalid_argument unless x, y >= 1 and x * y <= 1024.
Block2D check_block(long long x, long long y);

// ---- The CPU reference and the inputs --------------------------------------

// n floats uniform in [lo, hi], the same for the same seed on every machine.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f,
                                 float hi = 1.0f);
// n ints uniform in [lo, hi], never all equal for n > 1 in practice.
std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi);

// What every kernel of `family` must produce from `in` (same functions as the GPU).
std::vector<float> expected_cpu(Family family, const std::vector<float>& in);
// simpleDivergence: data[i] = (i % 32 < 16) ? data[i] * 2 : data[i] + 1.
std::vector<int> simple_divergence_cpu(std::vector<int> data);
// sumMatrixOnGPU2D: C = A + B.
std::vector<float> sum_matrix_cpu(const std::vector<float>& a, const std::vector<float>& b);

// ---- The timed sizes -------------------------------------------------------

inline constexpr int kTimedN = 1 << 24;  // 2^24 elements, 256 threads per block
inline constexpr int kTimedThreads = 256;
inline constexpr int kTimedMatrix = 1 << 13;  // sumMatrix timing: 2^13 x 2^13 floats

// ---- The harness's own kernels ---------------------------------------------
// The course's tiny textbook kernels (a demonstration that predicated branches do
// not diverge) and a plain GPU reference, to check outputs too large for the CPU
// reference to recompute quickly.

// The course's pari_dispari_1 (a = 2 for even threads, b = 1 for odd ones,
// c[tid] = a + b), with a bound check: c[i] = i even ? 2 : 1.
void textbook_even_odd(int* c, int n, int threads);
// The same tiny body, branch on (tid / warpSize) % 2: c[i] = warp even ? 2 : 1.
void textbook_warp_aligned(int* c, int n, int threads);

// One thread per element, out[i] as the contract defines it for `family`.
void gpu_reference(Family family, const float* in, int n, float* out);

// ---- The benches -----------------------------------------------------------

// Up to this many elements the expected output is recomputed on the CPU; above it
// (the 2^24 timed size), by the harness's own one-thread-per-element GPU kernel,
// which the correctness tests check against the CPU.
inline constexpr long long kCpuCheckLimit = 1 << 21;

// n random floats in [-1, 1] and an output buffer, for the parity and switch kernels.
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

  // Times a kernel (check it first: a wrong output has no meaningful time), every
  // run on floats drawn anew on the device, its output checked there against the
  // GPU reference's (harness::time_fresh); the bench's own input stays as it is.
  // The harness's own kernels below are timed without the freshness checks.
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

// sumMatrixOnGPU2D on two random nx x ny matrices, placed on the device from the
// bench's seed before each check.
class MatrixBench {
 public:
  MatrixBench(int nx, int ny, std::uint64_t seed);
  int nx() const { return nx_; }
  int ny() const { return ny_; }
  double bytes_moved() const { return 12.0 * nx_ * ny_; }  // two reads, one write
  std::string check(Block2D block);
  // Times, every run on matrices placed anew and checked (as above).
  harness::TimingStats time(Block2D block, const harness::TimingOptions& options = {});

 private:
  void draw(std::uint64_t seed);
  std::string compare(std::uint64_t seed);
  int nx_, ny_;
  std::uint64_t seed_;
  harness::DeviceBuffer<float> d_a_, d_b_, d_c_;
};

}  // namespace lab2
