// lab1's harness (lab1.hpp): the variants, the CPU reference, the bench, the colour
// images' variants, reference and bench, and the atomic operations' checks.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "lab1.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/fresh.hpp"
#include "labs/named.hpp"
#include "labs/parallel.hpp"
#include "labs/random.hpp"
#include "labs/redraw.cuh"
#include "labs/sync.hpp"

namespace lab1 {

// ---- The variants -----------------------------------------------------------

const std::vector<Variant>& variants() {
  // Defaults reproduce rows of the course's tables for 2^25 samples.
  static const std::vector<Variant> table = {
      {"global", "a", histogram_global, Work::SlicePerThread, {0, 512, 1024}},
      {"global_unroll", "b", histogram_global_unroll, Work::SlicePerThread, {0, 512, 1024}},
      {"global_ilp4", "c", histogram_global_ilp4, Work::SlicePerThread, {0, 512, 512}},
      {"one_per_thread", "d", histogram_one_per_thread, Work::SlicePerThread, {0, 512, 1}},
      {"shared", "e", histogram_shared, Work::SlicePerThread, {0, 256, 32}},
      {"inverse", "f", histogram_inverse, Work::ChunkPerBlock, {0, 1024, 8192}},
      {"banks", "g", histogram_banks, Work::ChunkPerBlock, {0, 1024, 1024}},
      {"banks2", "g2", histogram_banks2, Work::ChunkPerBlock, {0, 512, 1024}},
      {"banks4", "g4", histogram_banks4, Work::ChunkPerBlock, {0, 256, 1024}},
      {"best", "h", histogram_best, Work::Free, {0, 512, 0}},
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
}

namespace {

void check_threads(int threads) {
  if (threads < 1 || threads > 1024) {
    throw std::invalid_argument("threads per block must be 1..1024, not " +
                                std::to_string(threads));
  }
}

}  // namespace

Launch resolve_launch(const Variant& v, long long n, Launch requested) {
  Launch l = requested;
  check_threads(l.threads);
  if (v.work == Work::Free) return l;  // blocks 0: the variant picks its grid
  if (v.name == std::string("one_per_thread")) l.slice = 1;
  if (l.slice < 1) throw std::invalid_argument("slice must be at least 1");
  if (v.work == Work::ChunkPerBlock && l.slice > 10240) {
    throw std::invalid_argument(
        "slice (samples per block) must be at most 10240 to fit in "
        "40 KiB of shared memory, not " +
        std::to_string(l.slice));
  }
  const long long per_block =
      v.work == Work::SlicePerThread ? static_cast<long long>(l.threads) * l.slice : l.slice;
  const long long needed = (n + per_block - 1) / per_block;
  if (l.blocks == 0) {
    if (needed > 0x7fffffffLL) throw std::invalid_argument("grid too large: raise slice");
    l.blocks = static_cast<int>(needed);
  } else if (l.blocks < needed) {
    throw std::invalid_argument(
        std::to_string(l.blocks) + " blocks x " + std::to_string(per_block) +
        " samples per block cover " + std::to_string(l.blocks * per_block) +
        " samples, fewer than n = " + std::to_string(n) + ": use at least " +
        std::to_string(needed) + " blocks, or leave --blocks out");
  }
  return l;
}

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.blocks << " blocks x " << l.threads << " threads, slice " << l.slice;
}

// ---- The CPU reference and the datasets -------------------------------------

std::vector<int> histogram_cpu(const std::vector<int>& samples) {
  std::vector<int> hist(kBins, 0);
  for (int v : samples) ++hist[v];
  return hist;
}

void check_samples_in_range(const std::vector<int>& samples, const std::string& path) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i] < 0 || samples[i] >= kBins) {
      throw harness::DatasetError(path + ": sample " + std::to_string(i) + " is " +
                                  std::to_string(samples[i]) + ", outside 0.." +
                                  std::to_string(kBins - 1) + ": not a 10-bit dataset");
    }
  }
}

std::vector<int> load_samples(const std::string& path, long long expected_count) {
  std::vector<int> samples = harness::read_binary_file<int>(path, expected_count);
  check_samples_in_range(samples, path);
  return samples;
}

// ---- The bench --------------------------------------------------------------

