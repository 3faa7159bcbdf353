// Every lab3 variant, on every public case, with the course's block of 512 and with
// the smallest (64) and largest (1024) blocks, must give the exact sum: every
// block's partial sum for the per-block variants, the total for shuffle. The
// nested variants with a child grid per block take kMaxNestedBlocks blocks at
// most: block 64 on the 2^24 cases is not theirs.
#include <gtest/gtest.h>

#include <sstream>

#include "lab3.hpp"
#include "lab3_cases.hpp"
#include "labs/dataset.hpp"

namespace lab3 {
namespace {

enum class Config { Course, Small, Large };

// shuffle, which picks its own grid, gets a fixed grid of 7 blocks with the small
// block: a grid-stride loop must cover any n with any grid.
Launch launch_for(const Variant& v, Config c) {
  switch (c) {
    case Config::Course:
      return Launch{0, v.threads};
    case Config::Small:
      return Launch{v.per_block() ? 0 : 7, 64};
    case Config::Large:
      return Launch{0, 1024};
  }
  return Launch{0, v.threads};
}

const char* config_name(Config c) {
  return c == Config::Course ? "block512" : c == Config::Small ? "block64" : "block1024";
}

using Param = std::tuple<const char*, harness::DatasetCase, Config>;

class Reduction : public testing::TestWithParam<Param> {};

TEST_P(Reduction, GivesTheExactSum) {
  const auto& [name, data, config] = GetParam();
  const Variant& v = find_variant(name);
  ReductionBench bench(load_values(harness::dataset_path(LAB_DATA_DIR, data.name), data.n));
  const Launch launch = resolve_launch(v, bench.n(), launch_for(v, config));
  const std::string wrong = bench.check(v, launch);
  EXPECT_TRUE(wrong.empty()) << "variant " << v.name << " (" << v.course_name << ") on "
                             << data.name << " (n = " << data.n << "), launched with " << launch
                             << ":\n"
                             << wrong;
}

std::vector<Param> params() {
  std::vector<Param> all;
  for (const Variant& v : variants()) {
    for (const harness::DatasetCase& data : k_cases) {
      for (Config c : {Config::Course, Config::Small, Config::Large}) {
        const long long chunk = launch_for(v, c).threads;
        if (v.child_per_block() && (data.n + chunk - 1) / chunk > kMaxNestedBlocks) continue;
        all.emplace_back(v.name, data, c);
      }
    }
  }
  return all;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Reduction, testing::ValuesIn(params()),
                         [](const testing::TestParamInfo<Param>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param) << "__" << std::get<1>(info.param).name
                                << "__" << config_name(std::get<2>(info.param));
                           return name.str();
                         });

}  // namespace
}  // namespace lab3
