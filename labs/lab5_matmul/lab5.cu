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
#include "labs/redraw.cuh"
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

std::vector<int> Mqdb::offsets() const {
  std::vector<int> off(block_size.size() + 1, 0);
  for (std::size_t b = 0; b < block_size.size(); ++b) off[b + 1] = off[b] + block_size[b];
  return off;
}

int Mqdb::max_block() const {
  return block_size.empty() ? 0 : *std::max_element(block_size.begin(), block_size.end());
}

namespace {

// q's diagonal blocks, block by block, row by row, uniform in [-1, 1) from rng, and
// zeros elsewhere: step (2) or (3) of make_mqdb_pair.
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

}  // namespace

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

// ---- The device side of the checks and the redraws ---------------------------

namespace {

// Rng's uniform values, drawn on the device (harness::drawn): value i of the stream
// from splitmix64_at(seed, i), on either side.
struct Uniform {
  __device__ float operator()(std::uint64_t r) const { return Rng::uniform_of(r); }
};

// out[r] = sum_c M[r][c] v[c] in float64, M rows x cols, row-major; with `squares`,
// squares[r] = sum_c (M[r][c] v[c])^2 too. One warp per row.
__global__ void row_dots_kernel(const float* M, int rows, int cols, const double* v, double* out,
                                double* squares) {
  const int lane = threadIdx.x % 32;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  for (long long r = (blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x) / 32; r < rows;
       r += warps) {
    const float* row = M + r * cols;
    double dot = 0, square = 0;
    for (int c = lane; c < cols; c += 32) {
      const double term = row[c] * v[c];
      dot += term;
      square += term * term;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      dot += __shfl_down_sync(0xffffffffu, dot, offset);
      square += __shfl_down_sync(0xffffffffu, square, offset);
    }
    if (lane == 0) {
      out[r] = dot;
      if (squares) squares[r] = square;
    }
  }
}

void row_dots(const float* M, int rows, int cols, const double* v, double* out,
              double* squares = nullptr) {
  const long long blocks = (rows + 7LL) / 8;  // 8 warps a block
  row_dots_kernel<<<static_cast<int>(std::min(blocks, 1LL << 20)), 256>>>(M, rows, cols, v, out,
                                                                          squares);
  LAB_CHECK_LAUNCH();
}

// The diagonal block [lo, hi) that holds row i: offset[b] <= i < offset[b + 1].
__device__ void block_of_row(const int* offset, int k, int i, int& lo, int& hi) {
  int b = 0, e = k;  // offset[b] <= i < offset[e]
  while (e - b > 1) {
    const int mid = (b + e) / 2;
    if (offset[mid] <= i) {
      b = mid;
    } else {
      e = mid;
    }
  }
  lo = offset[b];
  hi = offset[b + 1];
}

// fill_blocks on the device: every element of the n x n matrix, uniform in [-1, 1)
// from (seed, its index) inside the diagonal blocks, 0 outside. A thread block a row.
__global__ void fill_blocks_kernel(float* elem, int n, const int* offset, int k,
                                   std::uint64_t seed) {
  for (int i = blockIdx.x; i < n; i += gridDim.x) {
    int lo, hi;
    block_of_row(offset, k, i, lo, hi);
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
      const std::size_t at = static_cast<std::size_t>(i) * n + j;
      elem[at] = j >= lo && j < hi ? Rng::uniform_of(harness::splitmix64_at(seed, at)) : 0.0f;
    }
  }
}

// Adds to *count the elements outside the diagonal blocks that are not 0 (NaN included).
__global__ void outside_nonzeros_kernel(const float* elem, int n, const int* offset, int k,
                                        unsigned long long* count) {
  unsigned long long mine = 0;
  for (int i = blockIdx.x; i < n; i += gridDim.x) {
    int lo, hi;
    block_of_row(offset, k, i, lo, hi);
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
      mine += (j < lo || j >= hi) && elem[static_cast<std::size_t>(i) * n + j] != 0.0f;
    }
  }
  if (mine) atomicAdd(count, mine);
}

constexpr std::uint64_t kSeedOfB = 1000003;  // B = random_matrix(k m, seed + kSeedOfB)

}  // namespace