HistogramBench::HistogramBench(std::vector<int> samples)
    : samples_(std::move(samples)),
      expected_(histogram_cpu(samples_)),
      d_samples_(samples_),
      d_base_(samples_),
      d_hist_(kBins),
      d_truth_(kBins),
      d_cub_temp_(cub_histogram_temp_bytes(static_cast<int>(samples_.size()))) {
  // A launcher may only read its samples (and never sees the base): both are checked
  // against the host's record after every call, the samples but while redrawn.
  d_samples_.seal(samples_);
  d_base_.seal(samples_);
}

std::string HistogramBench::compare() {
  harness::synchronize_or_die();
  last_ = d_hist_.download();
  return harness::describe_mismatches(expected_, last_, "bin");
}

std::string HistogramBench::check(Launcher run, Launch launch) {
  restore();
  d_hist_.poison();
  run(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), launch);
  LAB_CHECK_LAUNCH();
  return compare();
}

std::string HistogramBench::check_cub() {
  d_hist_.poison();
  cub_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), d_cub_temp_.get(),
                d_cub_temp_.bytes());
  return compare();
}

std::string HistogramBench::compare_with_cub() {
  cub_histogram(d_samples_.get(), static_cast<int>(n()), d_truth_.get(), d_cub_temp_.get(),
                d_cub_temp_.bytes());
  harness::synchronize_or_die();
  last_ = d_hist_.download();
  return harness::describe_mismatches(d_truth_.download(), last_, "bin");
}

harness::TimingStats HistogramBench::time(Launcher run, Launch launch,
                                          const harness::TimingOptions& options) {
  d_samples_.unseal();
  return harness::time_fresh(
      [&] { run(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), launch); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_hist_)},
       [&] { return compare_with_cub(); },
       [&](std::uint64_t seed) {
         harness::resampled(d_base_.get(), d_base_.size(), d_samples_.get(), d_samples_.size(),
                            seed);
       },
       {harness::region_of(d_samples_)},
       [&] {
         restore();
         d_samples_.reseal();
       },
       {harness::region_of(d_samples_)}});
}

void HistogramBench::restore() {
  LAB_CUDA_CHECK(
      cudaMemcpy(d_samples_.get(), d_base_.get(), d_base_.bytes(), cudaMemcpyDeviceToDevice));
}

harness::TimingStats HistogramBench::time_course_global(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] { course_global_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get()); },
      harness::doing_at_least(options, bytes_moved()));
}

harness::TimingStats HistogramBench::time_cub(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] {
        cub_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), d_cub_temp_.get(),
                      d_cub_temp_.bytes());
      },
      harness::doing_at_least(options, bytes_moved()));
}

// ---- The colour images ------------------------------------------------------------

const std::vector<ColourVariant>& colour_variants() {
  static const std::vector<ColourVariant> table = {
      {"rgb", "l", histogram_rgb, Colour::Rgb, kChannels, kColourBins},
      {"hue", "m", histogram_hue, Colour::Hue, 1, kHueBins},
  };
  return table;
}

const ColourVariant& find_colour_variant(const std::string& name) {
  return harness::find_by_name(colour_variants(), name);
}

Launch resolve_colour_launch(Launch requested) {
  check_threads(requested.threads);
  if (requested.blocks < 1) {
    throw std::invalid_argument("blocks must be at least 1, not " +
                                std::to_string(requested.blocks));
  }
  return Launch{requested.blocks, requested.threads, 0};
}

namespace {

__host__ __device__ int larger(int a, int b) { return a > b ? a : b; }
__host__ __device__ int smaller(int a, int b) { return a < b ? a : b; }

// The contract's hue bin (histogram.cuh, (m)), in integers: the CPU reference and the
// device's check compute the same one.
__host__ __device__ int hue_bin(int r, int g, int b) {
  const int top = larger(r, larger(g, b));
  const int d = top - smaller(r, smaller(g, b));
  if (d == 0) return kHueGrey;
  int h6 = top == r ? 60 * (g - b) : top == g ? 60 * (b - r) + 120 * d : 60 * (r - g) + 240 * d;
  if (h6 < 0) h6 += 360 * d;
  return h6 / d;
}

// Value `plane` of pixel p: its channel (rgb: 0 red, 1 green, 2 blue), its hue bin (hue).
__host__ __device__ int plane_value(Colour kind, uchar4 p, int plane) {
  if (kind == Colour::Hue) return hue_bin(p.x, p.y, p.z);
  return plane == 0 ? p.x : plane == 1 ? p.y : p.z;
}

// Writes the planes of values of the image's pixels, plane c at out + c * stride: the
// inputs of the single-channel baseline (rgb), and what CUB's histograms check.
__global__ void planes_kernel(Colour kind, int planes, const uchar4* image, int n, int* out,
                              std::size_t stride) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const uchar4 p = image[i];
    for (int c = 0; c < planes; ++c) out[c * stride + i] = plane_value(kind, p, c);
  }
}

