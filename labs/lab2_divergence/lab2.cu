// lab2's harness (lab2.hpp): the kernels' table, the CPU reference, the harness's own
// kernels and the benches.
#include <stdexcept>

#include "lab2.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/named.hpp"
#include "labs/parallel.hpp"
#include "labs/random.hpp"
#include "labs/redraw.cuh"
#include "labs/sync.hpp"

namespace lab2 {

// ---- The kernels and the launch rules ---------------------------------------

const std::vector<Variant>& variants() {
  static const std::vector<Variant> table = {
      {"even_odd", "a", even_odd, Family::Parity, "i % 2"},
      {"warp_aligned", "b", warp_aligned, Family::Parity, "(i / warpSize) % 2"},
      {"half_block", "c", half_block, Family::Parity, "threadIdx.x < blockDim.x / 2"},
      {"switch_divergent", "d", switch_divergent, Family::Switch, "switch (i % 32)"},
      {"switch_uniform", "e", switch_uniform, Family::Switch, "switch (warp % 32)"},
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
}

Launch check_launch(long long threads) {
  if (threads < kWarp || threads > 1024 || threads % kWarp != 0) {
    throw std::invalid_argument(
        "threads per block must be a multiple of 32 (warpSize) from 32 "
        "to 1024, not " +
        std::to_string(threads));
  }
  return Launch{static_cast<int>(threads)};
}

Block2D check_block(long long x, long long y) {
  if (x < 1 || y < 1 || x * y > 1024) {
    throw std::invalid_argument("block (" + std::to_string(x) + "," + std::to_string(y) +
                                ") is not a valid block: each side at least 1, at most 1024 "
                                "threads in all");
  }
  return Block2D{static_cast<int>(x), static_cast<int>(y)};
}

// ---- The CPU reference and the inputs ---------------------------------------

namespace {

// A float uniform in [lo, hi] from a random word, to the float's full precision
// (53 random bits, then rounded): the inputs drawn on the host (random_floats) and on
// the device (the timed runs'). Values on a coarse grid would let a kernel look its
// outputs up in a table instead of computing them.
struct Uniform {
  float lo, hi;
  __host__ __device__ float operator()(std::uint64_t r) const {
    const double unit = static_cast<double>(r >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
    return static_cast<float>(lo + (static_cast<double>(hi) - lo) * unit);
  }
};

// Element i of a kernel of `family`'s output for input x: the CPU's reference, the
// GPU's and the checks of the timed runs.
__host__ __device__ float expected_at(Family family, long long i, float x) {
  if (family == Family::Parity) return i % 2 == 0 ? work_even(x) : work_odd(x);
  return switch_work(static_cast<int>(i % kWarp), x);
}

}  // namespace

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  return harness::random_values<float>(n, seed, Uniform{lo, hi});
}

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(static_cast<long long>(hi) - lo + 1);
  return harness::random_values<int>(n, seed, [&](std::uint64_t r) {
    return static_cast<int>(lo + static_cast<long long>(r % span));
  });
}

std::vector<float> expected_cpu(Family family, const std::vector<float>& in) {
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = expected_at(family, i, in[i]);
  return out;
}

std::vector<int> simple_divergence_cpu(std::vector<int> data) {
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i % kWarp < 16) {
      data[i] *= 2;
    } else {
      data[i] += 1;
    }
  }
  return data;
}

std::vector<float> sum_matrix_cpu(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(a.size());
  harness::for_ranges(a.size(), 1 << 16, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
  });
  return c;
}

// ---- The harness's own kernels ----------------------------------------------

namespace {

// Both bodies are one instruction: the compiler emits predicated moves (or a
// select) and no branch, so no warp diverges whichever condition is used.
__global__ void pari_dispari_1(int* c, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  int a = 0, b = 0;
  if (tid % 2 == 0) {
    a = 2;  // even thread
  } else {
    b = 1;  // odd thread
  }
  c[tid] = a + b;
}

__global__ void pari_dispari_warp(int* c, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  int a = 0, b = 0;
  if ((tid / warpSize) % 2 == 0) {
    a = 2;
  } else {
    b = 1;
  }
  c[tid] = a + b;
}

__global__ void reference_kernel(Family family, const float* in, int n, float* out) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = expected_at(family, i, in[i]);
}

