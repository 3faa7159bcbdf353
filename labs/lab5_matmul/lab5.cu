// lab5's harness (lab5.hpp): the variants, the host side and the benches.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "lab5.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/named.hpp"
#include "labs/parallel.hpp"
#include "labs/random.hpp"
#include "labs/sync.hpp"

namespace lab5 {

// ---- The variants -----------------------------------------------------------

const std::vector<Variant>& variants() {
  static const std::vector<Variant> table = {
      {"naive", "a", matmul_naive, Block::Chosen, {16, 16}},
      {"naive_swapped", "a'", matmul_naive_swapped, Block::Chosen, {16, 16}},
      {"fine", "b", matmul_fine, Block::Chosen, {16, 16}},
      {"tiled16",
       "c",
       [](const float* A, const float* B, float* C, int n, int k, int m, Launch) {
         matmul_tiled<16>(A, B, C, n, k, m);
       },
       Block::Fixed,
       {16, 16}},
      {"tiled32",
       "c",
       [](const float* A, const float* B, float* C, int n, int k, int m, Launch) {
         matmul_tiled<32>(A, B, C, n, k, m);
       },
       Block::Fixed,
       {32, 32}},
      {"regblock",
       "d",
       [](const float* A, const float* B, float* C, int n, int k, int m, Launch) {
         matmul_regblock(A, B, C, n, k, m);
       },
       Block::Fixed,
       {0, 0}},
      {"best",
       "e",
       [](const float* A, const float* B, float* C, int n, int k, int m, Launch) {
         matmul_best(A, B, C, n, k, m);
       },
       Block::Fixed,
       {0, 0}},
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
}

namespace {

void check_block(Launch l) {
  if (l.block_x < 1 || l.block_y < 1 || static_cast<long long>(l.block_x) * l.block_y > 1024) {
    throw std::invalid_argument("a thread block of " + std::to_string(l.block_x) + " x " +
                                std::to_string(l.block_y) +
                                " threads: each side must be >= 1 and the product at most 1024");
  }
}

}  // namespace

void check_launch(const Variant& v, long long n, long long k, long long m, Launch launch) {
  if (n < 1 || k < 1 || m < 1 || n > 1000000 || k > 1000000 || m > 1000000) {
    throw std::invalid_argument("sizes n = " + std::to_string(n) + ", k = " + std::to_string(k) +
                                ", m = " + std::to_string(m) + ": each must be 1..1000000");
  }
  if (n * k > 0x7fffffffLL || k * m > 0x7fffffffLL || n * m > 0x7fffffffLL) {
    throw std::invalid_argument("each matrix must hold fewer than 2^31 elements");
  }
  if (v.block == Block::Fixed) return;
  check_block(launch);
  // The grid's y covers the rows, or the columns where the mapping is swapped.
  const bool swapped = v.name == std::string("naive_swapped");
  if (((swapped ? m : n) + launch.block_y - 1) / launch.block_y > 65535) {
    throw std::invalid_argument(std::string("grid y = ceil(") + (swapped ? "m" : "n") +
                                " / block_y) must be at most 65535: raise --block-y");
  }
  if (v.name == std::string("fine") && k > 65535) {
    throw std::invalid_argument("fine uses grid z = k, at most 65535, not " + std::to_string(k));
  }
}

void check_mqdb_launch(Launch launch) { check_block(launch); }

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.block_x << " x " << l.block_y << " threads";
}

// ---- The host side ----------------------------------------------------------

namespace {

// sum a[j] x[j] in float64 with four independent sums (the compiler may not
// reorder one sum; four keep the FPU busy).
double dot(const float* a, const double* x, int count) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int j = 0;
  for (; j + 4 <= count; j += 4) {
    s0 += a[j] * x[j];
    s1 += a[j + 1] * x[j + 1];
    s2 += a[j + 2] * x[j + 2];
    s3 += a[j + 3] * x[j + 3];
  }
  for (; j < count; ++j) s0 += a[j] * x[j];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace

std::vector<float> random_matrix(std::size_t count, std::uint64_t seed) {
  return harness::random_values<float>(count, seed, Rng::uniform_of);
}

std::vector<double> matmul_cpu(const std::vector<float>& A, const std::vector<float>& B, int n,
                               int k, int m) {
  std::vector<double> C(static_cast<std::size_t>(n) * m, 0.0);
  harness::for_ranges(n, 16, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      double* c = &C[i * m];
      for (int l = 0; l < k; ++l) {
        const double a = A[i * k + l];
        const float* b = &B[static_cast<std::size_t>(l) * m];
        for (int j = 0; j < m; ++j) c[j] += a * b[j];
      }
    }
  });
  return C;
}

