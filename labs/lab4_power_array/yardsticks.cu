#include <algorithm>
#include <numeric>
#include <random>

#include "labs/cuda_check.hpp"
#include "labs/device_buffer.hpp"
#include "labs/sync.hpp"
#include "power_array.cuh"
#include "yardsticks.hpp"

namespace lab4 {
namespace {

__global__ void window_global_kernel(const float* in, float* out, int n, int radius) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = i - radius; j <= i + radius; j++) {
    if (j >= 0 && j < n) sum += in[j];
  }
  out[i] = sum / (2 * radius + 1);
}

__global__ void volatile_kernel(const volatile float* in, float* out, int n, int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float c = 1.0f;
    for (int j = 0; j < k; j++) c *= in[i];
    out[i] = c;
  }
}

constexpr int kChaseSteps = 4096;

// Each launch: one warm-up pass of `warm` loads, then kChaseSteps timed loads.
template <bool kBypassL1>
__global__ void chase_global(const unsigned* next, int warm, unsigned* sink, long long* cycles) {
  unsigned j = 0;
  for (int s = 0; s < warm; s++) j = kBypassL1 ? __ldcg(next + j) : next[j];
  const long long t0 = clock64();
  for (int s = 0; s < kChaseSteps; s++) j = kBypassL1 ? __ldcg(next + j) : next[j];
  const long long t1 = clock64();
  *sink = j;
  *cycles = t1 - t0;
}

__global__ void chase_shared(unsigned* sink, long long* cycles) {
  __shared__ unsigned next[1024];
  for (int i = 0; i < 1024; i++) next[i] = (i * 97 + 31) % 1024;  // one cycle: 97 is odd
  __syncthreads();
  unsigned j = 0;
  const long long t0 = clock64();
  for (int s = 0; s < kChaseSteps; s++) j = next[j];
  const long long t1 = clock64();
  *sink = j;
  *cycles = t1 - t0;
}

// A random cycle through `bytes` of memory, one stop per 128-byte line.
harness::DeviceBuffer<unsigned> random_cycle(std::size_t bytes) {
  const std::size_t words = bytes / sizeof(unsigned), per_line = 32, lines = words / per_line;
  std::vector<unsigned> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin() + 1, order.end(), std::mt19937(4));
  std::vector<unsigned> next(words, 0);
  for (std::size_t l = 0; l < lines; ++l) {
    next[order[l] * per_line] = static_cast<unsigned>(order[(l + 1) % lines] * per_line);
  }
  return harness::DeviceBuffer<unsigned>(next);
}

}  // namespace

void window_global_yardstick(const float* in, float* out, int n, int radius) {
  constexpr int threads = 128;
  window_global_kernel<<<(n + threads - 1) / threads, threads>>>(in, out, n, radius);
  LAB_CHECK_LAUNCH();
}

void power_volatile_reads(const float* in, float* out, int n, int k) {
  constexpr int threads = 128;
  volatile_kernel<<<(n + threads - 1) / threads, threads>>>(in, out, n, k);
  LAB_CHECK_LAUNCH();
}

std::vector<Latency> measure_latencies() {
  harness::DeviceBuffer<unsigned> sink(1);
  harness::DeviceBuffer<long long> cycles(1);
  auto result = [&] {
    harness::synchronize_or_die();
    return static_cast<double>(cycles.download()[0]) / kChaseSteps;
  };
  std::vector<Latency> rows;
  chase_shared<<<1, 1>>>(sink.get(), cycles.get());
  LAB_CHECK_LAUNCH();
  rows.push_back({"shared memory", "1024 words, one thread", result()});
  {
    auto small = random_cycle(16 << 10);  // 128 lines: fits in L1 after one pass
    chase_global<false><<<1, 1>>>(small.get(), 128, sink.get(), cycles.get());
    LAB_CHECK_LAUNCH();
    rows.push_back({"L1 hit", "16 KiB, random lines, warmed", result()});
  }
  {
    auto mid = random_cycle(8 << 20);  // 65536 lines: in L2, not in L1; loads skip L1
    chase_global<true><<<1, 1>>>(mid.get(), 65536, sink.get(), cycles.get());
    LAB_CHECK_LAUNCH();
    rows.push_back({"L2 hit", "8 MiB, random lines, warmed, ld.cg", result()});
  }
  {
    auto big = random_cycle(std::size_t{256} << 20);  // 256 MiB: 5x the largest L2
    chase_global<true><<<1, 1>>>(big.get(), 0, sink.get(), cycles.get());
    LAB_CHECK_LAUNCH();
    rows.push_back(
        {"global memory (DRAM)", "256 MiB, random lines, cold (TLB misses included)", result()});
  }
  return rows;
}

}  // namespace lab4
