// lab5's harness, shared by the program and the tests so that both judge a variant
// the same way: the variants as the harness sees them, the host side (seeded random
// matrices, the float64 CPU product, the MQDB host structure, generator and
// sequential product), the timed size, the yardsticks, Freivalds' randomized check
// (on the device), and the benches that run, check and time a product. The bars
// are lab.json's (lab5_bars.hpp, for the timing tests); what they were set from is
// in calibration.json.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "labs/device_buffer.hpp"
#include "labs/random.hpp"
#include "labs/timing.hpp"
#include "matmul.cuh"

struct cublasContext;  // cuBLAS's handle type: its header stays in yardsticks.cu

namespace lab5 {

// ---- The variants ----------------------------------------------------------

using Launcher = void (*)(const float*, const float*, float*, int, int, int, Launch);

enum class Block {
  Chosen,  // launch.block_x x launch.block_y threads (naive, naive_swapped, fine)
  Fixed,   // the variant fixes its block (tiled, register-blocked, best)
};

struct Variant {
  const char* name;
  const char* letter;  // the exercise's item: (a), (b), ...
  Launcher run;
  Block block;
  Launch defaults;  // the course's 16 x 16 block where it applies
};

const std::vector<Variant>& variants();
// The named variant; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

// Checks a product n x k times k x m launched with `launch` can run: sizes >= 1,
// 1..1024 threads per block, a grid within CUDA's limits, and for `fine` k <= 65535
// (grid z). Throws std::invalid_argument with the reason.
void check_launch(const Variant& v, long long n, long long k, long long m, Launch launch);

// The MQDB variants: mqdb_naive (block chosen) and mqdb_best (its own).
void check_mqdb_launch(Launch launch);

std::ostream& operator<<(std::ostream& o, const Launch& l);

// ---- The host side ---------------------------------------------------------

// SplitMix64: the one generator every lab5 input comes from, so a seed names the
// same matrices on every machine.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return harness::splitmix64_mix(state_ += harness::kSplitMixGamma); }
  // Uniform in [-1, 1): a 24-bit integer scaled, so exact in float.
  float uniform() { return uniform_of(next()); }
  LAB_HOST_DEVICE static float uniform_of(std::uint64_t r) {
    return static_cast<float>(r >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }

 private:
  std::uint64_t state_;
};

// count values uniform in [-1, 1) from Rng(seed).
std::vector<float> random_matrix(std::size_t count, std::uint64_t seed);

// C = A B in float64 (A n x k, B k x m, row-major).
std::vector<double> matmul_cpu(const std::vector<float>& A, const std::vector<float>& B, int n,
                               int k, int m);

// The course's `mqdb` structure on the host: a description, the block sizes
// D = {d_0, ..., d_{k-1}} (sum n) and all n * n elements, row-major, zeros outside
// the diagonal blocks.
struct Mqdb {
  std::string desc;
  int n = 0;
  std::vector<int> block_size;
  std::vector<float> elem;
  std::vector<int> offsets() const;  // k + 1 prefix sums
  int max_block() const;
};

// A pair of <n, D> matrices A, B with the same D, generated from Rng(seed) in this
// order: (1) k weights w_i = 0.5 + u_i (u_i uniform in [0, 1), from next() >> 11
// scaled by 2^-53) give d_i = 1 + floor((n - k) w_i / sum w); the n - sum d_i left
// over add 1 each to d_0, d_1, ...; (2) A's blocks, block by block, row by row,
// uniform in [-1, 1); (3) B's blocks the same way. Needs 1 <= k <= n.
struct MqdbPair {
  Mqdb a, b;
};
MqdbPair make_mqdb_pair(int n, int k, std::uint64_t seed);

// The course's sequential host product, block by block, in float.
Mqdb mqdb_product_host(const Mqdb& a, const Mqdb& b);
// The same in float64 (the reference), as a dense n x n matrix.
std::vector<double> mqdb_product_double(const Mqdb& a, const Mqdb& b);
// 2 * sum d_i^3: the flops of the block product (a dense one does 2 n^3).
double mqdb_flops(const std::vector<int>& block_size);
// "" when c holds exact zeros everywhere outside the diagonal blocks of `shape`.
std::string mqdb_structure_mismatches(const Mqdb& shape, const std::vector<float>& c);

// ---- The timed size --------------------------------------------------------

inline constexpr int kTimedSize = 4096;  // square products, n = k = m

// ---- The yardsticks (yardsticks.cu, the one unit that includes cuBLAS) --------
// What lab5's timings are measured against, shipped by the harness so that a
// student cannot move the bar.

// The course's matrix_prod (one thread per element of C, 16 x 16 blocks, row from y,
// column from x), made rectangular: the baseline of the tiled variants.
void course_naive_product(const float* A, const float* B, float* C, int n, int k, int m);

// cuBLAS SGEMM on row-major A (n x k), B (k x m), C (n x m), in full FP32:
// math mode CUBLAS_PEDANTIC_MATH, so no TF32 tensor cores even if the environment
// (NVIDIA_TF32_OVERRIDE) asks for them.
class CublasSgemm {
 public:
  CublasSgemm();
  ~CublasSgemm();
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;
  void run(const float* A, const float* B, float* C, int n, int k, int m);

