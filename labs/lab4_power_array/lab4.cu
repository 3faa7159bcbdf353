// lab4's harness (lab4.hpp): the variants, the CPU references and checks, the harness's
// own kernels and the bench.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "lab4.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/device_buffer.hpp"
#include "labs/fresh.hpp"
#include "labs/named.hpp"
#include "labs/parallel.hpp"
#include "labs/random.hpp"
#include "labs/redraw.cuh"
#include "labs/sync.hpp"
#include "power_array.cuh"

namespace lab4 {

// ---- The variants -----------------------------------------------------------

const std::vector<PowerVariant>& power_variants() {
  // The course launches blocks of 128 threads (BLOCKSIZE), one element per thread.
  static const std::vector<PowerVariant> table = {
      {"global", "a", Storage::Pointer, power_global, nullptr, Grid::Cover, {0, kBlockSize}},
      {"register", "b", Storage::Pointer, power_register, nullptr, Grid::Cover, {0, kBlockSize}},
      {"shared", "c", Storage::Pointer, power_shared, nullptr, Grid::FixedBlock, {0, kBlockSize}},
      {"symbol_global",
       "d",
       Storage::Symbol,
       nullptr,
       power_symbol_global,
       Grid::Cover,
       {0, kBlockSize}},
      {"symbol_register",
       "e",
       Storage::Symbol,
       nullptr,
       power_symbol_register,
       Grid::Cover,
       {0, kBlockSize}},
      {"symbol_shared",
       "f",
       Storage::Symbol,
       nullptr,
       power_symbol_shared,
       Grid::FixedBlock,
       {0, kBlockSize}},
      {"best", "g", Storage::Pointer, power_best, nullptr, Grid::Free, {0, 256}},
  };
  return table;
}

const std::vector<WindowVariant>& window_variants() {
  static const std::vector<WindowVariant> table = {
      {"window_global", "h", window_global, Grid::Cover, {0, kBlockSize}},
      {"window_shared", "i", window_shared, Grid::FixedBlock, {0, kBlockSize}},
  };
  return table;
}

const PowerVariant& find_power_variant(const std::string& name) {
  return harness::find_by_name(power_variants(), name);
}

const WindowVariant& find_window_variant(const std::string& name) {
  return harness::find_by_name(window_variants(), name);
}

bool is_window_variant(const std::string& name) {
  for (const WindowVariant& v : window_variants()) {
    if (name == v.name) return true;
  }
  return false;
}

Launch resolve_launch(Grid grid, long long n, Launch requested) {
  Launch l = requested;
  if (l.threads < 1 || l.threads > 1024) {
    throw std::invalid_argument("threads per block must be 1..1024, not " +
                                std::to_string(l.threads));
  }
  if (grid == Grid::FixedBlock && l.threads != kBlockSize) {
    throw std::invalid_argument("the shared variants use blocks of kBlockSize = " +
                                std::to_string(kBlockSize) + " threads (their __shared__ array " +
                                "is sized at compile time), not " + std::to_string(l.threads));
  }
  if (l.blocks < 0) throw std::invalid_argument("blocks must be at least 0 (0: automatic)");
  if (grid == Grid::Free) return l;
  const long long needed = (n + l.threads - 1) / l.threads;
  if (l.blocks == 0) {
    if (needed > 0x7fffffffLL) throw std::invalid_argument("grid too large: raise threads");
    l.blocks = static_cast<int>(needed);
  } else if (l.blocks < needed) {
    throw std::invalid_argument(
        std::to_string(l.blocks) + " blocks x " + std::to_string(l.threads) + " threads cover " +
        std::to_string(static_cast<long long>(l.blocks) * l.threads) +
        " elements, fewer than n = " + std::to_string(n) + ": use at least " +
        std::to_string(needed) + " blocks, or leave --blocks out");
  }
  return l;
}

void check_fits_symbol(const PowerVariant& v, long long n) {
  if (v.storage == Storage::Symbol && n > kSymbolCapacity) {
    throw std::invalid_argument(std::string(v.name) + " works on the __device__ array dA of " +
                                std::to_string(kSymbolCapacity) + " floats (its size is fixed " +
                                "at compile time); n = " + std::to_string(n) + " does not fit");
  }
}

void check_power_k(long long k) {
  if (k < 0) throw std::invalid_argument("k must be at least 0, not " + std::to_string(k));
}

void check_radius(long long radius) {
  if (radius < 0 || radius > kMaxRadius) {
    throw std::invalid_argument("radius must be 0.." + std::to_string(kMaxRadius) + ", not " +
                                std::to_string(radius));
  }
}

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.blocks << " blocks x " << l.threads << " threads";
}

