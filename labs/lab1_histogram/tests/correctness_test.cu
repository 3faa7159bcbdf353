// Every lab1 variant, on every public case, with the course's launch configuration
// and with an odd one (block and slice sizes that divide nothing), must give the
// exact CPU histogram.
#include <gtest/gtest.h>

#include <sstream>

#include "lab1.hpp"
#include "lab1_cases.hpp"
#include "labs/dataset.hpp"

namespace lab1 {
namespace {

enum class Config { Course, Odd };

// Odd launches: 96 threads and slice 7 (per-thread variants), 160 threads owning
// bins unevenly and chunks of 3000 (per-bin variants).
Launch launch_for(const Variant& v, Config c) {
  if (c == Config::Course) return v.defaults;
  switch (v.work) {
    case Work::SlicePerThread:
      return Launch{0, 96, 7};
    case Work::ChunkPerBlock:
      return Launch{0, 160, 3000};
    case Work::Free:
      return Launch{0, 96, 0};
  }
  return v.defaults;
}

using Param = std::tuple<const char*, harness::DatasetCase, Config>;

class Histogram : public testing::TestWithParam<Param> {};

TEST_P(Histogram, MatchesTheCpuHistogramExactly) {
  const auto& [name, data, config] = GetParam();
  const Variant& v = find_variant(name);
  HistogramBench bench(load_samples(harness::dataset_path(LAB_DATA_DIR, data.name), data.n));
  const Launch launch = resolve_launch(v, bench.n(), launch_for(v, config));
  const std::string wrong = bench.check(v.run, launch);
  EXPECT_TRUE(wrong.empty()) << "variant " << v.name << " (" << v.letter << ") on " << data.name
                             << " (n = " << data.n << ", " << data.distribution
                             << "), launched with " << launch << ":\n"
                             << wrong;
}

std::vector<const char*> variant_names() {
  std::vector<const char*> names;
  for (const Variant& v : variants()) names.push_back(v.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Histogram,
                         testing::Combine(testing::ValuesIn(variant_names()),
                                          testing::ValuesIn(k_cases),
                                          testing::Values(Config::Course, Config::Odd)),
                         [](const testing::TestParamInfo<Param>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param) << "__" << std::get<1>(info.param).name
                                << "__"
                                << (std::get<2>(info.param) == Config::Course ? "seed_launch"
                                                                              : "odd_launch");
                           return name.str();
                         });

}  // namespace
}  // namespace lab1