std::string freivalds_mismatches(const float* A, const float* B, const float* C, int n, int k,
                                 int m, std::uint64_t seed) {
  constexpr int kShown = 5;
  // x (m), B x (k), then for each row i: (A (B x))_i, its terms' squares, (C x)_i.
  harness::DeviceBuffer<double> scratch(static_cast<std::size_t>(m) + k +
                                        3 * static_cast<std::size_t>(n));
  double* x = scratch.get();
  double* bx = x + m;
  double* abx = bx + k;
  double* squares = abx + n;
  double* cx = squares + n;
  std::vector<double> rows(3 * static_cast<std::size_t>(n));  // abx, squares, cx
  long long bad_rows = 0;
  std::ostringstream first;
  for (int v = 0; v < kFreivaldsVectors; ++v) {
    harness::drawn(x, m, harness::splitmix64_at(seed, v), Uniform{});
    row_dots(B, k, m, x, bx);
    row_dots(A, n, k, bx, abx, squares);
    row_dots(C, n, m, x, cx);
    LAB_CUDA_CHECK(
        cudaMemcpy(rows.data(), abx, rows.size() * sizeof(double), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      const double want = rows[i], allowed = kFreivaldsTolerance * std::sqrt(rows[n + i]),
                   got = rows[2 * static_cast<std::size_t>(n) + i], off = std::fabs(got - want);
      if (std::isfinite(got) && off <= allowed) continue;
      if (bad_rows++ < kShown) {
        first << "\n  vector " << v << ", row " << i << ": (C x)_i = " << got
              << ", (A (B x))_i = " << want << ", off by " << off << " (allowed " << allowed << ")"
              << (std::isnan(got) ? ": NaN, an element of this row was never written?" : "");
      }
    }
  }
  if (bad_rows == 0) return "";
  std::ostringstream o;
  o << "Freivalds check: " << bad_rows << " of " << static_cast<long long>(n) * kFreivaldsVectors
    << " rows of C x (over " << kFreivaldsVectors
    << " random vectors) differ from A (B x) by more than " << kFreivaldsTolerance
    << " relative; first:" << first.str();
  return o.str();
}

// ---- The benches ------------------------------------------------------------

MatmulBench::MatmulBench(int n, int k, int m, std::uint64_t seed)
    : n_(n),
      k_(k),
      m_(m),
      seed_(seed),
      drawn_(seed),
      d_a_(static_cast<std::size_t>(n) * k),
      d_b_(static_cast<std::size_t>(k) * m),
      d_c_(static_cast<std::size_t>(n) * m),
      d_check_a_(d_a_.size()),
      d_check_b_(d_b_.size()) {
  draw(seed);
}

// random_matrix's A and B for `seed`, made on the device.
void MatmulBench::draw_into(float* a, float* b, std::uint64_t seed) {
  harness::drawn(a, d_a_.size(), seed, Uniform{});
  harness::drawn(b, d_b_.size(), seed + kSeedOfB, Uniform{});
}

void MatmulBench::draw(std::uint64_t seed) {
  draw_into(d_a_.get(), d_b_.get(), seed);
  drawn_ = seed;
}

harness::TimingOptions MatmulBench::least(const harness::TimingOptions& options) const {
  return harness::doing_at_least(options, bytes_moved(), flops());
}

std::string MatmulBench::compare() {
  if (!exact_check()) return compare_freivalds();
  harness::synchronize_or_die();
  // The float64 product, made only now.
  const std::vector<double> expected =
      matmul_cpu(random_matrix(d_a_.size(), drawn_), random_matrix(d_b_.size(), drawn_ + kSeedOfB),
                 n_, k_, m_);
  d_c_.download(got_);
  return harness::describe_float_mismatches(expected, got_, kElementTolerance, "element");
}

std::string MatmulBench::compare_freivalds() {
  harness::synchronize_or_die();
  draw_into(d_check_a_.get(), d_check_b_.get(), drawn_);
  return freivalds_mismatches(d_check_a_.get(), d_check_b_.get(), d_c_.get(), n_, k_, m_,
                              harness::fresh_seed());
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
                              [&] { return compare_freivalds(); },
                              [&](std::uint64_t seed) { draw(seed); },
                              {},
                              [&] { draw(seed_); }});
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
      d_c_(pair_.a.elem.size()),
      d_shape_(offsets_.size()),
      d_check_a_(pair_.a.elem.size()),
      d_check_b_(pair_.a.elem.size()) {}