unsigned blocks(long long n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

}  // namespace

void textbook_even_odd(int* c, int n, int threads) {
  pari_dispari_1<<<blocks(n, threads), threads>>>(c, n);
}

void textbook_warp_aligned(int* c, int n, int threads) {
  pari_dispari_warp<<<blocks(n, threads), threads>>>(c, n);
}

void gpu_reference(Family family, const float* in, int n, float* out) {
  reference_kernel<<<blocks(n, 256), 256>>>(family, in, n, out);
}

// ---- The benches ------------------------------------------------------------

ElementwiseBench::ElementwiseBench(int n, std::uint64_t seed)
    : n_(n), input_(random_floats(n, seed)), d_in_(input_), d_out_(n) {}

const std::vector<float>& ElementwiseBench::expected(Family family) {
  const int f = static_cast<int>(family);
  if (!have_expected_[f]) {
    if (n_ <= kCpuCheckLimit) {
      expected_[f] = expected_cpu(family, input_);
    } else {
      d_out_.poison();
      gpu_reference(family, d_in_.get(), n_, d_out_.get());
      LAB_CHECK_LAUNCH();
      harness::synchronize_or_die(harness::kernel_timeout_seconds(), "harness reference kernel");
      expected_[f] = d_out_.download();
      // Self-check of the harness: the first elements against the CPU.
      const std::vector<float> head(input_.begin(), input_.begin() + (1 << 16));
      const std::vector<float> want = expected_cpu(family, head);
      const std::string wrong = harness::describe_mismatches(
          want, std::vector<float>(expected_[f].begin(), expected_[f].begin() + (1 << 16)));
      if (!wrong.empty()) throw std::runtime_error("harness GPU reference is wrong: " + wrong);
    }
    have_expected_[f] = true;
  }
  return expected_[f];
}

std::string ElementwiseBench::compare(Family family) {
  harness::synchronize_or_die();
  return harness::describe_mismatches(expected(family), d_out_.download(), "element");
}

std::string ElementwiseBench::check(const Variant& v, Launch launch) {
  expected(v.family);  // first: on the GPU it is computed in d_out_
  d_out_.poison();
  v.run(d_in_.get(), n_, d_out_.get(), launch);
  LAB_CHECK_LAUNCH();
  return compare(v.family);
}

std::string ElementwiseBench::check_gpu_reference(Family family) {
  const std::vector<float> want = expected_cpu(family, input_);
  d_out_.poison();
  gpu_reference(family, d_in_.get(), n_, d_out_.get());
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  return harness::describe_mismatches(want, d_out_.download(), "element");
}

namespace {

// Element i of `out` is not what `family` gives for in[i] (bit for bit, as the CPU's).
struct WrongElement {
  Family family;
  const float* in;
  const float* out;
  __device__ bool operator()(std::size_t i) const {
    return !(out[i] == expected_at(family, static_cast<long long>(i), in[i]));
  }
};

}  // namespace

harness::TimingStats ElementwiseBench::time(const Variant& v, Launch launch,
                                            const harness::TimingOptions& options) {
  // The timed runs' inputs, in a buffer of their own: the bench's stay as they are.
  harness::DeviceBuffer<float> fresh(n_);
  std::uint64_t seed = 0;
  const auto draw = [&] { harness::drawn(fresh.get(), n_, seed, Uniform{-1.0f, 1.0f}); };
  // After each run: its inputs drawn again (its launcher may have written over them),
  // its output compared with them on the device, the GPU reference's when wrong.
  const auto check = [&]() -> std::string {
    harness::synchronize_or_die();
    draw();
    if (harness::count_where(n_, WrongElement{v.family, fresh.get(), d_out_.get()}) == 0) return "";
    const std::vector<float> got = d_out_.download();
    gpu_reference(v.family, fresh.get(), n_, d_out_.get());
    LAB_CHECK_LAUNCH();
    return harness::describe_mismatches(d_out_.download(), got, "element");
  };
  return harness::time_fresh([&] { v.run(fresh.get(), n_, d_out_.get(), launch); },
                             harness::doing_at_least(options, bytes_moved()),
                             {{harness::output_of(d_out_)}, check, [&](std::uint64_t drawn_from) {
                                seed = drawn_from;
                                draw();
                              }});
}

