#include <algorithm>
#include <chrono>

#include "bench.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/sync.hpp"
#include "yardsticks.hpp"

namespace lab5 {

MatmulBench::MatmulBench(int n, int k, int m, std::uint64_t seed)
    : n_(n),
      k_(k),
      m_(m),
      d_a_(static_cast<std::size_t>(n) * k),
      d_b_(static_cast<std::size_t>(k) * m),
      d_c_(static_cast<std::size_t>(n) * m) {
  draw(seed);
}

void MatmulBench::draw(std::uint64_t seed) {
  a_ = random_matrix(d_a_.size(), seed);
  b_ = random_matrix(d_b_.size(), seed + 1000003);
  d_a_.upload(a_);
  d_b_.upload(b_);
  if (exact_check()) {
    expected_ = matmul_cpu(a_, b_, n_, k_, m_);
  } else {
    probe_ = FreivaldsProbe(a_, b_, n_, k_, m_, kFreivaldsVectors, kFreivaldsSeed);
  }
}

harness::TimingOptions MatmulBench::least(const harness::TimingOptions& options) const {
  return harness::doing_at_least(options, bytes_moved(), flops());
}

std::string MatmulBench::compare() {
  harness::synchronize_or_die();
  d_c_.download(got_);
  if (exact_check()) {
    return harness::describe_float_mismatches(expected_, got_, kElementTolerance, "element");
  }
  return probe_.mismatches(got_, kFreivaldsTolerance);
}

std::string MatmulBench::check(Launcher run, Launch launch) {
  d_c_.poison();
  run(d_a_.get(), d_b_.get(), d_c_.get(), n_, k_, m_, launch);
  LAB_CHECK_LAUNCH();
  return compare();
}

namespace {
CublasSgemm& cublas_of(std::shared_ptr<void>& slot) {
  if (!slot) slot = std::make_shared<CublasSgemm>();
  return *static_cast<CublasSgemm*>(slot.get());
}
}  // namespace

std::string MatmulBench::check_cublas() {
  d_c_.poison();
  cublas_of(cublas_).run(d_a_.get(), d_b_.get(), d_c_.get(), n_, k_, m_);
  return compare();
}

std::string MatmulBench::check_seed_naive() {
  d_c_.poison();
  seed_naive_product(d_a_.get(), d_b_.get(), d_c_.get(), n_, k_, m_);
  return compare();
}

harness::TimingStats MatmulBench::time(Launcher run, Launch launch,
                                       const harness::TimingOptions& options) {
  return harness::time_fresh([&] { run(d_a_.get(), d_b_.get(), d_c_.get(), n_, k_, m_, launch); },
                             least(options),
                             {{harness::output_of(d_c_)},
                              [&] { return compare(); },
                              [&] { draw(harness::fresh_seed()); }});
}

harness::TimingStats MatmulBench::time_cublas(const harness::TimingOptions& options) {
  CublasSgemm& blas = cublas_of(cublas_);
  return harness::time_gpu([&] { blas.run(d_a_.get(), d_b_.get(), d_c_.get(), n_, k_, m_); },
                           least(options));
}

harness::TimingStats MatmulBench::time_seed_naive(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] { seed_naive_product(d_a_.get(), d_b_.get(), d_c_.get(), n_, k_, m_); }, least(options));
}

MqdbBench::MqdbBench(int n, int k, std::uint64_t seed)
    : pair_(make_mqdb_pair(n, k, seed)),
      offsets_(pair_.a.offsets()),
      d_offsets_(offsets_),
      d_a_(pair_.a.elem),
      d_b_(pair_.b.elem),
      d_c_(pair_.a.elem.size()) {
  probe();
}

bool MqdbBench::exact_check() const { return mqdb_flops(pair_.a.block_size) <= 2 * kExactLimit; }

void MqdbBench::probe() {
  if (!exact_check()) {
    probe_ = FreivaldsProbe(pair_.a.elem, pair_.b.elem, n(), n(), n(), kFreivaldsVectors,
                            kFreivaldsSeed);
  }
}

MqdbDevice MqdbBench::view(harness::DeviceBuffer<float>& elem) {
  return MqdbDevice{n(),
                    static_cast<int>(pair_.a.block_size.size()),
                    d_offsets_.get(),
                    offsets_.data(),
                    pair_.a.max_block(),
                    elem.get()};
}

std::string MqdbBench::compare() {
  harness::synchronize_or_die();
  d_c_.download(got_);
  std::string wrong = mqdb_structure_mismatches(pair_.a, got_);
  if (!wrong.empty()) return wrong;
  if (exact_check()) {
    return harness::describe_float_mismatches(mqdb_product_double(pair_.a, pair_.b), got_,
                                              kElementTolerance, "element");
  }
  return probe_.mismatches(got_, kFreivaldsTolerance);
}

std::string MqdbBench::check(bool naive, Launch launch) {
  d_c_.poison();
  const MqdbDevice A = view(d_a_), B = view(d_b_);
  MqdbDevice C = view(d_c_);
  if (naive) {
    mqdb_naive(A, B, C, launch);
  } else {
    mqdb_best(A, B, C);
  }
  LAB_CHECK_LAUNCH();
  return compare();
}

std::string MqdbBench::check_dense_best() {
  d_c_.poison();
  matmul_best(d_a_.get(), d_b_.get(), d_c_.get(), n(), n(), n());
  LAB_CHECK_LAUNCH();
  return compare();
}

double MqdbBench::bytes_moved() const {
  double blocks = 0;
  for (int d : pair_.a.block_size) blocks += static_cast<double>(d) * d;
  return 4.0 * (2 * blocks + static_cast<double>(n()) * n());
}

// Fresh blocks from another seed, the same D: the launchers' views stay valid.
harness::TimingStats MqdbBench::time_fresh(const std::function<void()>& launch,
                                           const harness::TimingOptions& options) {
  return harness::time_fresh(launch, harness::doing_at_least(options, bytes_moved(), flops()),
                             {{harness::output_of(d_c_)},
                              [&] { return compare(); },
                              [&] {
                                Rng rng(harness::fresh_seed());
                                fill_blocks(pair_.a, rng);
                                fill_blocks(pair_.b, rng);
                                probe();
                                d_a_.upload(pair_.a.elem);
                                d_b_.upload(pair_.b.elem);
                              }});
}

harness::TimingStats MqdbBench::time(bool naive, Launch launch,
                                     const harness::TimingOptions& options) {
  const MqdbDevice A = view(d_a_), B = view(d_b_);
  MqdbDevice C = view(d_c_);
  return time_fresh(
      [&] {
        if (naive) {
          mqdb_naive(A, B, C, launch);
        } else {
          mqdb_best(A, B, C);
        }
      },
      options);
}

harness::TimingStats MqdbBench::time_dense_best(const harness::TimingOptions& options) {
  return time_fresh([&] { matmul_best(d_a_.get(), d_b_.get(), d_c_.get(), n(), n(), n()); },
                    options);
}

double MqdbBench::time_host_ms() {
  const auto start = std::chrono::steady_clock::now();
  const Mqdb c = mqdb_product_host(pair_.a, pair_.b);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  volatile float sink = c.elem[0];
  (void)sink;
  return ms;
}

}  // namespace lab5