bool MqdbBench::exact_check() const { return mqdb_flops(pair_.a.block_size) <= 2 * kExactLimit; }

// From the pair's block sizes each time: a launcher may have written any device copy
// (its own offsets only steer its own kernels).
const int* MqdbBench::shape() {
  d_shape_.upload(pair_.a.offsets());
  return d_shape_.get();
}

void MqdbBench::fill(float* a, float* b, std::uint64_t seed) {
  const int* offset = shape();
  fill_blocks_kernel<<<n(), 256>>>(a, n(), offset, k(), harness::splitmix64_at(seed, 0));
  fill_blocks_kernel<<<n(), 256>>>(b, n(), offset, k(), harness::splitmix64_at(seed, 1));
  LAB_CHECK_LAUNCH();
}

void MqdbBench::redraw(std::uint64_t seed) {
  fill(d_a_.get(), d_b_.get(), seed);
  drawn_ = seed;
}

void MqdbBench::restore() {
  d_a_.upload(pair_.a.elem);
  d_b_.upload(pair_.b.elem);
  drawn_.reset();
}

MqdbDevice MqdbBench::view(harness::DeviceBuffer<float>& elem) {
  return MqdbDevice{n(), k(), d_offsets_.get(), offsets_.data(), pair_.a.max_block(), elem.get()};
}

std::string MqdbBench::compare() {
  return exact_check() && !drawn_ ? compare_with(pair_.a, pair_.b) : compare_on_device();
}

std::string MqdbBench::compare_with(const Mqdb& a, const Mqdb& b) {
  harness::synchronize_or_die();
  d_c_.download(got_);
  std::string wrong = mqdb_structure_mismatches(a, got_);
  if (!wrong.empty()) return wrong;
  return harness::describe_float_mismatches(mqdb_product_double(a, b), got_, kElementTolerance,
                                            "element");
}

