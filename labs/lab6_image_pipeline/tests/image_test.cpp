// Steps 4-8, exact against the CPU on every public image (sizes 1, primes, sizes
// no block size divides, the course's 1920 x 1080), every output poisoned before
// the run (the in-place steps get their input afresh):
//  - each step alone, fed the CPU's result of the steps before it: each map and
//    each histogram variant, the cdf, cdf_min, the equalisation, the sum;
//  - steps 4-8 chained from the student's own steps, the course's first versions
//    (map_branchy, histogram_global) and its last (map_constant, histogram_shared).
#include <gtest/gtest.h>

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

std::string describe(const harness::DatasetCase& data, const ImageBench& bench) {
  return std::string(data.name) + " (image_size = " + std::to_string(bench.image_size()) + ")";
}

std::vector<harness::DatasetCase> cases() {
  return std::vector<harness::DatasetCase>(std::begin(k_cases), std::end(k_cases));
}

// ---- Steps 6-8 on each image -----------------------------------------------------------

class ImageSteps : public testing::TestWithParam<harness::DatasetCase> {};

TEST_P(ImageSteps, CumulativeHistogramMatchesTheCpu) {
  ImageBench bench(load_case(GetParam()));
  const std::string wrong = bench.check_cumulative();
  EXPECT_TRUE(wrong.empty()) << "cumulative_histogram of the CPU's histogram of "
                             << describe(GetParam(), bench) << ":\n"
                             << wrong;
}

TEST_P(ImageSteps, FirstNonZeroMatchesTheCpu) {
  ImageBench bench(load_case(GetParam()));
  const std::string wrong = bench.check_first_non_zero();
  EXPECT_TRUE(wrong.empty()) << "first_non_zero of the CPU's cdf of " << describe(GetParam(), bench)
                             << ":\n"
                             << wrong;
}

TEST_P(ImageSteps, EqualizeMatchesTheCpu) {
  ImageBench bench(load_case(GetParam()));
  const std::string wrong = bench.check_equalize();
  EXPECT_TRUE(wrong.empty()) << "equalize of the CPU's mapped image, cdf and cdf_min of "
                             << describe(GetParam(), bench) << ":\n"
                             << wrong;
}

TEST_P(ImageSteps, ReduceSumMatchesTheCpu) {
  ImageBench bench(load_case(GetParam()));
  const std::string wrong = bench.check_reduce();
  EXPECT_TRUE(wrong.empty()) << "reduce_sum of the CPU's equalised image of "
                             << describe(GetParam(), bench) << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, ImageSteps, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<harness::DatasetCase>& info) {
                           return info.param.name;
                         });

// ---- Steps 4 and 5, each variant on each image ------------------------------------------

using VariantCase = std::tuple<const char*, harness::DatasetCase>;

std::string variant_case_name(const testing::TestParamInfo<VariantCase>& info) {
  return std::string(std::get<0>(info.param)) + "__" + std::get<1>(info.param).name;
}

template <class Variant>
std::vector<const char*> names(const std::vector<Variant>& table) {
  std::vector<const char*> out;
  for (const Variant& v : table) out.push_back(v.name);
  return out;
}

class Map : public testing::TestWithParam<VariantCase> {};

TEST_P(Map, MatchesTheCpu) {
  const auto& [name, data] = GetParam();
  ImageBench bench(load_case(data));
  const std::string wrong = bench.check_map(find_map_variant(name));
  EXPECT_TRUE(wrong.empty()) << name << " on the compacted pixels of " << describe(data, bench)
                             << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Map,
                         testing::Combine(testing::ValuesIn(names(map_variants())),
                                          testing::ValuesIn(cases())),
                         variant_case_name);

class Histogram : public testing::TestWithParam<VariantCase> {};

TEST_P(Histogram, MatchesTheCpu) {
  const auto& [name, data] = GetParam();
  ImageBench bench(load_case(data));
  const std::string wrong = bench.check_histogram(find_histogram_variant(name));
  EXPECT_TRUE(wrong.empty()) << name << " of the CPU's mapped image of " << describe(data, bench)
                             << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Histogram,
                         testing::Combine(testing::ValuesIn(names(histogram_variants())),
                                          testing::ValuesIn(cases())),
                         variant_case_name);

// ---- Steps 4-8 chained ---------------------------------------------------------------------

struct Versions {
  const char* name;
  const char* map;
  const char* histogram;
};
const Versions kVersions[] = {{"first", "map_branchy", "histogram_global"},
                              {"last", "map_constant", "histogram_shared"}};

using VersionsCase = std::tuple<Versions, harness::DatasetCase>;
class Repair : public testing::TestWithParam<VersionsCase> {};

TEST_P(Repair, MatchesTheCpu) {
  const auto& [versions, data] = GetParam();
  ImageBench bench(load_case(data));
  const std::string wrong = bench.check_repair(find_map_variant(versions.map),
                                               find_histogram_variant(versions.histogram));
  EXPECT_TRUE(wrong.empty()) << "steps 4-8 chained (" << versions.map << ", " << versions.histogram
                             << ", cumulative_histogram, first_non_zero, equalize, reduce_sum) on "
                             << describe(data, bench) << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Repair,
                         testing::Combine(testing::ValuesIn(kVersions), testing::ValuesIn(cases())),
                         [](const testing::TestParamInfo<VersionsCase>& info) {
                           return std::string(std::get<0>(info.param).name) + "__" +
                                  std::get<1>(info.param).name;
                         });

}  // namespace
}  // namespace lab6