// Plane starts 256-byte aligned, as the contract promises the single-channel launchers.
std::size_t plane_stride(std::size_t n) { return (n + 63) / 64 * 64; }

}  // namespace

std::vector<uchar4> load_image(const std::string& path, long long expected_pixels) {
  static_assert(sizeof(uchar4) == sizeof(std::int32_t), "one pixel per int32");
  const std::vector<std::int32_t> packed =
      harness::read_binary_file<std::int32_t>(path, expected_pixels);
  std::vector<uchar4> image(packed.size());
  std::memcpy(image.data(), packed.data(), packed.size() * sizeof(std::int32_t));
  return image;
}

std::vector<int> colour_histogram_cpu(const ColourVariant& v, const std::vector<uchar4>& image) {
  const std::vector<std::vector<int>> parts = harness::map_ranges<std::vector<int>>(
      image.size(), 1 << 16, [&](std::size_t begin, std::size_t end) {
        std::vector<int> hist(v.bins(), 0);
        for (std::size_t i = begin; i < end; ++i) {
          for (int c = 0; c < v.planes; ++c)
            ++hist[c * v.plane_bins + plane_value(v.kind, image[i], c)];
        }
        return hist;
      });
  std::vector<int> hist(v.bins(), 0);
  for (const std::vector<int>& part : parts) {
    for (int b = 0; b < v.bins(); ++b) hist[b] += part[b];
  }
  return hist;
}

ColourBench::ColourBench(std::vector<uchar4> image)
    : image_(std::move(image)),
      d_image_(image_),
      d_base_(image_),
      d_planes_(kChannels * plane_stride(image_.size())),
      d_truth_(kBins),
      d_cub_temp_(cub_histogram_temp_bytes(static_cast<int>(image_.size()))) {
  d_image_.seal(image_);  // HistogramBench's reason
  d_base_.seal(image_);
}

const std::vector<int>& ColourBench::expected(const ColourVariant& v) {
  std::vector<int>& cached = expected_[static_cast<int>(v.kind)];
  if (cached.empty()) cached = colour_histogram_cpu(v, image_);
  return cached;
}

std::string ColourBench::check(const ColourVariant& v, Launch launch) {
  restore();
  harness::DeviceBuffer<int> hist(v.bins());
  hist.poison();
  v.run(d_image_.get(), static_cast<int>(n()), hist.get(), launch);
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  last_ = hist.download();
  return harness::describe_mismatches(expected(v), last_, "bin");
}

void ColourBench::make_planes(Colour kind, int planes) {
  const long long blocks = std::min<long long>((n() + 255) / 256, 4096);
  planes_kernel<<<static_cast<int>(blocks), 256>>>(kind, planes, d_image_.get(),
                                                   static_cast<int>(n()), d_planes_.get(),
                                                   plane_stride(image_.size()));
  LAB_CHECK_LAUNCH();
}

std::string ColourBench::compare_with_cub(const harness::DeviceBuffer<int>& hist, int planes,
                                          int bins) {
  harness::synchronize_or_die();  // the run checked first, with the deadline
  last_ = hist.download();
  std::vector<int> truth;
  for (int c = 0; c < planes; ++c) {
    cub_histogram(d_planes_.get() + c * plane_stride(image_.size()), static_cast<int>(n()),
                  d_truth_.get(), d_cub_temp_.get(), d_cub_temp_.bytes());
    const std::vector<int> plane = d_truth_.download();
    truth.insert(truth.end(), plane.begin(), plane.begin() + bins);
  }
  return harness::describe_mismatches(truth, last_, "bin");
}

void ColourBench::redraw(std::uint64_t seed) {
  harness::resampled(d_base_.get(), d_base_.size(), d_image_.get(), d_image_.size(), seed);
}

void ColourBench::restore() {
  LAB_CUDA_CHECK(
      cudaMemcpy(d_image_.get(), d_base_.get(), d_base_.bytes(), cudaMemcpyDeviceToDevice));
  d_image_.reseal();
}

