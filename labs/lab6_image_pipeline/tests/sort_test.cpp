// Step 9, exact against the CPU on keys over all 32 bits, of sizes 1 and 2, a tile
// of 256 or 4096 keys plus and minus one, a prime and 2^24 + 43 (many tiles),
// every output and the scratch poisoned before the run:
//  - check_order on the keys sorted, as drawn, and sorted with one descent (at a
//    place drawn from a fresh seed, unknown to the code checked, and at the end);
//  - radix_pass at the lowest, a middle and the highest digit: stable, each digit's
//    keys in their order;
//  - radix_sort, from 2 keys (one key is sorted already: a sort doing nothing would
//    pass), the keys restored and the temp poisoned before the run.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lab6.hpp"
#include "labs/fresh.hpp"

namespace lab6 {
namespace {

std::string size_name(const testing::TestParamInfo<TestSize>& info) { return info.param.name; }

SortBench bench_for(const TestSize& size) { return SortBench(random_keys(size.n, 900 + size.n)); }

class Order : public testing::TestWithParam<TestSize> {};

TEST_P(Order, SortedKeysGiveOne) {
  SortBench bench = bench_for(GetParam());
  const std::string wrong = bench.check_order_of(bench.sorted());
  EXPECT_TRUE(wrong.empty()) << "check_order of " << GetParam().n << " keys in order:\n" << wrong;
}

TEST_P(Order, KeysAsDrawnGiveZero) {
  SortBench bench = bench_for(GetParam());
  const std::string wrong = bench.check_order_of(bench.keys());
  EXPECT_TRUE(wrong.empty()) << "check_order of " << GetParam().n << " keys as drawn:\n" << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Order, testing::ValuesIn(kTestSizes), size_name);

// From 2 keys on, the sizes that have a pair to swap.
class OrderDescent : public testing::TestWithParam<TestSize> {};

TEST_P(OrderDescent, OneDescentGivesZero) {
  SortBench bench = bench_for(GetParam());
  const long long n = GetParam().n;
  const long long anywhere = static_cast<long long>(harness::fresh_seed() % (n - 1));
  for (const long long at : {anywhere, n - 2}) {
    if (at + 1 >= n) continue;
    std::vector<unsigned> keys = bench.sorted();
    std::swap(keys[at], keys[at + 1]);
    const std::string wrong = bench.check_order_of(keys);
    EXPECT_TRUE(wrong.empty()) << "check_order of " << n << " keys in order but keys " << at
                               << " and " << at + 1 << " swapped:\n"
                               << wrong;
  }
}

INSTANTIATE_TEST_SUITE_P(Correctness, OrderDescent,
                         testing::ValuesIn(std::begin(kTestSizes) + 1, std::end(kTestSizes)),
                         size_name);

using ShiftSize = std::tuple<int, TestSize>;
class Pass : public testing::TestWithParam<ShiftSize> {};

TEST_P(Pass, IsStableAndMatchesTheCpu) {
  const auto& [shift, size] = GetParam();
  SortBench bench = bench_for(size);
  const std::string wrong = bench.check_pass(shift);
  EXPECT_TRUE(wrong.empty()) << "radix_pass at shift " << shift << " (digit (key >> " << shift
                             << ") & 3) of " << size.n << " keys:\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Pass,
                         testing::Combine(testing::Values(0, 16, 30),
                                          testing::ValuesIn(kTestSizes)),
                         [](const testing::TestParamInfo<ShiftSize>& info) {
                           return "shift_" + std::to_string(std::get<0>(info.param)) + "__" +
                                  std::get<1>(info.param).name;
                         });

class Sort : public testing::TestWithParam<TestSize> {};

TEST_P(Sort, MatchesTheCpu) {
  SortBench bench = bench_for(GetParam());
  const std::string wrong = bench.check_sort();
  EXPECT_TRUE(wrong.empty()) << "radix_sort of " << GetParam().n << " keys:\n" << wrong;
}

// From 2 keys on: one key is sorted whatever a sort does.
INSTANTIATE_TEST_SUITE_P(Correctness, Sort,
                         testing::ValuesIn(std::begin(kTestSizes) + 1, std::end(kTestSizes)),
                         size_name);

}  // namespace
}  // namespace lab6
