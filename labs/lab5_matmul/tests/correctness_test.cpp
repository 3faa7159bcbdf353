// Every lab5 variant on rectangular and odd sizes (none a multiple of any block or
// tile), small ones against the float64 CPU product element by element, large
// ones (4096, 10000) with Freivalds' check; and the MQDB products on the course's
// three instances plus edge cases, structure (exact zeros off the blocks) first,
// also from host structs through the student's deep copies (h), on blocks the
// harness draws on the device after the copies.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "lab5.hpp"

namespace lab5 {
namespace {

struct Shape {
  const char* name;
  int n, k, m;
};

const Shape kShapes[] = {
    {"1x1x1", 1, 1, 1},
    {"3x5x7", 3, 5, 7},
    {"17x31x13", 17, 31, 13},
    {"64x64x64", 64, 64, 64},
    {"127x129x131", 127, 129, 131},
    {"257x100x33", 257, 100, 33},
    {"1x1000x300", 1, 1000, 300},
    {"300x1000x1", 300, 1000, 1},
    {"509_square_prime", 509, 509, 509},
    {"4096_square", 4096, 4096, 4096},
    {"4099x3001x2053", 4099, 3001, 2053},
    {"10000_square", 10000, 10000, 10000},
};

struct DenseCase {
  const char* variant;
  Shape shape;
  bool odd_launch;  // a 24 x 10 block instead of the course's 16 x 16 (naive, fine)
};

std::vector<DenseCase> dense_cases() {
  std::vector<DenseCase> cases;
  for (const Variant& v : variants()) {
    for (const Shape& s : kShapes) {
      const bool small = static_cast<double>(s.n) * s.k * s.m <= kExactLimit;
      if (v.name == std::string("fine") && !small) continue;  // n k m atomicAdds: too slow
      cases.push_back({v.name, s, false});
      if (v.block == Block::Chosen) cases.push_back({v.name, s, true});
    }
  }
  return cases;
}

class Dense : public testing::TestWithParam<DenseCase> {};

TEST_P(Dense, MatchesTheFloat64Product) {
  const DenseCase& c = GetParam();
  const Variant& v = find_variant(c.variant);
  const Launch launch = c.odd_launch ? Launch{24, 10} : v.defaults;
  check_launch(v, c.shape.n, c.shape.k, c.shape.m, launch);
  MatmulBench bench(c.shape.n, c.shape.k, c.shape.m, 1);
  const std::string wrong = bench.check(v.run, launch);
  EXPECT_TRUE(wrong.empty()) << "variant " << v.name << " (" << v.letter << ") on " << c.shape.n
                             << " x " << c.shape.k << " times " << c.shape.k << " x " << c.shape.m
                             << " (inputs uniform in [-1, 1), seed 1)"
                             << (v.block == Block::Chosen ? ", block " : "")
                             << (v.block == Block::Chosen ? std::to_string(launch.block_x) + " x " +
                                                                std::to_string(launch.block_y)
                                                          : std::string())
                             << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Dense, testing::ValuesIn(dense_cases()),
                         [](const testing::TestParamInfo<DenseCase>& info) {
                           std::ostringstream name;
                           name << info.param.variant << "__" << info.param.shape.name
                                << (info.param.odd_launch ? "__block_24x10" : "");
                           return name.str();
                         });

struct MqdbCase {
  const char* name;
  int n, k, seed;
};

// The course's three instances (seed s, n, k) and edge cases: one 1 x 1 block, k = n
// (all blocks 1 x 1), k = 1 (a dense matrix), many small blocks.
const MqdbCase kMqdbCases[] = {
    {"seed0_n1000_k3", 1000, 3, 0},
    {"seed1_n5000_k5", 5000, 5, 1},
    {"seed2_n10000_k10", 10000, 10, 2},
    {"n1_k1", 1, 1, 3},
    {"n7_k7", 7, 7, 4},
    {"n131_k1", 131, 1, 5},
    {"n257_k10", 257, 10, 6},
};

struct MqdbParam {
  MqdbCase c;
  int kernel;  // 0: mqdb_naive 16 x 16, 1: mqdb_naive 24 x 10, 2: mqdb_best
};

std::vector<MqdbParam> mqdb_params() {
  std::vector<MqdbParam> p;
  for (const MqdbCase& c : kMqdbCases) {
    for (int kernel = 0; kernel < 3; ++kernel) p.push_back({c, kernel});
  }
  return p;
}

class MqdbProduct : public testing::TestWithParam<MqdbParam> {};

TEST_P(MqdbProduct, MatchesTheBlockProductAndKeepsTheZeros) {
  const MqdbParam& p = GetParam();
  MqdbBench bench(p.c.n, p.c.k, p.c.seed);
  const Launch launch = p.kernel == 1 ? Launch{24, 10} : Launch{16, 16};
  const std::string wrong = bench.check(p.kernel != 2, launch);
  EXPECT_TRUE(wrong.empty()) << (p.kernel == 2 ? "mqdb_best" : "mqdb_naive") << " on the MQDB "
                             << "instance seed " << p.c.seed << ", n = " << p.c.n
                             << ", k = " << p.c.k << ":\n"
                             << wrong;
}

std::string mqdb_test_name(const testing::TestParamInfo<MqdbParam>& info) {
  const char* kernel = info.param.kernel == 0   ? "mqdb_naive"
                       : info.param.kernel == 1 ? "mqdb_naive_block_24x10"
                                                : "mqdb_best";
  return std::string(kernel) + "__" + info.param.c.name;
}

INSTANTIATE_TEST_SUITE_P(Correctness, MqdbProduct, testing::ValuesIn(mqdb_params()),
                         mqdb_test_name);

// (h) The same product from host structs, through the student's deep copies (checked,
// then given new blocks on the device): the course's first instance and the edge
// cases (n = 5000 and 10000 would add only the time of copying 0.2 and 0.8 GB).
class MqdbFromHost : public testing::TestWithParam<MqdbCase> {};

TEST_P(MqdbFromHost, MatchesTheBlockProductAndKeepsTheZeros) {
  const MqdbCase& c = GetParam();
  MqdbBench bench(c.n, c.k, c.seed);
  const std::string wrong = bench.check_from_host();
  EXPECT_TRUE(wrong.empty()) << "(h) from host structs, MQDB instance seed " << c.seed
                             << ", n = " << c.n << ", k = " << c.k << ":\n"
                             << wrong;
}

std::vector<MqdbCase> from_host_cases() {
  std::vector<MqdbCase> cases;
  for (const MqdbCase& c : kMqdbCases) {
    if (c.n <= 1000) cases.push_back(c);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Correctness, MqdbFromHost, testing::ValuesIn(from_host_cases()),
                         [](const testing::TestParamInfo<MqdbCase>& info) {
                           return "mqdb_from_host__" + std::string(info.param.name);
                         });

}  // namespace
}  // namespace lab5
