// lab5's host side: seeded random matrices, the float64 CPU product, Freivalds'
// randomized check, and the MQDB host structure, generator and sequential product.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "labs/random.hpp"

namespace lab5 {

// SplitMix64: the one generator every lab5 input comes from, so a seed names the
// same matrices on every machine.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return harness::splitmix64_mix(state_ += harness::kSplitMixGamma); }
  // Uniform in [-1, 1): a 24-bit integer scaled, so exact in float.
  float uniform() { return uniform_of(next()); }
  static float uniform_of(std::uint64_t r) {
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

// Freivalds' check of C = A B with `vectors` random vectors x (entries uniform in
// [-1, 1), from Rng(seed)): row i passes when
//   |(C x)_i - (A (B x))_i| <= tolerance * sqrt(sum_l (A_il (B x)_l)^2),
// all in float64. The scale is the size of the terms summed in row i: float32
// rounding puts the left side near 1e-6 of it for k = 10000; a missing tile, a
// wrong element of 1% or TF32 inputs (1e-3) do not pass. The probe holds x and
// A (B x), O(nk + km) per vector, made once per pair of inputs: each product
// checked then costs one pass over C, O(nm) per vector, split across the cores.
class FreivaldsProbe {
 public:
  FreivaldsProbe() = default;
  FreivaldsProbe(const std::vector<float>& A, const std::vector<float>& B, int n, int k, int m,
                 int vectors, std::uint64_t seed);
  // "" when every row passes, else how many fail and the first ones.
  std::string mismatches(const std::vector<float>& C, double tolerance) const;

 private:
  int n_ = 0, m_ = 0, vectors_ = 0;
  std::vector<double> x_;      // vector v at [v m, (v + 1) m)
  std::vector<double> abx_;    // (A (B x_v))_i at [v n + i]
  std::vector<double> scale_;  // sqrt(sum_l (A_il (B x_v)_l)^2) at [v n + i]
};

// ---- MQDB ------------------------------------------------------------------------
// The seed's `mqdb` structure on the host: a description, the block sizes
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
// (Re)fills q's diagonal blocks, block by block, row by row, uniform in [-1, 1)
// from rng, and zeros elsewhere: step (2) or (3) above.
void fill_blocks(Mqdb& q, Rng& rng);

// The seed's sequential host product, block by block, in float.
Mqdb mqdb_product_host(const Mqdb& a, const Mqdb& b);
// The same in float64 (the reference), as a dense n x n matrix.
std::vector<double> mqdb_product_double(const Mqdb& a, const Mqdb& b);
// 2 * sum d_i^3: the flops of the block product (a dense one does 2 n^3).
double mqdb_flops(const std::vector<int>& block_size);
// "" when c holds exact zeros everywhere outside the diagonal blocks of `shape`.
std::string mqdb_structure_mismatches(const Mqdb& shape, const std::vector<float>& c);

}  // namespace lab5