// ---- The CPU references and the checks --------------------------------------

namespace {

template <class Bad>
std::string describe(std::size_t size, const char* tolerance_text, Bad bad, int shown = 5) {
  if (!harness::any_index(size, [&](std::size_t i) { return bad(i, nullptr); })) return "";
  std::size_t wrong = 0;
  std::ostringstream first;
  first.precision(9);
  for (std::size_t i = 0; i < size; ++i) {
    if (bad(i, wrong < static_cast<std::size_t>(shown) ? &first : nullptr)) ++wrong;
  }
  if (wrong == 0) return "";
  std::ostringstream o;
  o << wrong << " of " << size << " elements off by more than " << tolerance_text
    << "; first:" << first.str();
  return o.str();
}

const char* never_written(double g) { return std::isnan(g) ? " (NaN: never written?)" : ""; }

// The references and verdicts per element, the same for the CPU's checks and the
// device's (after each timed run). NaN and inf never pass.
__host__ __device__ double power_reference(float x, int k) {
  double c = 1.0;
  for (int j = 0; j < k; ++j) c *= x;
  return c;
}

__host__ __device__ bool power_off(double got, double ref, double tolerance) {
  return !(fabs(got - ref) <= tolerance * fabs(ref));
}

__host__ __device__ bool window_off(double got, double mean, double scale, double tolerance) {
  return !(fabs(got - mean) <= tolerance * scale + 1e-12);  // + the reference's own drift
}

}  // namespace

std::vector<double> power_cpu(const std::vector<float>& x, int k) {
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = power_reference(x[i], k);
  return out;
}

double power_tolerance(int k) { return (k + 2) * std::ldexp(1.0, -23); }

std::string describe_power_mismatches(const std::vector<float>& x, const std::vector<double>& ref,
                                      const std::vector<float>& got, int k) {
  if (got.size() != ref.size()) {
    return "size differs: expected " + std::to_string(ref.size()) + ", got " +
           std::to_string(got.size());
  }
  const double tol = power_tolerance(k);
  char text[96];
  std::snprintf(text, sizeof text, "%.3g relative (k = %d)", tol, k);
  return describe(ref.size(), text, [&](std::size_t i, std::ostringstream* o) {
    const double g = got[i];
    const bool bad = power_off(g, ref[i], tol);
    if (bad && o) {
      *o << "\n  element " << i << ": " << x[i] << "^" << k << " expected " << ref[i] << ", got "
         << g << never_written(g);
    }
    return bad;
  });
}

WindowReference window_cpu(const std::vector<float>& x, int radius) {
  const long long n = static_cast<long long>(x.size());
  WindowReference r{std::vector<double>(x.size()), std::vector<double>(x.size())};
  const double m = 2.0 * radius + 1;
  // Running sums in double, summed afresh every 256 elements so that rounding drift
  // stays far below the float tolerance.
  double sum = 0, abs_sum = 0;
  for (long long i = 0; i < n; ++i) {
    if (i % 256 == 0) {
      sum = abs_sum = 0;
      for (long long j = i - radius; j <= i + radius; ++j) {
        if (j >= 0 && j < n) sum += x[j], abs_sum += std::fabs(x[j]);
      }
    }
    r.mean[i] = sum / m;
    r.scale[i] = abs_sum / m;
    const long long in = i + radius + 1, out = i - radius;
    if (in < n) sum += x[in], abs_sum += std::fabs(x[in]);
    if (out >= 0) sum -= x[out], abs_sum -= std::fabs(x[out]);
  }
  return r;
}

double window_tolerance(int radius) { return (2 * radius + 3) * std::ldexp(1.0, -23); }