std::string MqdbBench::compare_on_device() {
  harness::synchronize_or_die();
  harness::DeviceBuffer<unsigned long long> count(1);
  count.fill_bytes(0);
  outside_nonzeros_kernel<<<n(), 256>>>(d_c_.get(), n(), shape(), k(), count.get());
  LAB_CHECK_LAUNCH();
  if (count.download()[0] != 0) {  // which ones, from C on the host
    d_c_.download(got_);
    return mqdb_structure_mismatches(pair_.a, got_);
  }
  if (drawn_) {
    fill(d_check_a_.get(), d_check_b_.get(), *drawn_);
  } else {
    d_check_a_.upload(pair_.a.elem);
    d_check_b_.upload(pair_.b.elem);
  }
  return freivalds_mismatches(d_check_a_.get(), d_check_b_.get(), d_c_.get(), n(), n(), n(),
                              harness::fresh_seed());
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

namespace {

MqdbStruct host_struct(const Mqdb& q) {
  return {q.n, static_cast<int>(q.block_size.size()), q.block_size.data(), q.elem.data()};
}

bool on_device(const void* p) {
  cudaPointerAttributes attributes{};
  if (p == nullptr) return false;
  if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
    cudaGetLastError();  // not a pointer the runtime knows: no error left for later checks
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice;
}

// "" when `device`, what mqdb_from_host returned for `host`, is a deep copy: a device
// struct holding the same n and k and device pointers to the same block sizes and
// elements; else what is wrong. `copy` receives the device struct's contents.
std::string deep_copy_mismatches(const MqdbStruct* device, const Mqdb& host, MqdbStruct& copy) {
  const std::string what = "mqdb_from_host(" + host.desc + ")";
  std::ostringstream o;
  if (!on_device(device)) {
    o << what << " returned " << device
      << ", not a pointer to device memory: cudaMalloc the struct's copy and return it";
    return o.str();
  }
  LAB_CUDA_CHECK(cudaMemcpy(&copy, device, sizeof copy, cudaMemcpyDeviceToHost));
  const int k = static_cast<int>(host.block_size.size());
  if (copy.n != host.n || copy.k != k) {
    o << what << ": the device struct holds n = " << copy.n << ", k = " << copy.k
      << " instead of n = " << host.n << ", k = " << k;
    return o.str();
  }
  const char* outside = !on_device(copy.block_size) ? "block_size"
                        : !on_device(copy.elem)     ? "elem"
                                                    : nullptr;
  if (outside) {
    o << what << ": the device struct's " << outside
      << " is not a pointer to device memory: the host pointer, copied with the struct? "
         "cudaMalloc the array, copy it, and put the device pointer in the struct you copy";
    return o.str();
  }
  std::vector<int> sizes(k);
  LAB_CUDA_CHECK(
      cudaMemcpy(sizes.data(), copy.block_size, sizeof(int) * k, cudaMemcpyDeviceToHost));
  std::string wrong = harness::describe_mismatches(host.block_size, sizes, "block size");
  if (wrong.empty()) {
    std::vector<float> elem(host.elem.size());
    LAB_CUDA_CHECK(
        cudaMemcpy(elem.data(), copy.elem, sizeof(float) * elem.size(), cudaMemcpyDeviceToHost));
    wrong = harness::describe_mismatches(host.elem, elem, "element");
  }
  return wrong.empty() ? ""
                       : what + ": the copy in device memory differs from the host's: " + wrong;
}

}  // namespace

std::string MqdbBench::check_from_host() {
  const MqdbPair given = pair_;  // the student's to read, not the bench's own
  MqdbStruct* dA = mqdb_from_host(host_struct(given.a));
  MqdbStruct* dB = mqdb_from_host(host_struct(given.b));
  LAB_CHECK_LAUNCH();
  MqdbStruct a{}, b{};
  std::string wrong = deep_copy_mismatches(dA, pair_.a, a);
  if (wrong.empty()) wrong = deep_copy_mismatches(dB, pair_.b, b);
  if (!wrong.empty()) return wrong;  // (the copies stay allocated: the test ends here)
  // New blocks where the copies point, drawn now: a product made from the host's arrays
  // is not the product of these, which exist only on the device.
  const std::uint64_t seed = harness::fresh_seed();
  fill(const_cast<float*>(a.elem), const_cast<float*>(b.elem), seed);
  d_c_.poison();
  mqdb_struct_product(dA, dB, d_c_.get(), n());
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  Mqdb drawn_a = pair_.a, drawn_b = pair_.b;  // made again, not read from the copies
  fill(d_check_a_.get(), d_check_b_.get(), seed);
  d_check_a_.download(drawn_a.elem);
  d_check_b_.download(drawn_b.elem);
  wrong = compare_with(drawn_a, drawn_b);
  mqdb_free(dA);
  mqdb_free(dB);
  LAB_CHECK_LAUNCH();
  if (wrong.empty()) return "";
  return "mqdb_struct_product is wrong for the blocks the harness drew on the device after "
         "mqdb_from_host returned (a product made on the host, from the host's arrays, is "
         "wrong for them; multiply on the device what the device structs point to):\n" +
         wrong;
}

long long MqdbBench::from_host_leak(int calls) {
  std::size_t free_before = 0, free_after = 0, total = 0;
  harness::synchronize_or_die();
  LAB_CUDA_CHECK(cudaMemGetInfo(&free_before, &total));
  const MqdbPair given = pair_;
  for (int i = 0; i < calls; ++i) {
    MqdbStruct* dA = mqdb_from_host(host_struct(given.a));
    MqdbStruct* dB = mqdb_from_host(host_struct(given.b));
    mqdb_struct_product(dA, dB, d_c_.get(), n());
    mqdb_free(dA);
    mqdb_free(dB);
  }
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

// Every run on new blocks (same D): the launchers' views stay valid.
harness::TimingStats MqdbBench::time_fresh(const std::function<void()>& launch,
                                           const harness::TimingOptions& options) {
  return harness::time_fresh(launch, harness::doing_at_least(options, bytes_moved(), flops()),
                             {{harness::output_of(d_c_)},
                              [&] { return compare_on_device(); },
                              [&](std::uint64_t seed) { redraw(seed); },
                              {},
                              [&] { restore(); }});
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

harness::TimingStats MqdbBench::time_dense_cublas(const harness::TimingOptions& options) {
  CublasSgemm& blas = cublas_of(cublas_);
  return harness::time_gpu([&] { blas.run(d_a_.get(), d_b_.get(), d_c_.get(), n(), n(), n()); },
                           harness::doing_at_least(options, bytes_moved(), flops()));
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
