// Every lab4 variant, on every public case, for k = 0, 1, 2, 4, 64 (windows: radius
// 0, 1, 16, 64), with the course's launch configuration; and with an odd one (96
// threads, three blocks more than needed) that only bounds checks survive. Results
// are compared element by element with a float64 CPU reference.
#include <gtest/gtest.h>

#include <sstream>

#include "lab4.hpp"
#include "lab4_cases.hpp"
#include "labs/dataset.hpp"

namespace lab4 {
namespace {

PowerBench bench_for(const harness::DatasetCase& data) {
  return PowerBench(load_values(harness::dataset_path(LAB_DATA_DIR, data.name), data.n));
}

// 96 threads (a multiple of no shared size) where the variant allows it, and a
// grid three blocks larger than needed (power_best picks its own grid).
Launch odd_launch(Grid grid, long long n) {
  if (grid == Grid::Free) return Launch{0, 96};
  Launch l = resolve_launch(grid, n, Launch{0, grid == Grid::FixedBlock ? kBlockSize : 96});
  l.blocks += 3;
  return l;
}

std::vector<const char*> power_names() {
  std::vector<const char*> names;
  for (const PowerVariant& v : power_variants()) names.push_back(v.name);
  return names;
}

std::vector<const char*> window_names() {
  std::vector<const char*> names;
  for (const WindowVariant& v : window_variants()) names.push_back(v.name);
  return names;
}

using PowerParam = std::tuple<const char*, harness::DatasetCase, int>;
class Power : public testing::TestWithParam<PowerParam> {};

TEST_P(Power, MatchesTheFloat64Reference) {
  const auto& [name, data, k] = GetParam();
  const PowerVariant& v = find_power_variant(name);
  PowerBench bench = bench_for(data);
  const Launch launch = resolve_launch(v.grid, bench.n(), v.defaults);
  const std::string wrong = bench.check(v, k, launch);
  EXPECT_TRUE(wrong.empty()) << "variant " << v.name << " (" << v.letter << ") on " << data.name
                             << " (n = " << data.n << "), k = " << k << ", launched with " << launch
                             << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Power,
                         testing::Combine(testing::ValuesIn(power_names()),
                                          testing::ValuesIn(k_cases),
                                          testing::Values(0, 1, 2, 4, 64)),
                         [](const testing::TestParamInfo<PowerParam>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param) << "__" << std::get<1>(info.param).name
                                << "__k" << std::get<2>(info.param);
                           return name.str();
                         });

using WindowParam = std::tuple<const char*, harness::DatasetCase, int>;
class Window : public testing::TestWithParam<WindowParam> {};

TEST_P(Window, MatchesTheFloat64Reference) {
  const auto& [name, data, radius] = GetParam();
  const WindowVariant& v = find_window_variant(name);
  PowerBench bench = bench_for(data);
  const Launch launch = resolve_launch(v.grid, bench.n(), v.defaults);
  const std::string wrong = bench.check(v, radius, launch);
  EXPECT_TRUE(wrong.empty()) << "variant " << v.name << " (" << v.letter << ") on " << data.name
                             << " (n = " << data.n << "), radius " << radius << ", launched with "
                             << launch << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Window,
                         testing::Combine(testing::ValuesIn(window_names()),
                                          testing::ValuesIn(k_cases),
                                          testing::Values(0, 1, 16, kMaxRadius)),
                         [](const testing::TestParamInfo<WindowParam>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param) << "__" << std::get<1>(info.param).name
                                << "__radius" << std::get<2>(info.param);
                           return name.str();
                         });

using OddParam = std::tuple<const char*, harness::DatasetCase>;
class OddLaunch : public testing::TestWithParam<OddParam> {};

TEST_P(OddLaunch, ChecksBoundsWithSpareThreads) {
  const auto& [name, data] = GetParam();
  PowerBench bench = bench_for(data);
  std::string wrong;
  Launch launch{};
  std::string what;
  if (is_window_variant(name)) {
    const WindowVariant& v = find_window_variant(name);
    launch = odd_launch(v.grid, bench.n());
    wrong = bench.check(v, 5, launch);
    what = "radius 5";
  } else {
    const PowerVariant& v = find_power_variant(name);
    launch = odd_launch(v.grid, bench.n());
    wrong = bench.check(v, 3, launch);
    what = "k = 3";
  }
  EXPECT_TRUE(wrong.empty()) << "variant " << name << " on " << data.name << " (n = " << data.n
                             << "), " << what << ", launched with " << launch << ":\n"
                             << wrong;
}

std::vector<const char*> all_names() {
  std::vector<const char*> names = power_names();
  for (const char* w : window_names()) names.push_back(w);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Correctness, OddLaunch,
                         testing::Combine(testing::ValuesIn(all_names()),
                                          testing::ValuesIn(k_cases)),
                         [](const testing::TestParamInfo<OddParam>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param) << "__" << std::get<1>(info.param).name
                                << "__odd_launch";
                           return name.str();
                         });

}  // namespace
}  // namespace lab4
