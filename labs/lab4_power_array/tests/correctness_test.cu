// Every lab4 variant, on every public case, for k = 0, 1, 2, 4, 64 (windows: radius
// 0, 1, 16, 64), with the course's launch configuration; and with an odd one (96
// threads, three blocks more than needed) that only bounds checks survive. Results
// are compared element by element with a float64 CPU reference. Part 3: the
// student's occupancy_limits against cudaOccupancyMaxActiveBlocksPerMultiprocessor,
// on every kernel and on two of the test's own, over block sizes and dynamic
// shared memory sizes.
#include <gtest/gtest.h>

#include <sstream>

#include "lab4.hpp"
#include "lab4_cases.hpp"
#include "labs/cuda_check.hpp"
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

// ---- Part 3: occupancy ------------------------------------------------------

// Kernels the student has not seen, so that occupancy_limits must work from the
// attributes: one whose 48 live accumulators make registers the binding limit, one
// with 20000 bytes of static shared memory.
__global__ void register_hungry_kernel(const float* in, float* out, int n) {
  constexpr int kLive = 48;
  float acc[kLive];
#pragma unroll
  for (int a = 0; a < kLive; a++) acc[a] = in[(threadIdx.x + a) % n];
  for (int s = 0; s < n; s++) {
#pragma unroll
    for (int a = 0; a < kLive; a++) acc[a] = fmaf(acc[a], in[s], acc[(a + 1) % kLive]);
  }
  float sum = 0.0f;
#pragma unroll
  for (int a = 0; a < kLive; a++) sum += acc[a];
  out[threadIdx.x] = sum;
}

__global__ void shared_heavy_kernel(const float* in, float* out, int n) {
  __shared__ float tile[5000];
  for (int t = threadIdx.x; t < 5000; t += blockDim.x) tile[t] = in[t % n];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x * 7) % 5000];
}

// Every block size and dynamic shared size the kernel can launch with, among these;
// returns the launches where the student's count differs from the runtime's.
std::string occupancy_mismatches(const void* kernel) {
  cudaFuncAttributes attributes{};
  LAB_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  std::ostringstream first;
  int wrong = 0, launches = 0;
  for (int threads : {1, 32, 96, 100, 128, 256, 384, 512, 640, 768, 1000, 1024}) {
    if (threads > attributes.maxThreadsPerBlock) continue;
    for (std::size_t dynamic : {0, 1000, 8192, 30000, 48 * 1024}) {
      ++launches;
      const OccupancyRow r = occupancy_of(kernel, threads, dynamic);
      if (r.blocks == r.runtime_blocks) continue;
      if (wrong++ < 5) {
        first << "\n  " << threads << " threads, " << dynamic << " B dynamic shared ("
              << attributes.numRegs << " registers, " << attributes.sharedSizeBytes
              << " B static): runtime " << r.runtime_blocks << " blocks per SM, yours " << r.blocks
              << " (slots " << r.limits.by_block_slots << ", warps " << r.limits.by_warps
              << ", registers " << r.limits.by_registers << ", shared " << r.limits.by_shared
              << ")";
      }
    }
  }
  if (wrong == 0) return "";
  return std::to_string(wrong) + " of " + std::to_string(launches) +
         " launches differ; first:" + first.str();
}

class Occupancy : public testing::TestWithParam<const char*> {};

TEST_P(Occupancy, MatchesTheRuntime) {
  const std::string name = GetParam();
  const void* kernel = nullptr;
  if (name == "register_hungry") {
    kernel = reinterpret_cast<const void*>(register_hungry_kernel);
  } else if (name == "shared_heavy") {
    kernel = reinterpret_cast<const void*>(shared_heavy_kernel);
  } else {
    for (const OccupancyKernel& k : occupancy_kernels()) {
      if (name == k.name) kernel = kernel_address(k.id);
    }
  }
  ASSERT_NE(kernel, nullptr) << "kernel_address gave no kernel for " << name;
  const std::string wrong = occupancy_mismatches(kernel);
  EXPECT_TRUE(wrong.empty()) << "occupancy_limits for " << name
                             << " against cudaOccupancyMaxActiveBlocksPerMultiprocessor: " << wrong;
}

std::vector<const char*> occupancy_names() {
  std::vector<const char*> names;
  for (const OccupancyKernel& k : occupancy_kernels()) names.push_back(k.name);
  names.push_back("register_hungry");
  names.push_back("shared_heavy");
  return names;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Occupancy, testing::ValuesIn(occupancy_names()),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param) + "__occupancy";
                         });

}  // namespace
}  // namespace lab4
