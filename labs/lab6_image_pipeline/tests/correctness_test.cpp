// Steps 1-3, exact against the CPU, every output poisoned before the run:
//  - the predicate, the shift and the scatter on every public image (each step
//    fed the CPU's result of the steps before it);
//  - both scans on every image's predicate and on values 0..7 of sizes 1, tile
//    sizes plus and minus one, a prime and up to 2^24 + 43 (many look-back tiles,
//    three levels of the three-kernel scan), and the shift on those;
//  - the look-back scan of the largest size 16 times (a race shows now and then);
//  - the compaction chained from the student's own steps, with each scan.
#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "lab6.hpp"
#include "lab6_cases.hpp"
#include "labs/dataset.hpp"

namespace lab6 {
namespace {

CorruptedImage load_case(const harness::DatasetCase& data) {
  return load_image(harness::dataset_path(LAB_DATA_DIR, data.name), data.n);
}

std::string describe(const harness::DatasetCase& data, const CompactionBench& bench) {
  return std::string(data.name) + " (n = " + std::to_string(bench.n()) +
         ", image_size = " + std::to_string(bench.image_size()) + ")";
}

std::vector<harness::DatasetCase> cases() {
  return std::vector<harness::DatasetCase>(std::begin(k_cases), std::end(k_cases));
}

std::string case_name(const testing::TestParamInfo<harness::DatasetCase>& info) {
  return info.param.name;
}

// ---- Steps 1 and 3, and the shift, on the images --------------------------------

class Image : public testing::TestWithParam<harness::DatasetCase> {};

TEST_P(Image, PredicateMatchesTheCpu) {
  CompactionBench bench(load_case(GetParam()));
  const std::string wrong = bench.check_predicate();
  EXPECT_TRUE(wrong.empty()) << "build_predicate on " << describe(GetParam(), bench) << ":\n"
                             << wrong;
}

TEST_P(Image, ShiftOfThePredicateScanMatchesTheCpu) {
  CompactionBench bench(load_case(GetParam()));
  const std::string wrong = bench.check_shift();
  EXPECT_TRUE(wrong.empty()) << "shift_exclusive of the CPU's inclusive scan of the predicate on "
                             << describe(GetParam(), bench) << ":\n"
                             << wrong;
}

TEST_P(Image, ScatterMatchesTheCpu) {
  CompactionBench bench(load_case(GetParam()));
  const std::string wrong = bench.check_scatter();
  EXPECT_TRUE(wrong.empty()) << "scatter with the CPU's addresses on "
                             << describe(GetParam(), bench) << " (out[0 .. image_size) checked):\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Image, testing::ValuesIn(cases()), case_name);

// ---- Step 2 and the compaction, with each scan -------------------------------------

using VariantCase = std::tuple<const char*, harness::DatasetCase>;
class ImageScan : public testing::TestWithParam<VariantCase> {};

TEST_P(ImageScan, ScanOfThePredicateMatchesTheCpu) {
  const auto& [name, data] = GetParam();
  CompactionBench bench(load_case(data));
  const std::string wrong = bench.check_scan(find_scan_variant(name));
  EXPECT_TRUE(wrong.empty()) << name << " scan of the predicate of " << describe(data, bench)
                             << ":\n"
                             << wrong;
}

TEST_P(ImageScan, CompactionMatchesTheCpu) {
  const auto& [name, data] = GetParam();
  CompactionBench bench(load_case(data));
  const std::string wrong = bench.check_compaction(find_scan_variant(name));
  EXPECT_TRUE(wrong.empty()) << "the compaction (build_predicate, " << name
                             << ", shift_exclusive, scatter) of " << describe(data, bench)
                             << " (out[0 .. image_size) checked):\n"
                             << wrong;
}

std::vector<const char*> variant_names() {
  std::vector<const char*> names;
  for (const ScanVariant& v : scan_variants()) names.push_back(v.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Correctness, ImageScan,
                         testing::Combine(testing::ValuesIn(variant_names()),
                                          testing::ValuesIn(cases())),
                         [](const testing::TestParamInfo<VariantCase>& info) {
                           return std::string(std::get<0>(info.param)) + "__" +
                                  std::get<1>(info.param).name;
                         });

// ---- Step 2 on values 0..7 ---------------------------------------------------------

using VariantSize = std::tuple<const char*, TestSize>;
class Scan : public testing::TestWithParam<VariantSize> {};

TEST_P(Scan, MatchesTheCpu) {
  const auto& [name, size] = GetParam();
  ScanBench bench(random_values(size.n, 600 + size.n));
  const std::string wrong = bench.check(find_scan_variant(name));
  EXPECT_TRUE(wrong.empty()) << name << " scan of " << size.n << " values 0..7:\n" << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Scan,
                         testing::Combine(testing::ValuesIn(variant_names()),
                                          testing::ValuesIn(kTestSizes)),
                         [](const testing::TestParamInfo<VariantSize>& info) {
                           return std::string(std::get<0>(info.param)) + "__" +
                                  std::get<1>(info.param).name;
                         });

class Shift : public testing::TestWithParam<TestSize> {};

TEST_P(Shift, MatchesTheCpu) {
  ScanBench bench(random_values(GetParam().n, 700 + GetParam().n));
  const std::string wrong = bench.check_shift();
  EXPECT_TRUE(wrong.empty()) << "shift_exclusive of the inclusive scan of " << GetParam().n
                             << " values 0..7:\n"
                             << wrong;
}

// A race between a tile's flag and its value (a missing fence) shows only now and
// then: the look-back scan of the largest size, run after run, each output checked.
TEST(Correctness, LookbackScanMatchesTheCpuRunAfterRun) {
  constexpr int kRuns = 16;
  const TestSize& size = kTestSizes[std::size(kTestSizes) - 1];
  ScanBench bench(random_values(size.n, 800));
  for (int run = 1; run <= kRuns; ++run) {
    const std::string wrong = bench.check(find_scan_variant("lookback"));
    ASSERT_TRUE(wrong.empty()) << "lookback scan of " << size.n << " values 0..7, run " << run
                               << " of " << kRuns << ":\n"
                               << wrong;
  }
}

INSTANTIATE_TEST_SUITE_P(Correctness, Shift, testing::ValuesIn(kTestSizes),
                         [](const testing::TestParamInfo<TestSize>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace lab6
