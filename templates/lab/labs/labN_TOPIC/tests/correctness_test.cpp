// saxpy at every size (1, the prime 97, 1000, which no block size of 256 or 96
// divides, the prime 1000003, and 2^20), launched with blocks of 256 threads that
// just cover n and with blocks of 96 threads and three blocks more than needed
// (only a bounds check survives those), for two values of a. The inputs make
// a * x + y exact in float, so the output must match the CPU's bit for bit.
#include <gtest/gtest.h>

#include <sstream>
#include <tuple>

#include "labN.hpp"

namespace labN {
namespace {

struct Size {
  const char* name;
  int n;
};
const Size kSizes[] = {
    {"n1", 1}, {"prime97", 97}, {"n1000", 1000}, {"prime1000003", 1000003}, {"n2p20", 1 << 20}};

struct Shape {
  const char* name;
  int threads;
  int spare_blocks;  // blocks beyond those that cover n
};
const Shape kShapes[] = {{"fit256", 256, 0}, {"spare96", 96, 3}};

struct Scale {
  const char* name;
  float a;
};
const Scale kScales[] = {{"a1p5", kA}, {"aneg0p75", -0.75f}};

using Param = std::tuple<Size, Shape, Scale>;
class Saxpy : public testing::TestWithParam<Param> {};

TEST_P(Saxpy, MatchesTheCpuExactly) {
  const auto& [size, shape, scale] = GetParam();
  SaxpyBench bench(size.n, 1000 + size.n, scale.a);
  Launch launch = covering(size.n, shape.threads);
  launch.blocks += shape.spare_blocks;
  const std::string wrong = bench.check(launch);
  EXPECT_TRUE(wrong.empty()) << "saxpy on n = " << size.n << ", a = " << scale.a << ", "
                             << launch.blocks << " blocks of " << launch.threads << " threads:\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Saxpy,
                         testing::Combine(testing::ValuesIn(kSizes), testing::ValuesIn(kShapes),
                                          testing::ValuesIn(kScales)),
                         [](const testing::TestParamInfo<Param>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param).name << "__"
                                << std::get<1>(info.param).name << "__"
                                << std::get<2>(info.param).name;
                           return name.str();
                         });

}  // namespace
}  // namespace labN