std::string describe_window_mismatches(const WindowReference& ref, const std::vector<float>& got,
                                       int radius) {
  if (got.size() != ref.mean.size()) {
    return "size differs: expected " + std::to_string(ref.mean.size()) + ", got " +
           std::to_string(got.size());
  }
  const double tol = window_tolerance(radius);
  char text[128];
  std::snprintf(text, sizeof text, "%.3g x the mean |neighbour| (radius %d)", tol, radius);
  return describe(got.size(), text, [&](std::size_t i, std::ostringstream* o) {
    const double g = got[i];
    const bool bad = window_off(g, ref.mean[i], ref.scale[i], tol);
    if (bad && o) {
      *o << "\n  element " << i << ": expected " << ref.mean[i] << ", got " << g
         << never_written(g);
    }
    return bad;
  });
}

std::vector<float> load_values(const std::string& path, long long expected_count) {
  std::vector<float> x = harness::read_binary_file<float>(path, expected_count);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw harness::DatasetError(path + ": value " + std::to_string(i) +
                                  " is not a finite number: not a lab4 dataset");
    }
  }
  return x;
}

// ---- The harness's own kernels ----------------------------------------------

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

constexpr int kFmaChains = 8;     // independent chains per thread in the throughput kernel
constexpr int kFmaSteps = 16384;  // a span long beside the blocks' start-up

__global__ void fma_latency(float a, float b, float* sink, long long* cycles) {
  float x = threadIdx.x;
  const long long t0 = clock64();
  for (int s = 0; s < kChaseSteps; s++) x = fmaf(x, a, b);  // each waits for the last
  const long long t1 = clock64();
  *sink = x;
  *cycles = t1 - t0;
}

// Every warp has kFmaChains independent FMAs to issue at each step: enough for the
// pipelines to stay full. Each block records its SM and its first and last cycle on
// that SM's clock (clocks of different SMs are not comparable).
__global__ void fma_throughput(float a, float b, float* sink, long long* span, unsigned* sm) {
  float x[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; c++) x[c] = threadIdx.x + c;
  __syncthreads();
  const long long t0 = clock64();
#pragma unroll 4
  for (int s = 0; s < kFmaSteps; s++) {
#pragma unroll
    for (int c = 0; c < kFmaChains; c++) x[c] = fmaf(x[c], a, b);
  }
  __syncthreads();
  const long long t1 = clock64();
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kFmaChains; c++) sum += x[c];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  if (threadIdx.x == 0) {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    span[2 * blockIdx.x] = t0;
    span[2 * blockIdx.x + 1] = t1;
    sm[blockIdx.x] = id;
  }
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

FmaRates measure_fma() {
  FmaRates rates{};
  // a and b keep x bounded and are not known at compile time.
  const float a = 0.999f, b = 0.001f;
  {
    harness::DeviceBuffer<float> sink(1);
    harness::DeviceBuffer<long long> cycles(1);
    fma_latency<<<1, 1>>>(a, b, sink.get(), cycles.get());
    LAB_CHECK_LAUNCH();
    harness::synchronize_or_die();
    rates.latency_cycles = static_cast<double>(cycles.download()[0]) / kChaseSteps;
  }
  constexpr int threads = 256;
  int device = 0, sms = 0, per_sm = 0;
  LAB_CUDA_CHECK(cudaGetDevice(&device));
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LAB_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fma_throughput, threads, 0));
  const int blocks = sms * per_sm;  // one wave: every block resident from the start
  harness::DeviceBuffer<float> sink(static_cast<std::size_t>(blocks) * threads);
  harness::DeviceBuffer<long long> spans(2 * static_cast<std::size_t>(blocks));
  harness::DeviceBuffer<unsigned> sm_of(blocks);
  fma_throughput<<<blocks, threads>>>(a, b, sink.get(), spans.get(), sm_of.get());
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  const std::vector<long long> t = spans.download();
  const std::vector<unsigned> sm = sm_of.download();
  // Per SM: the FMAs of its blocks over the cycles from its first start to its last end.
  std::map<unsigned, std::pair<long long, long long>> window;
  std::map<unsigned, int> count;
  for (int b = 0; b < blocks; ++b) {
    auto [it, fresh] = window.emplace(sm[b], std::make_pair(t[2 * b], t[2 * b + 1]));
    if (!fresh) {
      it->second.first = std::min(it->second.first, t[2 * b]);
      it->second.second = std::max(it->second.second, t[2 * b + 1]);
    }
    ++count[sm[b]];
  }
  std::vector<double> rate;
  for (const auto& [id, w] : window) {
    rate.push_back(1.0 * count[id] * threads * kFmaChains * kFmaSteps / (w.second - w.first));
  }
  std::nth_element(rate.begin(), rate.begin() + rate.size() / 2, rate.end());
  rates.per_cycle_per_sm = rate[rate.size() / 2];  // the median SM
  return rates;
}