 private:
  cublasContext* handle_ = nullptr;  // cublasHandle_t, without cuBLAS's header
};

// ---- The benches -----------------------------------------------------------

// Checks: products with n k m <= kExactLimit against the float64 CPU product,
// element by element, |got - ref| <= kElementTolerance * max(|ref|, 1) (float32
// rounding gives about 1e-6 there for k <= 1000); larger ones, and every timed run,
// with Freivalds' check, kFreivaldsVectors random vectors, tolerance
// kFreivaldsTolerance.
inline constexpr double kExactLimit = 3e8;
inline constexpr double kElementTolerance = 1e-4;
inline constexpr int kFreivaldsVectors = 3;
inline constexpr double kFreivaldsTolerance = 1e-4;

// Freivalds' check of C = A B on the device (A n x k, B k x m, C n x m, row-major
// device arrays), with kFreivaldsVectors vectors x, entries uniform in [-1, 1),
// drawn from `seed`: row i passes when
//   |(C x)_i - (A (B x))_i| <= kFreivaldsTolerance * sqrt(sum_l (A_il (B x)_l)^2),
// all in float64. The scale is the size of the terms summed in row i: float32
// rounding puts the left side near 1e-6 of it for k = 10000; a missing tile, a wrong
// element of 1% or TF32 inputs (1e-3) do not pass. Draw the seed after the product
// ran (harness::fresh_seed()): a product that knew x could be wrong everywhere but
// along x. Three passes over A, B and C per vector. "" when every row passes, else
// how many fail and the first ones.
std::string freivalds_mismatches(const float* A, const float* B, const float* C, int n, int k,
                                 int m, std::uint64_t seed);

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
  std::string check_course_naive();

  // Times a launcher (check it first), every run on matrices drawn anew on the
  // device from a fresh seed and checked by Freivalds' check after it
  // (harness::time_fresh); the matrices are the bench's own again after it. The
  // yardsticks are timed without the freshness checks.
  harness::TimingStats time(Launcher run, Launch launch,
                            const harness::TimingOptions& options = {});
  harness::TimingStats time_cublas(const harness::TimingOptions& options = {});
  harness::TimingStats time_course_naive(const harness::TimingOptions& options = {});

 private:
  std::string compare();
  std::string compare_freivalds();
  void draw(std::uint64_t seed);  // the launchers' A and B from `seed`
  void draw_into(float* a, float* b, std::uint64_t seed);
  harness::TimingOptions least(const harness::TimingOptions& options) const;
  int n_, k_, m_;
  std::uint64_t seed_;      // the bench's own matrices
  std::uint64_t drawn_;     // the matrices in d_a_ and d_b_ now
  std::vector<float> got_;  // the last product downloaded
  harness::DeviceBuffer<float> d_a_, d_b_, d_c_;
  // Where a check makes A and B again from drawn_, after the run: C is judged by
  // them, not by buffers a launcher could have written while it ran.
  harness::DeviceBuffer<float> d_check_a_, d_check_b_;
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
  // (h) on host structs holding copies of the pair: mqdb_from_host for A and B,
  // the deep copies checked, new blocks drawn on the device into the arrays they
  // point to, then mqdb_struct_product (C poisoned) and mqdb_free. "" when right.
  std::string check_from_host();
  // Device memory, in bytes, that `calls` rounds of (h) (unchecked) leave allocated,
  // as cudaMemGetInfo sees it (the whole device's: other processes move it too, and
  // memory the process freed before may serve a leak without showing).
  long long from_host_leak(int calls);

  // Times every run on blocks drawn anew on the device (same D), checked after it,
  // as MatmulBench does. The dense product must do at least the block product's
  // work too: skipping the zero tiles is fair.
  harness::TimingStats time(bool naive, Launch launch = {16, 16},
                            const harness::TimingOptions& options = {});
  harness::TimingStats time_dense_best(const harness::TimingOptions& options = {});
  // cuBLAS SGEMM FP32 on the same matrices stored densely: the MQDB bar's baseline,
  // the harness's own, so that a matmul_best slowed on purpose cannot move the bar.
  harness::TimingStats time_dense_cublas(const harness::TimingOptions& options = {});
  // The course's sequential host product, milliseconds of one run.
  double time_host_ms();

 private:
  bool exact_check() const;
  std::string compare();  // C against the product of the inputs now in d_a_ and d_b_
  // On the host: exact zeros outside the blocks, then every element against the
  // float64 product of a and b.
  std::string compare_with(const Mqdb& a, const Mqdb& b);
  // On the device: the zeros outside the blocks, then Freivalds against the inputs
  // made again in d_check_a_ and d_check_b_ (MatmulBench's reason).
  std::string compare_on_device();
  int k() const { return static_cast<int>(pair_.a.block_size.size()); }
  const int* shape();  // the blocks' k + 1 offsets on the device, for the harness's kernels
  // Blocks (same D) from `seed` into a and b, n x n each, zeros outside the blocks.
  void fill(float* a, float* b, std::uint64_t seed);
  void redraw(std::uint64_t seed);  // the launchers' A and B from `seed`
  void restore();                   // the launchers' A and B: the bench's own again
  harness::TimingStats time_fresh(const std::function<void()>& launch,
                                  const harness::TimingOptions& options);
  MqdbDevice view(harness::DeviceBuffer<float>& elem);
  MqdbPair pair_;
  std::optional<std::uint64_t> drawn_;  // the seed of the blocks in d_a_, d_b_; none: pair_'s
  // What the launchers get (offsets_ and d_offsets_ steer only their own kernels).
  std::vector<int> offsets_;
  harness::DeviceBuffer<int> d_offsets_;
  harness::DeviceBuffer<float> d_a_, d_b_, d_c_;
  // The harness's own, written before each use: the offsets (shape()), and A and B
  // made again for a check, after the run.
  harness::DeviceBuffer<int> d_shape_;
  harness::DeviceBuffer<float> d_check_a_, d_check_b_;
  std::vector<float> got_;
  std::shared_ptr<void> cublas_;  // a CublasSgemm, made when first timed
};

}  // namespace lab5