FreivaldsProbe::FreivaldsProbe(const std::vector<float>& A, const std::vector<float>& B, int n,
                               int k, int m, int vectors, std::uint64_t seed)
    : n_(n),
      m_(m),
      vectors_(vectors),
      x_(static_cast<std::size_t>(vectors) * m),
      abx_(static_cast<std::size_t>(vectors) * n),
      scale_(static_cast<std::size_t>(vectors) * n) {
  Rng rng(seed);
  for (double& e : x_) e = rng.uniform();
  std::vector<double> bx(k);
  for (int v = 0; v < vectors; ++v) {
    const double* x = &x_[static_cast<std::size_t>(v) * m];
    harness::for_ranges(k, 256, [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t l = begin; l < end; ++l) bx[l] = dot(&B[l * m], x, m);
    });
    harness::for_ranges(n, 256, [&](std::size_t, std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const float* a = &A[i * k];
        double abx = 0, scale = 0;
        for (int l = 0; l < k; ++l) {
          const double t = a[l] * bx[l];
          abx += t;
          scale += t * t;
        }
        abx_[static_cast<std::size_t>(v) * n + i] = abx;
        scale_[static_cast<std::size_t>(v) * n + i] = std::sqrt(scale);
      }
    });
  }
}

namespace {

// A row of C x that differs from A (B x).
struct BadRow {
  int vector;
  std::size_t row;
  double cx, abx, off, allowed;
};

// The failing rows of one range: how many, and the first `shown` of each vector.
struct BadRows {
  long long count = 0;
  std::vector<BadRow> first;
};

}  // namespace

std::string FreivaldsProbe::mismatches(const std::vector<float>& C, double tolerance) const {
  constexpr int kShown = 5;
  const std::vector<BadRows> ranges =
      harness::map_ranges<BadRows>(n_, 256, [&](std::size_t begin, std::size_t end) {
        BadRows bad;
        std::vector<int> shown(vectors_, 0);
        for (std::size_t i = begin; i < end; ++i) {
          const float* c = &C[i * m_];
          for (int v = 0; v < vectors_; ++v) {
            const std::size_t at = static_cast<std::size_t>(v) * n_ + i;
            const double cx = dot(c, &x_[static_cast<std::size_t>(v) * m_], m_);
            const double allowed = tolerance * scale_[at];
            const double off = std::fabs(cx - abx_[at]);
            if (std::isfinite(cx) && off <= allowed) continue;
            ++bad.count;
            if (shown[v]++ < kShown) bad.first.push_back({v, i, cx, abx_[at], off, allowed});
          }
        }
        return bad;
      });
  long long bad_rows = 0;
  std::vector<BadRow> first;
  for (const BadRows& r : ranges) {
    bad_rows += r.count;
    first.insert(first.end(), r.first.begin(), r.first.end());
  }
  if (bad_rows == 0) return "";
  // Vector by vector, row by row, as a reader goes through C x.
  std::stable_sort(first.begin(), first.end(),
                   [](const BadRow& a, const BadRow& b) { return a.vector < b.vector; });
  std::ostringstream o;
  o << "Freivalds check: " << bad_rows << " of " << static_cast<long long>(n_) * vectors_
    << " rows of C x (over " << vectors_ << " random vectors) differ from A (B x) by more than "
    << tolerance << " relative; first:";
  for (std::size_t j = 0; j < first.size() && j < kShown; ++j) {
    const BadRow& b = first[j];
    o << "\n  vector " << b.vector << ", row " << b.row << ": (C x)_i = " << b.cx
      << ", (A (B x))_i = " << b.abx << ", off by " << b.off << " (allowed " << b.allowed << ")"
      << (std::isnan(b.cx) ? ": NaN, an element of this row was never written?" : "");
  }
  return o.str();
}

std::vector<int> Mqdb::offsets() const {
  std::vector<int> off(block_size.size() + 1, 0);
  for (std::size_t b = 0; b < block_size.size(); ++b) off[b + 1] = off[b] + block_size[b];
  return off;
}

int Mqdb::max_block() const {
  return block_size.empty() ? 0 : *std::max_element(block_size.begin(), block_size.end());
}

void fill_blocks(Mqdb& q, Rng& rng) {
  const std::vector<int> off = q.offsets();
  q.elem.assign(static_cast<std::size_t>(q.n) * q.n, 0.0f);
  for (std::size_t b = 0; b < q.block_size.size(); ++b) {
    for (int i = off[b]; i < off[b + 1]; ++i) {
      for (int j = off[b]; j < off[b + 1]; ++j) {
        q.elem[static_cast<std::size_t>(i) * q.n + j] = rng.uniform();
      }
    }
  }
}

MqdbPair make_mqdb_pair(int n, int k, std::uint64_t seed) {
  if (k < 1 || k > n) {
    throw std::invalid_argument("an MQDB needs 1 <= k <= n diagonal blocks, not k = " +
                                std::to_string(k) + " for n = " + std::to_string(n));
  }
  Rng rng(seed);
  std::vector<double> w(k);
  double total = 0;
  for (double& x : w) total += (x = 0.5 + static_cast<double>(rng.next() >> 11) * 0x1p-53);
  std::vector<int> d(k);
  int used = 0;
  for (int b = 0; b < k; ++b)
    used += (d[b] = 1 + static_cast<int>(std::floor((n - k) * w[b] / total)));
  for (int b = 0; used < n; b = (b + 1) % k, ++used) ++d[b];
  MqdbPair p;
  for (Mqdb* q : {&p.a, &p.b}) {
    q->n = n;
    q->block_size = d;
  }
  p.a.desc = "A";
  p.b.desc = "B";
  fill_blocks(p.a, rng);
  fill_blocks(p.b, rng);
  return p;
}

