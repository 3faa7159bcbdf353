// Every lab1 variant, on every public case, with the course's launch configuration
// and with an odd one (block and slice sizes that divide nothing), must give the
// exact CPU histogram; so must the colour variants on every public image; the atomic
// operations must give exactly the CPU's results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "lab1.hpp"
#include "lab1_cases.hpp"
#include "labs/dataset.hpp"
#include "labs/fresh.hpp"
#include "labs/random.hpp"

namespace lab1 {
namespace {

enum class Config { Course, Odd };

// Odd launches: 96 threads and slice 7 (per-thread variants), 160 threads owning
// bins unevenly and chunks of 700 (per-bin variants: 777 samples make a full chunk and
// a tail). Every thread of a per-bin variant scans its block's whole chunk, so the
// chunk, not n, sets what racecheck checks on the small cases.
Launch launch_for(const Variant& v, Config c) {
  if (c == Config::Course) return v.defaults;
  switch (v.work) {
    case Work::SlicePerThread:
      return Launch{0, 96, 7};
    case Work::ChunkPerBlock:
      return Launch{0, 160, 700};
    case Work::Free:
      return Launch{0, 96, 0};
  }
  return v.defaults;
}

// A suite whose cases share one bench per dataset for the whole program: reading and
// counting 2^25 samples costs about 0.3 s of CPU, a check milliseconds, and check()
// restores the input. Cleared when the suite ends, while the CUDA runtime still runs.
template <class Bench, class P>
class SharedBenches : public testing::TestWithParam<P> {
 protected:
  template <class Load>
  static Bench& bench_for(const harness::DatasetCase& data, Load load) {
    std::unique_ptr<Bench>& bench = benches()[data.name];
    if (!bench) {
      bench = std::make_unique<Bench>(load(harness::dataset_path(LAB_DATA_DIR, data.name), data.n));
    }
    return *bench;
  }
  static void TearDownTestSuite() { benches().clear(); }

 private:
  static std::map<std::string, std::unique_ptr<Bench>>& benches() {
    static std::map<std::string, std::unique_ptr<Bench>> benches;
    return benches;
  }
};

using Param = std::tuple<const char*, harness::DatasetCase, Config>;

class Histogram : public SharedBenches<HistogramBench, Param> {};

TEST_P(Histogram, MatchesTheCpuHistogramExactly) {
  const auto& [name, data, config] = GetParam();
  const Variant& v = find_variant(name);
  HistogramBench& bench = bench_for(data, load_samples);
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

// The manifest's cases of samples, or its images (the colour part's).
std::vector<harness::DatasetCase> cases(bool images) {
  std::vector<harness::DatasetCase> chosen;
  for (const harness::DatasetCase& c : k_cases) {
    if ((std::string(c.distribution) == kImageDistribution) == images) chosen.push_back(c);
  }
  return chosen;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Histogram,
                         testing::Combine(testing::ValuesIn(variant_names()),
                                          testing::ValuesIn(cases(false)),
                                          testing::Values(Config::Course, Config::Odd)),
                         [](const testing::TestParamInfo<Param>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param) << "__" << std::get<1>(info.param).name
                                << "__"
                                << (std::get<2>(info.param) == Config::Course ? "seed_launch"
                                                                              : "odd_launch");
                           return name.str();
                         });

// ---- The colour images: rgb (l) and hue (m) on every public image, at the lab's grid
// and at an odd one (7 blocks of 96 threads: fewer threads than counters, a grid-stride
// loop over the larger images) ----

using ColourParam = std::tuple<const char*, harness::DatasetCase, Config>;

class Colour : public SharedBenches<ColourBench, ColourParam> {};

TEST_P(Colour, MatchesTheCpuHistogramExactly) {
  const auto& [name, image, config] = GetParam();
  const ColourVariant& v = find_colour_variant(name);
  ColourBench& bench = bench_for(image, load_image);
  const Launch launch = config == Config::Course ? kColourLaunch : kColourOddLaunch;
  const std::string wrong = bench.check(v, launch);
  EXPECT_TRUE(wrong.empty()) << "variant " << v.name << " (" << v.letter << ") on " << image.name
                             << " (" << image.n << " pixels), launched with " << launch.blocks
                             << " blocks x " << launch.threads << " threads"
                             << (v.planes > 1 ? " (bin c * kColourBins + v: c = 0 red, 1 green, "
                                                "2 blue)"
                                              : " (bin kHueGrey: the greys)")
                             << ":\n"
                             << wrong;
}

std::vector<const char*> colour_names() {
  std::vector<const char*> names;
  for (const ColourVariant& v : colour_variants()) names.push_back(v.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Colour,
                         testing::Combine(testing::ValuesIn(colour_names()),
                                          testing::ValuesIn(cases(true)),
                                          testing::Values(Config::Course, Config::Odd)),
                         [](const testing::TestParamInfo<ColourParam>& info) {
                           std::ostringstream name;
                           name << std::get<0>(info.param) << "__" << std::get<1>(info.param).name
                                << "__"
                                << (std::get<2>(info.param) == Config::Course ? "default_launch"
                                                                              : "odd_launch");
                           return name.str();
                         });

// ---- The atomic operations: n = 1, a prime, a size no block divides, 2^16 + 1 ----
// Fresh initial values and inputs each run, so that only computing them can pass.

struct AtomicCase {
  const char* name;
  int n;
  int threads;
};

constexpr AtomicCase kAtomicCases[] = {
    {"n1", 1, 256}, {"prime_997", 997, 128}, {"n1000_by_96", 1000, 96}, {"n65537", 65537, 256}};

class Atomics : public testing::TestWithParam<AtomicCase> {};

std::string atomic_case_name(const testing::TestParamInfo<AtomicCase>& info) {
  return info.param.name;
}

TEST_P(Atomics, CatalogueMatchesTheCpuExactly) {
  const AtomicCase c = GetParam();
  const std::uint64_t seed = harness::fresh_seed();
  const std::string wrong = check_atomic_catalogue(c.n, c.threads, seed);
  EXPECT_TRUE(wrong.empty()) << "atomic_catalogue (i), n = " << c.n << ", " << c.threads
                             << " threads per block, seed " << seed << ":\n"
                             << wrong;
}

TEST_P(Atomics, CheckThresholdSetsTheFlagIffAValueIsAbove) {
  const AtomicCase c = GetParam();
  std::vector<int> values = harness::random_values<int>(
      c.n, harness::fresh_seed(), [](std::uint64_t x) { return static_cast<int>(x % 1000); });
  const int top = *std::max_element(values.begin(), values.end());
  std::string wrong = check_threshold_flag(values, top, c.threads);  // none above
  wrong += check_threshold_flag(values, -1, c.threads);              // every value above
  values.back() = 1000;                                              // only the last one
  wrong += check_threshold_flag(values, 999, c.threads);
  EXPECT_TRUE(wrong.empty()) << "check_threshold (j), n = " << c.n << ", " << c.threads
                             << " threads per block:\n"
                             << wrong;
}

TEST_P(Atomics, CasBuiltMultiplyMatchesTheCpuExactly) {
  const AtomicCase c = GetParam();
  const std::uint64_t seed = harness::fresh_seed();
  const std::string wrong = check_atomic_multiply(c.n, c.threads, seed);
  EXPECT_TRUE(wrong.empty()) << "atomic_multiply (k), n = " << c.n << ", " << c.threads
                             << " threads per block, seed " << seed << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Atomics, testing::ValuesIn(kAtomicCases), atomic_case_name);

}  // namespace
}  // namespace lab1