harness::TimingStats ElementwiseBench::time_reference(Family family,
                                                      const harness::TimingOptions& options) {
  return harness::time_gpu([&] { gpu_reference(family, d_in_.get(), n_, d_out_.get()); },
                           harness::doing_at_least(options, bytes_moved()));
}

harness::TimingStats ElementwiseBench::time_textbook(bool warp_aligned, Launch launch,
                                                     const harness::TimingOptions& options) {
  int* c = reinterpret_cast<int*>(d_out_.get());  // same size as n ints
  return harness::time_gpu(
      [&] {
        if (warp_aligned) {
          textbook_warp_aligned(c, n_, launch.threads);
        } else {
          textbook_even_odd(c, n_, launch.threads);
        }
      },
      harness::doing_at_least(options, 4.0 * n_));  // n ints written
}

std::string check_simple_divergence(const std::vector<int>& data, Launch launch,
                                    std::vector<int>* result) {
  harness::DeviceBuffer<int> d(data);
  simple_divergence(d.get(), static_cast<int>(data.size()), launch);
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  std::vector<int> got = d.download();
  const std::string wrong =
      harness::describe_mismatches(simple_divergence_cpu(data), got, "element");
  if (result) *result = std::move(got);
  return wrong;
}

MatrixBench::MatrixBench(int nx, int ny, std::uint64_t seed)
    : nx_(nx),
      ny_(ny),
      seed_(seed),
      d_a_(static_cast<std::size_t>(nx) * ny),
      d_b_(d_a_.size()),
      d_c_(d_a_.size()) {}

// A and B drawn anew from `seed`, every element on its own.
void MatrixBench::draw(std::uint64_t seed) {
  harness::drawn(d_a_.get(), d_a_.size(), seed, Uniform{-100.0f, 100.0f});
  harness::drawn(d_b_.get(), d_b_.size(), harness::splitmix64_mix(seed), Uniform{-100.0f, 100.0f});
}

namespace {

struct WrongSum {
  const float *a, *b, *c;
  __device__ bool operator()(std::size_t i) const { return !(c[i] == a[i] + b[i]); }
};

}  // namespace

// C against the matrices of `seed`, placed again (a launcher may have written over
// its inputs), on the device; the first mismatches from the CPU's sum when wrong.
std::string MatrixBench::compare(std::uint64_t seed) {
  harness::synchronize_or_die();
  draw(seed);
  if (harness::count_where(d_c_.size(), WrongSum{d_a_.get(), d_b_.get(), d_c_.get()}) == 0) {
    return "";
  }
  return harness::describe_mismatches(sum_matrix_cpu(d_a_.download(), d_b_.download()),
                                      d_c_.download(), "element");
}

std::string MatrixBench::check(Block2D block) {
  draw(seed_);  // the bench's own matrices: a timed run leaves others
  d_c_.poison();
  sum_matrix_2d(d_a_.get(), d_b_.get(), d_c_.get(), nx_, ny_, block);
  LAB_CHECK_LAUNCH();
  return compare(seed_);
}

harness::TimingStats MatrixBench::time(Block2D block, const harness::TimingOptions& options) {
  std::uint64_t seed = 0;
  return harness::time_fresh(
      [&] { sum_matrix_2d(d_a_.get(), d_b_.get(), d_c_.get(), nx_, ny_, block); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_c_)},
       [&] { return compare(seed); },
       [&](std::uint64_t drawn_from) { draw(seed = drawn_from); }});
}

}  // namespace lab2