harness::TimingStats ColourBench::time(const ColourVariant& v, Launch launch,
                                       const harness::TimingOptions& options) {
  harness::DeviceBuffer<int> hist(v.bins());
  d_image_.unseal();
  return harness::time_fresh(
      [&] { v.run(d_image_.get(), static_cast<int>(n()), hist.get(), launch); },
      harness::doing_at_least(options, bytes_moved(v)),
      {{harness::output_of(hist)},
       [&] {
         make_planes(v.kind, v.planes);
         return compare_with_cub(hist, v.planes, v.plane_bins);
       },
       [&](std::uint64_t seed) { redraw(seed); },
       {harness::region_of(d_image_)},
       [&] { restore(); },
       {harness::region_of(d_image_)}});
}

void ColourBench::run_per_channel(Launcher single, Launch launch,
                                  harness::DeviceBuffer<int>& hist) {
  for (int c = 0; c < kChannels; ++c) {
    single(d_planes_.get() + c * plane_stride(image_.size()), static_cast<int>(n()),
           hist.get() + c * kBins, launch);
  }
}

harness::TimingStats ColourBench::time_per_channel(Launcher single, Launch launch,
                                                   const harness::TimingOptions& options) {
  harness::DeviceBuffer<int> hist(kChannels * kBins);
  d_image_.unseal();
  return harness::time_fresh([&] { run_per_channel(single, launch, hist); },
                             harness::doing_at_least(options, bytes_moved_per_channel()),
                             {{harness::output_of(hist)},
                              [&] { return compare_with_cub(hist, kChannels, kBins); },
                              [&](std::uint64_t seed) {
                                redraw(seed);
                                make_planes(Colour::Rgb, kChannels);
                              },
                              {harness::region_of(d_planes_)},
                              [&] { restore(); },
                              {harness::region_of(d_planes_)}});
}

// ---- The atomic operations ----------------------------------------------------

namespace {

Launch covering(int n, int threads) { return Launch{(n + threads - 1) / threads, threads, 0}; }

// Waits for the student's launch with the deadline: a CAS loop that never ends fails.
void finish_launch() {
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
}

template <class T>
std::string expect_equal(const std::string& what, T expected, T got) {
  if (expected == got) return "";
  return what + ": expected " + std::to_string(expected) + ", got " + std::to_string(got) + "\n";
}

// In any order of the atomic steps, the values they replaced plus the final value are
// the initial value plus the values they wrote (as multisets): each step reads what
// the one before it wrote. A lost update or a return that is not the replaced value
// breaks it.
template <class T>
std::string expect_chain(const std::string& what, T initial, T final_value, std::vector<T> replaced,
                         std::vector<T> written) {
  replaced.push_back(final_value);
  written.push_back(initial);
  std::sort(replaced.begin(), replaced.end());
  std::sort(written.begin(), written.end());
  if (replaced == written) return "";
  return what +
         ": the returned values and the final value are not the initial value and the "
         "values written (a return that is not the value replaced, or a lost update)\n";
}

std::uint32_t random_u32(std::uint64_t seed, std::uint64_t i) {
  return static_cast<std::uint32_t>(harness::splitmix64_at(seed, i));
}

}  // namespace

