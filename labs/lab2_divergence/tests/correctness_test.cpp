// Every lab2 kernel, at every size (1, 97, 1000, the prime 1000003, the 2^24 of the
// timed runs) and with two block sizes (256, and 96: three warps, a half of 48
// threads), must give exactly the expected output: bit for bit, since the kernels
// and the CPU run the same correctly rounded fmaf chains.
#include <gtest/gtest.h>

#include <numeric>
#include <sstream>
#include <tuple>

#include "lab2.hpp"

namespace lab2 {
namespace {

struct Size {
  const char* name;
  int n;
};
const Size kSizes[] = {
    {"n1", 1}, {"n97", 97}, {"n1000", 1000}, {"prime1000003", 1000003}, {"seed2p24", 1 << 24}};

using Param = std::tuple<const char*, Size, int>;
class Kernels : public testing::TestWithParam<Param> {};

TEST_P(Kernels, MatchExpectedOutputExactly) {
  const auto& [name, size, threads] = GetParam();
  const Variant& v = find_variant(name);
  ElementwiseBench bench(size.n, 1000 + size.n);
  const std::string wrong = bench.check(v, Launch{threads});
  EXPECT_TRUE(wrong.empty()) << "kernel " << v.name << " (" << v.letter << ") on n = " << size.n
                             << " random floats, " << threads << " threads per block:\n"
                             << wrong;
}

std::vector<const char*> variant_names() {
  std::vector<const char*> names;
  for (const Variant& v : variants()) names.push_back(v.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Kernels,
                         testing::Combine(testing::ValuesIn(variant_names()),
                                          testing::ValuesIn(kSizes), testing::Values(256, 96)),
                         [](const testing::TestParamInfo<Param>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param) << "__" << std::get<1>(info.param).name
                                << "__threads" << std::get<2>(info.param);
                           return name.str();
                         });

// simpleDivergence: the course's run (32 ints 0..31, one warp) and random ints.
using SimpleParam = std::tuple<int, int>;
class SimpleDivergence : public testing::TestWithParam<SimpleParam> {};

TEST_P(SimpleDivergence, MatchesTheCpuExactly) {
  const auto& [n, threads] = GetParam();
  std::vector<int> data(n);
  if (n == 32) {
    std::iota(data.begin(), data.end(), 0);
  } else {
    data = random_ints(n, 77 + n, -(1 << 29), 1 << 29);
  }
  const std::string wrong = check_simple_divergence(data, Launch{threads});
  EXPECT_TRUE(wrong.empty()) << "simple_divergence (f) on n = " << n << " ints, " << threads
                             << " threads per block:\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, SimpleDivergence,
                         testing::Combine(testing::Values(32, 1, 97, 1000003),
                                          testing::Values(32, 96)),
                         [](const testing::TestParamInfo<SimpleParam>& info) {
                           return "n" + std::to_string(std::get<0>(info.param)) + "__threads" +
                                  std::to_string(std::get<1>(info.param));
                         });

// sumMatrixOnGPU2D: the course's four shapes and an odd one, on matrices whose
// sides divide by none of them.
using MatrixParam = std::tuple<std::pair<int, int>, std::pair<int, int>>;
class SumMatrix : public testing::TestWithParam<MatrixParam> {};

TEST_P(SumMatrix, MatchesTheCpuExactly) {
  const auto& [shape, size] = GetParam();
  MatrixBench bench(size.first, size.second, 5 + size.first);
  const Block2D block{shape.first, shape.second};
  const std::string wrong = bench.check(block);
  EXPECT_TRUE(wrong.empty()) << "sum_matrix_2d (g), block (" << block.x << "," << block.y
                             << ") on nx = " << size.first << ", ny = " << size.second
                             << " (element index = row * nx + column):\n"
                             << wrong;
}

std::string matrix_case_name(const testing::TestParamInfo<MatrixParam>& info) {
  const std::pair<int, int> shape = std::get<0>(info.param);
  const std::pair<int, int> size = std::get<1>(info.param);
  return "block" + std::to_string(shape.first) + "x" + std::to_string(shape.second) + "__" +
         std::to_string(size.first) + "x" + std::to_string(size.second);
}

const std::pair<int, int> kShapes[] = {{32, 32}, {32, 16}, {16, 32}, {16, 16}, {7, 5}};
const std::pair<int, int> kMatrices[] = {{1, 1}, {97, 31}, {1000, 997}};

INSTANTIATE_TEST_SUITE_P(Correctness, SumMatrix,
                         testing::Combine(testing::ValuesIn(kShapes), testing::ValuesIn(kMatrices)),
                         matrix_case_name);

}  // namespace
}  // namespace lab2