// ---- Occupancy (Part 3) -------------------------------------------------------

const std::vector<OccupancyKernel>& occupancy_kernels() {
  static const std::vector<OccupancyKernel> table = [] {
    const std::pair<const char*, KernelId> ids[] = {
        {"global", KernelId::kGlobal},
        {"register", KernelId::kRegister},
        {"shared", KernelId::kShared},
        {"symbol_global", KernelId::kSymbolGlobal},
        {"symbol_register", KernelId::kSymbolRegister},
        {"symbol_shared", KernelId::kSymbolShared},
        {"best", KernelId::kBest},
        {"window_global", KernelId::kWindowGlobal},
        {"window_shared", KernelId::kWindowShared},
    };
    std::vector<OccupancyKernel> rows;
    for (const auto& [name, id] : ids) {
      if (is_window_variant(name)) {
        const WindowVariant& v = find_window_variant(name);
        rows.push_back({v.name, id, v.grid, v.defaults.threads});
      } else {
        const PowerVariant& v = find_power_variant(name);
        rows.push_back({v.name, id, v.grid, v.defaults.threads});
      }
    }
    return rows;
  }();
  return table;
}

OccupancyRow occupancy_of(const void* kernel, int threads, std::size_t dynamic_shared_bytes) {
  int device = 0;
  cudaDeviceProp p{};
  LAB_CUDA_CHECK(cudaGetDevice(&device));
  LAB_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  OccupancyRow row{};
  LAB_CUDA_CHECK(cudaFuncGetAttributes(&row.attributes, kernel));
  row.limits = occupancy_limits(row.attributes, p, threads, dynamic_shared_bytes);
  // Only now: occupancy_limits gets a reference into this row, so the runtime's
  // answer must not sit beside it while the student's code runs.
  LAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&row.runtime_blocks, kernel, threads,
                                                               dynamic_shared_bytes));
  row.blocks = std::min({row.limits.by_block_slots, row.limits.by_warps, row.limits.by_registers,
                         row.limits.by_shared});
  row.warps_per_block = (threads + p.warpSize - 1) / p.warpSize;
  row.max_warps_per_sm = p.maxThreadsPerMultiProcessor / p.warpSize;
  return row;
}

OccupancyRow occupancy_of(KernelId id, int threads, std::size_t dynamic_shared_bytes) {
  const void* kernel = kernel_address(id);
  if (!kernel) throw std::invalid_argument("kernel_address returned no kernel");
  return occupancy_of(kernel, threads, dynamic_shared_bytes);
}

// ---- The bench --------------------------------------------------------------

PowerBench::PowerBench(std::vector<float> x)
    : x_(std::move(x)), d_in_(x_), d_base_(x_), d_out_(x_.size()) {
  d_base_.seal(x_);  // every redraw's source: checked against the host's record
}

harness::TimingOptions PowerBench::timing_options(harness::TimingOptions base) const {
  int device = 0, l2 = 0;
  LAB_CUDA_CHECK(cudaGetDevice(&device));
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  base.flush_l2 = bytes_moved() <= 2.0 * l2;
  return base;
}