std::string check_atomic_catalogue(int n, int threads, std::uint64_t seed) {
  // Initial values that let either side win atomicMax and atomicMin, cross the limits of
  // atomicInc (17) and atomicDec (137), and name no thread in the atomicExch slot.
  std::vector<int> init(kSlots);
  const std::uint32_t un = static_cast<std::uint32_t>(n);
  init[kSlotAdd] = static_cast<int>(random_u32(seed, kSlotAdd));
  init[kSlotSub] = static_cast<int>(random_u32(seed, kSlotSub));
  init[kSlotExch] = -1 - static_cast<int>(random_u32(seed, kSlotExch) % 1000);
  init[kSlotMax] = static_cast<int>(random_u32(seed, kSlotMax) % (2 * un));
  init[kSlotMin] = static_cast<int>(random_u32(seed, kSlotMin) % (2 * un)) - n;
  init[kSlotInc] = static_cast<int>(random_u32(seed, kSlotInc) % 24);
  init[kSlotDec] = static_cast<int>(random_u32(seed, kSlotDec) % 160);
  init[kSlotCas] = -1;
  init[kSlotAnd] = static_cast<int>(random_u32(seed, kSlotAnd));
  init[kSlotOr] = static_cast<int>(random_u32(seed, kSlotOr));
  init[kSlotXor] = static_cast<int>(random_u32(seed, kSlotXor));

  // The CPU's: every operation but atomicExch's and atomicCAS's ends the same in any order.
  auto u = [&](int slot) { return static_cast<std::uint32_t>(init[slot]); };
  std::uint32_t inc = u(kSlotInc), dec = u(kSlotDec), all_and = u(kSlotAnd), any_or = u(kSlotOr),
                xored = u(kSlotXor);
  for (std::uint32_t t = 0; t < un; ++t) {
    inc = inc >= 17 ? 0 : inc + 1;
    dec = dec == 0 || dec > 137 ? 137 : dec - 1;
    all_and &= 2 * t + 7;
    any_or |= 1u << (t % 32);
    xored ^= t;
  }

  harness::DeviceBuffer<int> d_slots(init), d_exch(n), d_cas(n);
  d_exch.poison();
  d_cas.poison();
  atomic_catalogue(d_slots.get(), d_exch.get(), d_cas.get(), n, covering(n, threads));
  finish_launch();
  const std::vector<int> slots = d_slots.download(), exch = d_exch.download(),
                         cas = d_cas.download();
  auto got = [&](int slot) { return static_cast<std::uint32_t>(slots[slot]); };

  std::string wrong;
  wrong += expect_equal("atomicAdd", u(kSlotAdd) + 10 * un, got(kSlotAdd));
  wrong += expect_equal("atomicSub", u(kSlotSub) - 10 * un, got(kSlotSub));
  wrong += expect_equal("atomicMax", std::max(init[kSlotMax], n - 1), slots[kSlotMax]);
  wrong += expect_equal("atomicMin", std::min(init[kSlotMin], 0), slots[kSlotMin]);
  wrong += expect_equal("atomicInc", inc, got(kSlotInc));
  wrong += expect_equal("atomicDec", dec, got(kSlotDec));
  wrong += expect_equal("atomicAnd", all_and, got(kSlotAnd));
  wrong += expect_equal("atomicOr", any_or, got(kSlotOr));
  wrong += expect_equal("atomicXor", xored, got(kSlotXor));
  std::vector<int> tids(n);
  for (int t = 0; t < n; ++t) tids[t] = t;
  wrong += expect_chain("atomicExch", init[kSlotExch], slots[kSlotExch], exch, tids);
  // atomicCAS(slot, -1, tid): exactly one thread finds -1 and writes its id; every
  // other one finds that id.
  const int owner = slots[kSlotCas];
  const bool claimed = owner >= 0 && owner < n && cas[owner] == -1 &&
                       std::count(cas.begin(), cas.end(), owner) == n - 1;
  if (!claimed) {
    wrong += "atomicCAS: the slot holds " + std::to_string(owner) +
             ": exactly one thread must find -1 and write its id, and every other find that id\n";
  }
  return wrong;
}

std::string check_threshold_flag(const std::vector<int>& values, int threshold, int threads) {
  const int n = static_cast<int>(values.size());
  const bool above =
      std::any_of(values.begin(), values.end(), [&](int v) { return v > threshold; });
  harness::DeviceBuffer<int> d_values(values), d_flag(1);
  d_flag.poison();
  check_threshold(d_values.get(), n, threshold, d_flag.get(), covering(n, threads));
  finish_launch();
  return expect_equal(std::string("flag (") + (above ? "some value is" : "no value is") +
                          " above the threshold " + std::to_string(threshold) + ")",
                      above ? 1 : 0, d_flag.download()[0]);
}

std::string check_atomic_multiply(int n, int threads, std::uint64_t seed) {
  // Odd factors: the product modulo 2^32 never reaches 0, whatever n.
  const std::vector<unsigned int> factors = harness::random_values<unsigned int>(
      n, seed, [](std::uint64_t x) { return static_cast<unsigned int>(x) | 1u; });
  const unsigned int initial = random_u32(seed ^ 0x5eedu, 0) | 1u;
  unsigned int product = initial;
  for (unsigned int f : factors) product *= f;

  harness::DeviceBuffer<unsigned int> d_product(std::vector<unsigned int>{initial}),
      d_factors(factors), d_old(n);
  d_old.poison();
  atomic_multiply(d_product.get(), d_factors.get(), d_old.get(), n, covering(n, threads));
  finish_launch();
  const unsigned int got = d_product.download()[0];
  const std::vector<unsigned int> old = d_old.download();
  std::vector<unsigned int> written(n);
  for (int i = 0; i < n; ++i) written[i] = old[i] * factors[i];
  return expect_equal("product", product, got) +
         expect_chain("atomic_multiply", initial, got, old, written);
}

}  // namespace lab1
