#include <stdexcept>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/sync.hpp"
#include "yardsticks.hpp"

namespace lab2 {

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

// Fresh floats from another seed; the expected output of `family` is computed at
// once, before the variant runs (on the GPU it goes through d_out_).
void ElementwiseBench::redraw(Family family) {
  input_ = random_floats(n_, harness::fresh_seed());
  d_in_.upload(input_);
  have_expected_[0] = have_expected_[1] = false;
  expected(family);
}

std::string ElementwiseBench::check_gpu_reference(Family family) {
  const std::vector<float> want = expected_cpu(family, input_);
  d_out_.poison();
  gpu_reference(family, d_in_.get(), n_, d_out_.get());
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  return harness::describe_mismatches(want, d_out_.download(), "element");
}

harness::TimingStats ElementwiseBench::time(const Variant& v, Launch launch,
                                            const harness::TimingOptions& options) {
  expected(v.family);  // not in the middle of the checks: on the GPU it uses d_out_
  return harness::time_fresh(
      [&] { v.run(d_in_.get(), n_, d_out_.get(), launch); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_out_)}, [&] { return compare(v.family); }, [&] { redraw(v.family); }});
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
      d_a_(static_cast<std::size_t>(nx) * ny),
      d_b_(d_a_.size()),
      d_c_(d_a_.size()) {
  draw(seed);
}

void MatrixBench::draw(std::uint64_t seed) {
  const std::vector<float> a = random_floats(d_a_.size(), seed, -100.0f, 100.0f);
  const std::vector<float> b = random_floats(d_a_.size(), seed + 1, -100.0f, 100.0f);
  d_a_.upload(a);
  d_b_.upload(b);
  expected_ = sum_matrix_cpu(a, b);
}

std::string MatrixBench::compare() {
  harness::synchronize_or_die();
  return harness::describe_mismatches(expected_, d_c_.download(), "element");
}

std::string MatrixBench::check(Block2D block) {
  d_c_.poison();
  sum_matrix_2d(d_a_.get(), d_b_.get(), d_c_.get(), nx_, ny_, block);
  LAB_CHECK_LAUNCH();
  return compare();
}

harness::TimingStats MatrixBench::time(Block2D block, const harness::TimingOptions& options) {
  return harness::time_fresh(
      [&] { sum_matrix_2d(d_a_.get(), d_b_.get(), d_c_.get(), nx_, ny_, block); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_c_)},
       [&] { return compare(); },
       [&] { draw(harness::fresh_seed()); }});
}

}  // namespace lab2