namespace {

std::vector<float> download(const float* device, std::size_t n) {
  std::vector<float> host(n);
  LAB_CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

// dA's address, from the lab's own code in the student's file (symbol_array).
float* symbol_address() {
  float* const dA = symbol_array();
  if (!dA) throw std::runtime_error("symbol_array() gave no device address for dA");
  return dA;
}

// The copies' values: whole numbers below 2^24, exact floats compared bit for bit,
// drawn on the host or on the device alike.
struct AnyFloat {
  __host__ __device__ float operator()(std::uint64_t random) const {
    return static_cast<float>(random >> 40);
  }
};

}  // namespace

std::string PowerBench::finish_power(int k, const float* result) {
  harness::synchronize_or_die();
  last_ = download(result, x_.size());
  return describe_power_mismatches(x_, expected_power(k), last_, k);
}

std::string PowerBench::finish_window(int radius) {
  harness::synchronize_or_die();
  d_out_.download(last_);
  return describe_window_mismatches(expected_window(radius), last_, radius);
}

const std::vector<double>& PowerBench::expected_power(int k) {
  auto found = power_by_k_.find(k);
  if (found == power_by_k_.end()) found = power_by_k_.emplace(k, power_cpu(x_, k)).first;
  return found->second;
}

const WindowReference& PowerBench::expected_window(int radius) {
  auto found = window_by_radius_.find(radius);
  if (found == window_by_radius_.end()) {
    found = window_by_radius_.emplace(radius, window_cpu(x_, radius)).first;
  }
  return found->second;
}

std::string PowerBench::check(const PowerVariant& v, int k, Launch launch) {
  check_fits_symbol(v, n());
  if (v.storage == Storage::Pointer) {
    d_out_.poison();
    v.pointer(d_in_.get(), d_out_.get(), size(), k, launch);
    LAB_CHECK_LAUNCH();
    return finish_power(k, d_out_.get());
  }
  // The harness's own copies in and out of dA: a copy of the student's that computed
  // the powers on the host would get them right with kernels that do nothing.
  float* const dA = symbol_address();
  LAB_CUDA_CHECK(cudaMemcpy(dA, x_.data(), x_.size() * sizeof(float), cudaMemcpyHostToDevice));
  v.symbol(size(), k, launch);
  LAB_CHECK_LAUNCH();
  const std::string wrong = finish_power(k, dA);
  if (!wrong.empty()) return "dA after the kernel, read back by the harness itself: " + wrong;
  return check_symbol_copies(dA);
}

// symbol_upload and symbol_download must copy, and only copy: each gets values drawn
// now, unrelated to any kernel's, and the harness reads or writes dA itself to see
// what it did. What each is compared with is drawn again after it returns: the host
// array a copy is handed holds no expected value then, nor does anything beside it.
std::string PowerBench::check_symbol_copies(float* dA) {
  const std::uint64_t seed = harness::fresh_seed();
  const auto values = [&](std::uint64_t s) {
    return harness::random_values<float>(x_.size(), s, AnyFloat{});
  };
  {
    const std::vector<float> up = values(seed);
    LAB_CUDA_CHECK(symbol_upload(up.data(), size()));
  }
  LAB_CUDA_CHECK(cudaGetLastError());
  std::string wrong = harness::describe_mismatches(values(seed), download(dA, x_.size()));
  if (!wrong.empty()) {
    return "symbol_upload did not copy its values into dA, read back by the harness: " + wrong;
  }
  harness::drawn(dA, x_.size(), seed + 1, AnyFloat{});  // on the device: no host copy
  std::vector<float> got(x_.size(), std::numeric_limits<float>::quiet_NaN());
  LAB_CUDA_CHECK(symbol_download(got.data(), size()));
  LAB_CUDA_CHECK(cudaGetLastError());
  wrong = harness::describe_mismatches(values(seed + 1), got);
  if (!wrong.empty()) {
    return "symbol_download did not give back what the harness wrote into dA: " + wrong;
  }
  return "";
}

std::string PowerBench::check(const WindowVariant& v, int radius, Launch launch) {
  d_out_.poison();
  v.run(d_in_.get(), d_out_.get(), size(), radius, launch);
  LAB_CHECK_LAUNCH();
  return finish_window(radius);
}

std::string PowerBench::check_window_yardstick(int radius) {
  d_out_.poison();
  window_global_yardstick(d_in_.get(), d_out_.get(), size(), radius);
  return finish_window(radius);
}

std::string PowerBench::check_volatile(int k) {
  d_out_.poison();
  power_volatile_reads(d_in_.get(), d_out_.get(), size(), k);
  return finish_power(k, d_out_.get());
}

namespace {

// Element i of `got` is not x[i]^k within the tolerance.
struct PowerOff {
  const float* x;
  const float* got;
  int k;
  double tolerance;
  __device__ bool operator()(std::size_t i) const {
    return power_off(got[i], power_reference(x[i], k), tolerance);
  }
};

// Element i of `got` is not the mean of x's window around i within the tolerance.
struct WindowOff {
  const float* x;
  const float* got;
  long long n;
  int radius;
  double tolerance;
  __device__ bool operator()(std::size_t at) const {
    const long long i = static_cast<long long>(at);
    double sum = 0, abs_sum = 0;
    for (long long j = i - radius; j <= i + radius; ++j) {
      if (j >= 0 && j < n) sum += x[j], abs_sum += fabs(x[j]);
    }
    const double m = 2.0 * radius + 1;
    return window_off(got[i], sum / m, abs_sum / m, tolerance);
  }
};

}  // namespace

// Before each run the launcher's input, `fresh` or dA (`in_place`: a symbol
// variant's output too), gets values picked anew from the bench's (d_base_, sealed)
// by the run's seed. After it the same values are placed again into `fresh` (the launcher may
// have written over them) and `compare` judges the output against them.
harness::TimingStats PowerBench::time_on_fresh(
    const std::function<void(const float* in)>& launch, float* in_place,
    const harness::TimingOptions& options,
    const std::function<std::string(const float* x)>& compare) {
  harness::DeviceBuffer<float> fresh(x_.size());
  float* const input = in_place ? in_place : fresh.get();
  std::uint64_t seed = 0;
  const auto draw = [&](float* into) {
    harness::resampled(d_base_.get(), d_base_.size(), into, x_.size(), seed);
  };
  return harness::time_fresh(
      [&] { launch(input); }, harness::doing_at_least(options, bytes_moved()),
      {in_place ? std::vector<harness::Output>{} : std::vector{harness::output_of(d_out_)},
       [&] {
         harness::synchronize_or_die();
         draw(fresh.get());
         return compare(fresh.get());
       },
       [&](std::uint64_t drawn_from) {
         seed = drawn_from;
         draw(input);
       },
       {},
       {},
       {{input, x_.size() * sizeof(float)}}});
}

harness::TimingStats PowerBench::time(const PowerVariant& v, int k, Launch launch,
                                      const harness::TimingOptions& options) {
  check_fits_symbol(v, n());
  const bool symbol = v.storage == Storage::Symbol;
  float* const result = symbol ? symbol_address() : d_out_.get();
  // On the device; for a run it finds wrong, the CPU's account (which decides).
  const auto compare = [&](const float* x) -> std::string {
    if (harness::count_where(x_.size(), PowerOff{x, result, k, power_tolerance(k)}) == 0) return "";
    const std::vector<float> xs = download(x, x_.size());
    return describe_power_mismatches(xs, power_cpu(xs, k), download(result, x_.size()), k);
  };
  if (symbol) {
    return time_on_fresh([&](const float*) { v.symbol(size(), k, launch); }, result, options,
                         compare);
  }
  return time_on_fresh([&](const float* in) { v.pointer(in, d_out_.get(), size(), k, launch); },
                       nullptr, options, compare);
}

harness::TimingStats PowerBench::time(const WindowVariant& v, int radius, Launch launch,
                                      const harness::TimingOptions& options) {
  const auto compare = [&](const float* x) -> std::string {  // as for the powers
    const WindowOff off{x, d_out_.get(), n(), radius, window_tolerance(radius)};
    if (harness::count_where(x_.size(), off) == 0) return "";
    return describe_window_mismatches(window_cpu(download(x, x_.size()), radius),
                                      download(d_out_.get(), x_.size()), radius);
  };
  return time_on_fresh([&](const float* in) { v.run(in, d_out_.get(), size(), radius, launch); },
                       nullptr, options, compare);
}

harness::TimingStats PowerBench::time_window_yardstick(int radius,
                                                       const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] { window_global_yardstick(d_in_.get(), d_out_.get(), size(), radius); },
      harness::doing_at_least(options, bytes_moved()));
}

harness::TimingStats PowerBench::time_volatile(int k, const harness::TimingOptions& options) {
  return harness::time_gpu([&] { power_volatile_reads(d_in_.get(), d_out_.get(), size(), k); },
                           harness::doing_at_least(options, bytes_moved()));
}

}  // namespace lab4