Mqdb mqdb_product_host(const Mqdb& a, const Mqdb& b) {
  Mqdb c;
  c.desc = "C";
  c.n = a.n;
  c.block_size = a.block_size;
  c.elem.assign(static_cast<std::size_t>(c.n) * c.n, 0.0f);
  const std::vector<int> off = a.offsets();
  const std::size_t n = c.n;
  for (std::size_t blk = 0; blk < a.block_size.size(); ++blk) {
    for (int i = off[blk]; i < off[blk + 1]; ++i) {
      float* crow = &c.elem[i * n];
      for (int l = off[blk]; l < off[blk + 1]; ++l) {
        const float x = a.elem[i * n + l];
        const float* brow = &b.elem[l * n];
        for (int j = off[blk]; j < off[blk + 1]; ++j) crow[j] += x * brow[j];
      }
    }
  }
  return c;
}

std::vector<double> mqdb_product_double(const Mqdb& a, const Mqdb& b) {
  const std::size_t n = a.n;
  std::vector<double> c(n * n, 0.0);
  const std::vector<int> off = a.offsets();
  for (std::size_t blk = 0; blk < a.block_size.size(); ++blk) {
    for (int i = off[blk]; i < off[blk + 1]; ++i) {
      for (int l = off[blk]; l < off[blk + 1]; ++l) {
        const double x = a.elem[i * n + l];
        for (int j = off[blk]; j < off[blk + 1]; ++j) c[i * n + j] += x * b.elem[l * n + j];
      }
    }
  }
  return c;
}

double mqdb_flops(const std::vector<int>& block_size) {
  double f = 0;
  for (int d : block_size) f += 2.0 * d * d * static_cast<double>(d);
  return f;
}

std::string mqdb_structure_mismatches(const Mqdb& shape, const std::vector<float>& c) {
  const std::vector<int> off = shape.offsets();
  const std::size_t n = shape.n;
  std::ostringstream first;
  long long bad = 0;
  std::size_t blk = 0;
  for (std::size_t i = 0; i < n; ++i) {
    while (static_cast<int>(i) >= off[blk + 1]) ++blk;
    for (std::size_t j = 0; j < n; ++j) {
      const bool inside = static_cast<int>(j) >= off[blk] && static_cast<int>(j) < off[blk + 1];
      if (!inside && c[i * n + j] != 0.0f) {
        if (bad++ < 5) {
          first << "\n  element (" << i << ", " << j
                << ") outside the diagonal blocks: expected 0, got " << c[i * n + j]
                << (std::isnan(c[i * n + j]) ? " (never written)" : "");
        }
      }
    }
  }
  if (bad == 0) return "";
  return std::to_string(bad) +
         " elements outside the diagonal blocks are not 0; first:" + first.str();
}

// ---- The benches ------------------------------------------------------------

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

std::string MatmulBench::check_course_naive() {
  d_c_.poison();
  course_naive_product(d_a_.get(), d_b_.get(), d_c_.get(), n_, k_, m_);
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

harness::TimingStats MatmulBench::time_course_naive(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] { course_naive_product(d_a_.get(), d_b_.get(), d_c_.get(), n_, k_, m_); },
      least(options));
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

std::string MqdbBench::check_from_host() {
  d_c_.poison();
  const MqdbStruct A{n(), static_cast<int>(pair_.a.block_size.size()), pair_.a.block_size.data(),
                     pair_.a.elem.data()};
  const MqdbStruct B{n(), static_cast<int>(pair_.b.block_size.size()), pair_.b.block_size.data(),
                     pair_.b.elem.data()};
  mqdb_from_host(A, B, d_c_.get());
  LAB_CHECK_LAUNCH();
  return compare();
}

long long MqdbBench::from_host_leak(int calls) {
  std::size_t free_before = 0, free_after = 0, total = 0;
  harness::synchronize_or_die();
  LAB_CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
  const MqdbStruct A{n(), static_cast<int>(pair_.a.block_size.size()), pair_.a.block_size.data(),
                     pair_.a.elem.data()};
  const MqdbStruct B{n(), static_cast<int>(pair_.b.block_size.size()), pair_.b.block_size.data(),
                     pair_.b.elem.data()};
  for (int i = 0; i < calls; ++i) mqdb_from_host(A, B, d_c_.get());
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  LAB_CUDA_CHECK(cudaMemGetInfo(&free_after, &total));
  return static_cast<long long>(free_before) - static_cast<long long>(free_after);
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
