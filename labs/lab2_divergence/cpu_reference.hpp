// The CPU reference for lab2, and the seeded inputs every program and test uses
// (generated in-process: the lab's data are random numbers, not files).
#pragma once
#include <cstdint>
#include <vector>

#include "variants.hpp"

namespace lab2 {

// n floats uniform in [lo, hi), the same for the same seed on every machine.
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

}  // namespace lab2
