// lab6's harness (lab6.hpp): the scan variants, the CPU reference of the pipeline,
// the inputs, the device reference and the image draws, the benches.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "lab6.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/fresh.hpp"
#include "labs/named.hpp"
#include "labs/random.hpp"
#include "labs/redraw.cuh"
#include "labs/sync.hpp"
#include "scan_levels.cuh"

namespace lab6 {

// ---- The scan variants ---------------------------------------------------------

const std::vector<ScanVariant>& scan_variants() {
  static const std::vector<ScanVariant> table = {
      {"three_kernel", "scan in three kernels", scan_three_kernel},
      {"lookback", "decoupled look-back", scan_lookback},
  };
  return table;
}

const ScanVariant& find_scan_variant(const std::string& name) {
  return harness::find_by_name(scan_variants(), name);
}

// ---- The three-kernel scan's levels (scan_levels.cuh) ----------------------------
// Here, not in a file of its own: every program links this object, and the student's
// launcher, linked after the harness, needs it.

// One level: scan the tiles, scan their totals (the same kernels, one level down,
// until they fit in one tile), add the scanned totals back. Each level's totals
// and their scan take 256-byte-aligned room at the front of the scratch.
void scan_levels(const ThreeKernelScan& k, const int* in, int* out, int n, Scratch scratch) {
  const int tiles = static_cast<int>((static_cast<long long>(n) + k.tile - 1) / k.tile);
  if (tiles == 1) {
    k.scan_tile<<<1, k.threads>>>(in, out, n, nullptr);
    return;
  }
  const std::size_t room = (static_cast<std::size_t>(tiles) + 63) / 64 * 64;
  int* totals = static_cast<int*>(scratch.data);
  int* scanned = totals + room;
  const Scratch rest{scanned + room, scratch.bytes - 2 * room * sizeof(int)};
  k.scan_tile<<<tiles, k.threads>>>(in, out, n, totals);
  scan_levels(k, totals, scanned, tiles, rest);
  k.add_tile_prefix<<<tiles, k.threads>>>(out, n, scanned);
}

// ---- The CPU reference ---------------------------------------------------------

std::vector<int> predicate_cpu(const std::vector<int>& buffer) {
  std::vector<int> predicate(buffer.size(), 0);
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    if (buffer[i] != kGarbage) predicate[i] = 1;
  }
  return predicate;
}

std::vector<int> inclusive_scan_cpu(const std::vector<int>& values) {
  std::vector<int> out(values.size());
  std::inclusive_scan(values.begin(), values.end(), out.begin());
  return out;
}

std::vector<int> exclusive_scan_cpu(const std::vector<int>& values) {
  std::vector<int> out(values.size());
  std::exclusive_scan(values.begin(), values.end(), out.begin(), 0);
  return out;
}

std::vector<int> compact_cpu(const std::vector<int>& buffer) {
  // The course's scatter, in place over a copy: address[i] <= i, so each element
  // is read before anything is written over it, one at a time.
  std::vector<int> out = buffer;
  const std::vector<int> address = exclusive_scan_cpu(predicate_cpu(buffer));
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    if (out[i] != kGarbage) out[address[i]] = out[i];
  }
  out.resize(std::count_if(buffer.begin(), buffer.end(), [](int v) { return v != kGarbage; }));
  return out;
}

void apply_map_cpu(std::vector<int>& image) {
  for (std::size_t i = 0; i < image.size(); ++i) {
    if (i % 4 == 0)
      image[i] += 1;
    else if (i % 4 == 1)
      image[i] -= 5;
    else if (i % 4 == 2)
      image[i] += 3;
    else if (i % 4 == 3)
      image[i] -= 8;
  }
}

std::vector<int> histogram_cpu(const std::vector<int>& image) {
  std::vector<int> histo(kBins, 0);
  for (int pixel : image) ++histo.at(pixel);
  return histo;
}

std::vector<int> cumulative_cpu(const std::vector<int>& histo) { return inclusive_scan_cpu(histo); }

int cdf_min_cpu(const std::vector<int>& cdf) {
  const auto first = std::find_if(cdf.begin(), cdf.end(), [](int v) { return v != 0; });
  return first == cdf.end() ? 0 : *first;
}

void equalize_cpu(std::vector<int>& image, const std::vector<int>& cdf, int cdf_min) {
  const int image_size = static_cast<int>(image.size());
  std::transform(image.begin(), image.end(), image.begin(), [&](int pixel) {
    // 0 / 0 is NaN, whose conversion to int C++ leaves undefined; the contract
    // (and a GPU's conversion) makes it 0.
    if (image_size == cdf_min) return 0;
    return static_cast<int>(
        std::roundf(((cdf[pixel] - cdf_min) / static_cast<float>(image_size - cdf_min)) * 255.0f));
  });
}

int total_cpu(const std::vector<int>& image) {
  return std::accumulate(image.begin(), image.end(), 0);
}

std::vector<int> fix_image_cpu(const std::vector<int>& buffer) {
  std::vector<int> image = compact_cpu(buffer);
  apply_map_cpu(image);
  const std::vector<int> cdf = cumulative_cpu(histogram_cpu(image));
  equalize_cpu(image, cdf, cdf_min_cpu(cdf));
  return image;
}

std::vector<unsigned> radix_pass_cpu(const std::vector<unsigned>& keys, int shift) {
  std::vector<unsigned> out = keys;
  std::stable_sort(out.begin(), out.end(), [shift](unsigned a, unsigned b) {
    return ((a >> shift) & 3u) < ((b >> shift) & 3u);
  });
  return out;
}

// ---- The inputs ----------------------------------------------------------------

long long check_image(const std::vector<int>& buffer, const std::string& path) {
  long long pixels = 0;
  for (std::size_t i = 0; i < buffer.size(); ++i) {
    if (buffer[i] == kGarbage) continue;
    const int mapped = buffer[i] + kMapDelta[pixels % 4];
    if (mapped < 0 || mapped >= kBins) {
      throw harness::DatasetError(
          path + ": value " + std::to_string(i) + " (" + std::to_string(buffer[i]) + ", pixel " +
          std::to_string(pixels) + ") maps to " + std::to_string(mapped) +
          ", outside the grey levels 0..255: not a lab6 image (datasets/lab6.json's "
          "corrupted_image writes them)");
    }
    ++pixels;
  }
  if (pixels == 0) {
    throw harness::DatasetError(path +
                                ": holds only garbage (-27): an image has one pixel or more");
  }
  if (pixels > kMaxImagePixels) {
    throw harness::DatasetError(path + ": holds " + std::to_string(pixels) +
                                " pixels, more than 2^23, past which their sum could overflow "
                                "an int");
  }
  return pixels;
}

CorruptedImage load_image(const std::string& path, long long expected_count) {
  CorruptedImage image;
  image.buffer = harness::read_binary_file<int>(path, expected_count);
  if (image.buffer.empty()) throw harness::DatasetError(path + ": holds no values; n must be >= 1");
  image.image_size = check_image(image.buffer, path);
  return image;
}

namespace {

// A value to scan, 0..7, from a random word: the inputs drawn on the host
// (random_values) and on the device (the timed runs').
struct ScanValue {
  __host__ __device__ int operator()(std::uint64_t r) const { return static_cast<int>(r >> 61); }
};

}  // namespace

std::vector<int> random_values(long long n, std::uint64_t seed) {
  return harness::random_values<int>(static_cast<std::size_t>(n), seed, ScanValue{});
}

// ---- The harness's own steps on the device -------------------------------------------

namespace {

constexpr int kThreads = 256;

int blocks_for(long long n) {
  return static_cast<int>(std::clamp((n + kThreads - 1) / kThreads, 1LL, 65535LL * 8));
}

#define LAB6_FOR_EACH(i, n)                                                                  \
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<long long>(gridDim.x) * blockDim.x)

__device__ int map_delta(long long i) {
  const int delta[4] = {kMapDelta[0], kMapDelta[1], kMapDelta[2], kMapDelta[3]};
  return delta[i & 3];
}

__global__ void predicate_kernel(const int* buffer, long long n, int* out) {
  LAB6_FOR_EACH(i, n) out[i] = buffer[i] != kGarbage ? 1 : 0;
}

__global__ void shift_kernel(const int* inclusive, long long n, int* exclusive) {
  LAB6_FOR_EACH(i, n) exclusive[i] = i == 0 ? 0 : inclusive[i - 1];
}

__global__ void scatter_kernel(const int* buffer, const int* addresses, long long n, int* out) {
  LAB6_FOR_EACH(i, n) {
    if (buffer[i] != kGarbage) out[addresses[i]] = buffer[i];
  }
}

__global__ void expand_kernel(const int* mask, const int* addresses, const int* pixels, long long n,
                              int* out) {
  LAB6_FOR_EACH(i, n) out[i] = mask[i] == kGarbage ? kGarbage : pixels[addresses[i]];
}

__global__ void map_kernel(const int* in, long long size, int sign, int* out) {
  LAB6_FOR_EACH(i, size) out[i] = in[i] + sign * map_delta(i);
}

__global__ void histogram_kernel(const int* image, long long size, int* histo) {
  __shared__ int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  LAB6_FOR_EACH(i, size) {
    const int level = image[i];
    if (level >= 0 && level < kBins) atomicAdd(&local[level], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&histo[b], local[b]);
  }
}

// 256 bins: one thread, in order, as the CPU.
__global__ void cumulative_kernel(const int* histo, int* cdf) {
  int sum = 0;
  for (int b = 0; b < kBins; ++b) cdf[b] = sum += histo[b];
}

__global__ void first_non_zero_kernel(const int* cdf, int* cdf_min) {
  int first = 0;
  for (int b = 0; b < kBins && first == 0; ++b) first = cdf[b];
  *cdf_min = first;
}

__global__ void equalize_kernel(const int* image, long long size, const int* cdf,
                                const int* cdf_min, int* out) {
  const int low = *cdf_min;
  const int pixels = static_cast<int>(size);
  LAB6_FOR_EACH(i, size) {
    const int level = image[i];
    if (pixels == low || level < 0 || level >= kBins) {
      out[i] = 0;  // one grey level: 0 / 0, which the contract makes 0
    } else {
      out[i] = static_cast<int>(
          roundf(((cdf[level] - low) / static_cast<float>(pixels - low)) * 255.0f));
    }
  }
}

__global__ void sum_kernel(const int* image, long long size, int* total) {
  int mine = 0;
  LAB6_FOR_EACH(i, size) mine += image[i];
  for (int offset = 16; offset > 0; offset /= 2)
    mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if (threadIdx.x % 32 == 0 && mine != 0) atomicAdd(total, mine);
}

#undef LAB6_FOR_EACH

template <class T>
struct Differs {
  const T* want;
  const T* got;
  __device__ bool operator()(std::size_t i) const { return !(want[i] == got[i]); }
};

template <class T>
std::string mismatches_of(const T* want, const T* got, long long n, const char* what) {
  if (harness::count_where(static_cast<std::size_t>(n), Differs<T>{want, got}) == 0) return "";
  std::vector<T> expected(static_cast<std::size_t>(n)), actual(expected.size());
  LAB_CUDA_CHECK(cudaMemcpy(expected.data(), want, sizeof(T) * n, cudaMemcpyDeviceToHost));
  LAB_CUDA_CHECK(cudaMemcpy(actual.data(), got, sizeof(T) * n, cudaMemcpyDeviceToHost));
  return harness::describe_mismatches(expected, actual, what);
}

// What shuffled() keeps of the buffer: where the garbage is (the pixels come after).
struct GarbageMask {
  __device__ int operator()(int value, std::uint64_t) const {
    return value == kGarbage ? kGarbage : 0;
  }
};

}  // namespace

std::string device_mismatches(const int* want, const int* got, long long n, const char* what) {
  return mismatches_of(want, got, n, what);
}

std::string device_mismatches(const unsigned* want, const unsigned* got, long long n,
                              const char* what) {
  return mismatches_of(want, got, n, what);
}

DeviceReference::DeviceReference(long long n)
    : predicate_(n),
      inclusive_(n),
      exclusive_(n),
      histo_(kBins),
      cdf_(kBins),
      cdf_min_(1),
      temp_(cub_scan_temp_bytes(static_cast<int>(n))) {}

void DeviceReference::predicate(const int* buffer, int n, int* out) {
  predicate_kernel<<<blocks_for(n), kThreads>>>(buffer, n, out);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::inclusive_scan(const int* in, int n, int* out) {
  cub_inclusive_scan(in, out, n, temp_.get(), temp_.bytes());
}

void DeviceReference::shift(const int* inclusive, int n, int* exclusive) {
  shift_kernel<<<blocks_for(n), kThreads>>>(inclusive, n, exclusive);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::scatter(const int* buffer, const int* addresses, int n, int* out) {
  scatter_kernel<<<blocks_for(n), kThreads>>>(buffer, addresses, n, out);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::compact(const int* buffer, int n, int* out) {
  predicate(buffer, n, predicate_.get());
  inclusive_scan(predicate_.get(), n, inclusive_.get());
  shift(inclusive_.get(), n, exclusive_.get());
  scatter(buffer, exclusive_.get(), n, out);
}

void DeviceReference::expand(const int* mask, int n, const int* pixels, int* out) {
  predicate(mask, n, predicate_.get());
  inclusive_scan(predicate_.get(), n, inclusive_.get());
  shift(inclusive_.get(), n, exclusive_.get());
  expand_kernel<<<blocks_for(n), kThreads>>>(mask, exclusive_.get(), pixels, n, out);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::map(const int* in, int size, int sign, int* out) {
  map_kernel<<<blocks_for(size), kThreads>>>(in, size, sign, out);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::histogram(const int* image, int size, int* histo) {
  LAB_CUDA_CHECK(cudaMemsetAsync(histo, 0, sizeof(int) * kBins));
  histogram_kernel<<<std::min(blocks_for(size), 1024), kThreads>>>(image, size, histo);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::cumulative(const int* histo, int* cdf) {
  cumulative_kernel<<<1, 1>>>(histo, cdf);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::first_non_zero(const int* cdf, int* cdf_min) {
  first_non_zero_kernel<<<1, 1>>>(cdf, cdf_min);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::equalize(const int* image, int size, const int* cdf, const int* cdf_min,
                               int* out) {
  equalize_kernel<<<blocks_for(size), kThreads>>>(image, size, cdf, cdf_min, out);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::sum(const int* image, int size, int* total) {
  LAB_CUDA_CHECK(cudaMemsetAsync(total, 0, sizeof(int)));
  sum_kernel<<<blocks_for(size), kThreads>>>(image, size, total);
  LAB_CHECK_LAUNCH();
}

void DeviceReference::fix_image(const int* buffer, int n, int size, int* image, int* total) {
  compact(buffer, n, image);
  map(image, size, 1, image);
  histogram(image, size, histo_.get());
  cumulative(histo_.get(), cdf_.get());
  first_non_zero(cdf_.get(), cdf_min_.get());
  equalize(image, size, cdf_.get(), cdf_min_.get(), image);
  sum(image, size, total);
}

ImageDraw::ImageDraw(const CorruptedImage& image, DeviceReference& steps)
    : n_(static_cast<int>(image.n())),
      size_(static_cast<int>(image.image_size)),
      steps_(steps),
      buffer_(image.buffer),
      mapped_(image.image_size),
      pixels_(image.image_size) {
  steps_.compact(buffer_.get(), n_, mapped_.get());
  steps_.map(mapped_.get(), size_, 1, mapped_.get());
  // The redraws' sources, sealed: the buffer against the dataset, the mapped levels
  // against what the harness's own steps made of it, read back before any launcher ran.
  buffer_.seal(image.buffer);
  mapped_.seal(mapped_.download());
}

void ImageDraw::mapped(std::uint64_t seed, int* out) {
  harness::resampled(mapped_.get(), mapped_.size(), out, size_, seed);
}

void ImageDraw::pixels(std::uint64_t seed, int* out) {
  mapped(seed, out);
  steps_.map(out, size_, -1, out);
}

void ImageDraw::buffer(std::uint64_t seed, int* out) {
  harness::shuffled(buffer_.get(), out, n_, seed, GarbageMask{});
  pixels(harness::splitmix64_mix(~seed), pixels_.get());
  steps_.expand(out, n_, pixels_.get(), out);
}

// ---- ScanBench ---------------------------------------------------------------------

ScanBench::ScanBench(std::vector<int> values)
    : values_(std::move(values)),
      expected_(inclusive_scan_cpu(values_)),
      d_in_(values_),
      d_inclusive_(expected_),
      d_out_(values_.size()),
      d_scratch_(scratch_bytes(n())),
      d_cub_temp_(cub_scan_temp_bytes(static_cast<int>(n()))) {}

Scratch ScanBench::scratch() { return Scratch{d_scratch_.get(), d_scratch_.bytes()}; }

std::string ScanBench::compare() {
  harness::synchronize_or_die();
  return harness::describe_mismatches(expected_, d_out_.download(), "element");
}

std::string ScanBench::check(const ScanVariant& v) {
  d_out_.poison();
  d_scratch_.poison();
  v.run(d_in_.get(), d_out_.get(), static_cast<int>(n()), scratch());
  LAB_CHECK_LAUNCH();
  return compare();
}

std::string ScanBench::check_cub() {
  d_out_.poison();
  cub_inclusive_scan(d_in_.get(), d_out_.get(), static_cast<int>(n()), d_cub_temp_.get(),
                     d_cub_temp_.bytes());
  return compare();
}

std::string ScanBench::check_shift() {
  d_out_.poison();
  shift_exclusive(d_inclusive_.get(), d_out_.get(), static_cast<int>(n()));
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  return harness::describe_mismatches(exclusive_scan_cpu(values_), d_out_.download(), "element");
}

harness::TimingStats ScanBench::time(const ScanVariant& v, const harness::TimingOptions& options) {
  const int count = static_cast<int>(n());
  harness::DeviceBuffer<int> fresh(values_.size()), truth(values_.size());
  return harness::time_fresh([&] { v.run(fresh.get(), d_out_.get(), count, scratch()); },
                             harness::doing_at_least(options, bytes_moved()),
                             {{harness::output_of(d_out_), harness::output_of(d_scratch_)},
                              [&] {
                                cub_inclusive_scan(fresh.get(), truth.get(), count,
                                                   d_cub_temp_.get(), d_cub_temp_.bytes());
                                return device_mismatches(truth.get(), d_out_.get(), n(), "element");
                              },
                              [&](std::uint64_t seed) {
                                harness::drawn(fresh.get(), values_.size(), seed, ScanValue{});
                              }});
}

harness::TimingStats ScanBench::time_cub(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] {
        cub_inclusive_scan(d_in_.get(), d_out_.get(), static_cast<int>(n()), d_cub_temp_.get(),
                           d_cub_temp_.bytes());
      },
      harness::doing_at_least(options, bytes_moved()));
}

// ---- CompactionBench -----------------------------------------------------------------

CompactionBench::CompactionBench(CorruptedImage image)
    : image_(std::move(image)),
      predicate_(predicate_cpu(image_.buffer)),
      inclusive_(inclusive_scan_cpu(predicate_)),
      exclusive_(exclusive_scan_cpu(predicate_)),
      pixels_(compact_cpu(image_.buffer)),
      d_buffer_(image_.buffer.size()),
      d_predicate_(image_.buffer.size()),
      d_inclusive_(image_.buffer.size()),
      d_exclusive_(image_.buffer.size()),
      d_a_(image_.buffer.size()),
      d_b_(image_.buffer.size()),
      d_c_(image_.buffer.size()),
      d_scratch_(scratch_bytes(n())) {
  upload();
}

void CompactionBench::upload() {
  d_buffer_.upload(image_.buffer);
  d_predicate_.upload(predicate_);
  d_inclusive_.upload(inclusive_);
  d_exclusive_.upload(exclusive_);
}

Scratch CompactionBench::scratch() { return Scratch{d_scratch_.get(), d_scratch_.bytes()}; }

// The first image_size elements of `buffer` (what a compaction writes).
static std::vector<int> head(const harness::DeviceBuffer<int>& buffer, long long count) {
  std::vector<int> all = buffer.download();
  all.resize(static_cast<std::size_t>(count));
  return all;
}

std::string CompactionBench::compare_predicate() {
  harness::synchronize_or_die();
  return harness::describe_mismatches(predicate_, d_a_.download(), "predicate element");
}

std::string CompactionBench::compare_scan() {
  harness::synchronize_or_die();
  return harness::describe_mismatches(inclusive_, d_b_.download(), "element");
}

std::string CompactionBench::compare_shift() {
  harness::synchronize_or_die();
  return harness::describe_mismatches(exclusive_, d_a_.download(), "element");
}

std::string CompactionBench::compare_scatter() {
  harness::synchronize_or_die();
  return harness::describe_mismatches(pixels_, head(d_c_, image_size()), "pixel");
}

std::string CompactionBench::compare_compaction() { return compare_scatter(); }

std::string CompactionBench::check_predicate() {
  d_a_.poison();
  build_predicate(d_buffer_.get(), static_cast<int>(n()), d_a_.get());
  LAB_CHECK_LAUNCH();
  return compare_predicate();
}

std::string CompactionBench::check_scan(const ScanVariant& v) {
  d_b_.poison();
  d_scratch_.poison();
  v.run(d_predicate_.get(), d_b_.get(), static_cast<int>(n()), scratch());
  LAB_CHECK_LAUNCH();
  return compare_scan();
}

std::string CompactionBench::check_shift() {
  d_a_.poison();
  shift_exclusive(d_inclusive_.get(), d_a_.get(), static_cast<int>(n()));
  LAB_CHECK_LAUNCH();
  return compare_shift();
}

std::string CompactionBench::check_scatter() {
  d_c_.poison();
  scatter(d_buffer_.get(), d_exclusive_.get(), static_cast<int>(n()), d_c_.get());
  LAB_CHECK_LAUNCH();
  return compare_scatter();
}

// predicate -> a, scan a -> b, shift b -> a, scatter with a -> c.
void CompactionBench::run_compaction(const ScanVariant& v) {
  const int count = static_cast<int>(n());
  build_predicate(d_buffer_.get(), count, d_a_.get());
  v.run(d_a_.get(), d_b_.get(), count, scratch());
  shift_exclusive(d_b_.get(), d_a_.get(), count);
  scatter(d_buffer_.get(), d_a_.get(), count, d_c_.get());
}

std::string CompactionBench::check_compaction(const ScanVariant& v) {
  d_a_.poison();
  d_b_.poison();
  d_c_.poison();
  d_scratch_.poison();
  run_compaction(v);
  LAB_CHECK_LAUNCH();
  return compare_compaction();
}

// Every run on a new image like the bench's, with the step's other inputs derived
// from it (never the step's own answer), checked against the harness's answer for
// them, computed after the run.
harness::TimingStats CompactionBench::time_stage(Stage stage, const std::function<void()>& launch,
                                                 const harness::TimingOptions& options,
                                                 double bytes,
                                                 std::vector<harness::Output> outputs) {
  const int count = static_cast<int>(n());
  DeviceReference steps(n());
  ImageDraw draw(image_, steps);
  harness::DeviceBuffer<int> truth(image_.buffer.size());
  const auto redraw = [&](std::uint64_t seed) {
    draw.buffer(seed, d_buffer_.get());
    if (stage == Stage::Predicate || stage == Stage::Compaction) return;
    steps.predicate(d_buffer_.get(), count, d_predicate_.get());
    if (stage == Stage::Scan) return;
    steps.inclusive_scan(d_predicate_.get(), count, d_inclusive_.get());
    if (stage == Stage::Shift) return;
    steps.shift(d_inclusive_.get(), count, d_exclusive_.get());
  };
  const auto check = [&]() -> std::string {
    switch (stage) {
      case Stage::Predicate:
        steps.predicate(d_buffer_.get(), count, truth.get());
        return device_mismatches(truth.get(), d_a_.get(), n(), "predicate element");
      case Stage::Scan:
        steps.inclusive_scan(d_predicate_.get(), count, truth.get());
        return device_mismatches(truth.get(), d_b_.get(), n(), "element");
      case Stage::Shift:
        steps.shift(d_inclusive_.get(), count, truth.get());
        return device_mismatches(truth.get(), d_a_.get(), n(), "element");
      case Stage::Scatter:
        steps.scatter(d_buffer_.get(), d_exclusive_.get(), count, truth.get());
        break;
      case Stage::Compaction:
        steps.compact(d_buffer_.get(), count, truth.get());
        break;
    }
    return device_mismatches(truth.get(), d_c_.get(), image_size(), "pixel");
  };
  return harness::time_fresh(launch, harness::doing_at_least(options, bytes),
                             {std::move(outputs), check, redraw, {}, [&] { upload(); }});
}

harness::TimingStats CompactionBench::time_step(Step step, const harness::TimingOptions& options) {
  const int count = static_cast<int>(n());
  switch (step) {
    case Step::Predicate:
      return time_stage(Stage::Predicate,
                        [&] { build_predicate(d_buffer_.get(), count, d_a_.get()); }, options,
                        predicate_bytes(), {harness::output_of(d_a_)});
    case Step::Shift:
      return time_stage(Stage::Shift,
                        [&] { shift_exclusive(d_inclusive_.get(), d_a_.get(), count); }, options,
                        scan_bytes(), {harness::output_of(d_a_)});
    case Step::Scatter:
      break;
  }
  return time_stage(Stage::Scatter,
                    [&] { scatter(d_buffer_.get(), d_exclusive_.get(), count, d_c_.get()); },
                    options, scatter_bytes(), {harness::output_of(d_c_)});
}

harness::TimingStats CompactionBench::time_scan(const ScanVariant& v,
                                                const harness::TimingOptions& options) {
  return time_stage(
      Stage::Scan, [&] { v.run(d_predicate_.get(), d_b_.get(), static_cast<int>(n()), scratch()); },
      options, scan_bytes(), {harness::output_of(d_b_), harness::output_of(d_scratch_)});
}

harness::TimingStats CompactionBench::time_compaction(const ScanVariant& v,
                                                      const harness::TimingOptions& options) {
  return time_stage(Stage::Compaction, [&] { run_compaction(v); }, options, compaction_bytes(),
                    {harness::output_of(d_a_), harness::output_of(d_b_), harness::output_of(d_c_),
                     harness::output_of(d_scratch_)});
}

}  // namespace lab6

// ==== Steps 4-9 ======================================================================

namespace lab6 {

// ---- The variants of steps 4, 5 and 9 ----------------------------------------------

const std::vector<MapVariant>& map_variants() {
  static const std::vector<MapVariant> table = {
      {"map_branchy", "apply_map, if / else", apply_map_branchy},
      {"map_constant", "apply_map4, constant memory and & 3", apply_map_constant},
  };
  return table;
}

const std::vector<HistogramVariant>& histogram_variants() {
  static const std::vector<HistogramVariant> table = {
      {"histogram_global", "compute_histogram, global atomics", histogram_global},
      {"histogram_shared", "compute_histogram2, shared memory", histogram_shared},
  };
  return table;
}

const MapVariant& find_map_variant(const std::string& name) {
  return harness::find_by_name(map_variants(), name);
}

const HistogramVariant& find_histogram_variant(const std::string& name) {
  return harness::find_by_name(histogram_variants(), name);
}

std::vector<std::string> variant_names() {
  std::vector<std::string> names = harness::names_of(scan_variants());
  for (const std::string& name : harness::names_of(map_variants())) names.push_back(name);
  for (const std::string& name : harness::names_of(histogram_variants())) names.push_back(name);
  names.emplace_back(kRadixSortVariant);
  names.emplace_back("all");
  return names;
}

std::string checked_variant(const std::string& name) {
  const std::vector<std::string> names = variant_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return name;
  std::string known;
  for (const std::string& n : names) {
    if (n != "all") known += (known.empty() ? "" : ", ") + n;
  }
  throw std::invalid_argument("unknown variant '" + name + "'; known: " + known);
}

// ---- The inputs of step 9 -------------------------------------------------------------

namespace {

// A key over all 32 bits from a random word: the keys drawn on the host
// (random_keys) and on the device (the timed runs').
struct Key {
  __host__ __device__ unsigned operator()(std::uint64_t r) const {
    return static_cast<unsigned>(r);
  }
};

}  // namespace

std::vector<unsigned> random_keys(long long n, std::uint64_t seed) {
  std::vector<unsigned> keys =
      harness::random_values<unsigned>(static_cast<std::size_t>(n), seed, Key{});
  if (std::is_sorted(keys.begin(), keys.end())) std::reverse(keys.begin(), keys.end());
  return keys;
}

// ---- ImageBench ----------------------------------------------------------------------

ImageBench::ImageBench(CorruptedImage image)
    : image_(std::move(image)),
      d_pixels_(image_.image_size),
      d_mapped_(image_.image_size),
      d_histo_(kBins),
      d_cdf_(kBins),
      d_cdf_min_(1),
      d_equalized_(image_.image_size),
      d_image_(image_.image_size),
      d_bins_(kBins),
      d_cdf_out_(kBins),
      d_one_(1),
      d_total_(1),
      d_scratch_(scratch_bytes(image_.image_size)) {
  pixels_ = compact_cpu(image_.buffer);
  mapped_ = pixels_;
  apply_map_cpu(mapped_);
  histo_ = histogram_cpu(mapped_);
  cdf_ = cumulative_cpu(histo_);
  cdf_min_ = cdf_min_cpu(cdf_);
  equalized_ = mapped_;
  equalize_cpu(equalized_, cdf_, cdf_min_);
  total_ = total_cpu(equalized_);
  upload();
}

void ImageBench::upload() {
  d_pixels_.upload(pixels_);
  d_mapped_.upload(mapped_);
  d_histo_.upload(histo_);
  d_cdf_.upload(cdf_);
  d_cdf_min_.upload({cdf_min_});
  d_equalized_.upload(equalized_);
}

Scratch ImageBench::scratch() { return Scratch{d_scratch_.get(), d_scratch_.bytes()}; }

void ImageBench::restore(const harness::DeviceBuffer<int>& from) {
  LAB_CUDA_CHECK(
      cudaMemcpy(d_image_.get(), from.get(), d_image_.bytes(), cudaMemcpyDeviceToDevice));
}

std::string ImageBench::compare_image(const std::vector<int>& expected) {
  harness::synchronize_or_die();
  return harness::describe_mismatches(expected, d_image_.download(), "pixel");
}

std::string ImageBench::compare_bins(const std::vector<int>& expected) {
  harness::synchronize_or_die();
  return harness::describe_mismatches(expected, d_bins_.download(), "bin");
}

std::string ImageBench::compare_one(int expected, const char* what) {
  harness::synchronize_or_die();
  return harness::describe_mismatches(std::vector<int>{expected}, d_one_.download(), what);
}

std::string ImageBench::check_map(const MapVariant& v) {
  restore(d_pixels_);
  v.run(d_image_.get(), size());
  LAB_CHECK_LAUNCH();
  return compare_image(mapped_);
}

std::string ImageBench::check_histogram(const HistogramVariant& v) {
  d_bins_.poison();
  v.run(d_mapped_.get(), size(), d_bins_.get());
  LAB_CHECK_LAUNCH();
  return compare_bins(histo_);
}

std::string ImageBench::check_cumulative() {
  d_bins_.poison();
  cumulative_histogram(d_histo_.get(), d_bins_.get());
  LAB_CHECK_LAUNCH();
  return compare_bins(cdf_);
}

std::string ImageBench::check_first_non_zero() {
  d_one_.poison();
  d_scratch_.poison();
  first_non_zero(d_cdf_.get(), d_one_.get(), scratch());
  LAB_CHECK_LAUNCH();
  return compare_one(cdf_min_, "cdf_min");
}

std::string ImageBench::check_equalize() {
  restore(d_mapped_);
  equalize(d_image_.get(), size(), d_cdf_.get(), d_cdf_min_.get());
  LAB_CHECK_LAUNCH();
  return compare_image(equalized_);
}

std::string ImageBench::check_reduce() {
  d_one_.poison();
  d_scratch_.poison();
  reduce_sum(d_equalized_.get(), size(), d_one_.get(), scratch());
  LAB_CHECK_LAUNCH();
  return compare_one(total_, "total");
}

std::string ImageBench::check_repair(const MapVariant& map, const HistogramVariant& histogram) {
  restore(d_pixels_);
  d_bins_.poison();
  d_cdf_out_.poison();
  d_one_.poison();
  d_total_.poison();
  d_scratch_.poison();
  map.run(d_image_.get(), size());
  histogram.run(d_image_.get(), size(), d_bins_.get());
  cumulative_histogram(d_bins_.get(), d_cdf_out_.get());
  first_non_zero(d_cdf_out_.get(), d_one_.get(), scratch());
  equalize(d_image_.get(), size(), d_cdf_out_.get(), d_one_.get());
  reduce_sum(d_image_.get(), size(), d_total_.get(), scratch());
  LAB_CHECK_LAUNCH();
  const std::string image = compare_image(equalized_);
  const std::string total =
      harness::describe_mismatches(std::vector<int>{total_}, d_total_.download(), "total");
  return image.empty() ? total : total.empty() ? image : image + "\n" + total;
}

// Every run on a new image like the bench's (mapped, or unmapped for the map),
// with the step's other inputs derived from it (never the step's own answer); an
// in-place step gets it in d_image_ too, and the harness keeps its own copy to
// check against. Checked against the harness's answer, computed after the run.
harness::TimingStats ImageBench::time_stage(Stage stage, const std::function<void()>& launch,
                                            const harness::TimingOptions& options, double bytes,
                                            std::vector<harness::Output> outputs) {
  const CorruptedImage compacted{pixels_, image_size()};  // no garbage: the draw needs no room
  DeviceReference steps(image_size());
  ImageDraw draw(compacted, steps);
  harness::DeviceBuffer<int> truth(std::max<long long>(image_size(), kBins));
  const auto copy = [&](const harness::DeviceBuffer<int>& from) {
    LAB_CUDA_CHECK(
        cudaMemcpyAsync(d_image_.get(), from.get(), d_image_.bytes(), cudaMemcpyDeviceToDevice));
  };
  const auto redraw = [&](std::uint64_t seed) {
    if (stage == Stage::Map) {
      draw.pixels(seed, d_pixels_.get());
      return copy(d_pixels_);
    }
    draw.mapped(seed, d_mapped_.get());
    if (stage == Stage::Histogram) return;
    steps.histogram(d_mapped_.get(), size(), d_histo_.get());
    if (stage == Stage::Cumulative) return;
    steps.cumulative(d_histo_.get(), d_cdf_.get());
    if (stage == Stage::FirstNonZero) return;
    steps.first_non_zero(d_cdf_.get(), d_cdf_min_.get());
    if (stage == Stage::Equalize) return copy(d_mapped_);
    steps.equalize(d_mapped_.get(), size(), d_cdf_.get(), d_cdf_min_.get(), d_equalized_.get());
  };
  const auto check = [&]() -> std::string {
    int* want = truth.get();
    switch (stage) {
      case Stage::Map:
        steps.map(d_pixels_.get(), size(), 1, want);
        return device_mismatches(want, d_image_.get(), image_size(), "pixel");
      case Stage::Histogram:
        steps.histogram(d_mapped_.get(), size(), want);
        return device_mismatches(want, d_bins_.get(), kBins, "bin");
      case Stage::Cumulative:
        steps.cumulative(d_histo_.get(), want);
        return device_mismatches(want, d_bins_.get(), kBins, "bin");
      case Stage::FirstNonZero:
        steps.first_non_zero(d_cdf_.get(), want);
        return device_mismatches(want, d_one_.get(), 1, "cdf_min");
      case Stage::Equalize:
        steps.equalize(d_mapped_.get(), size(), d_cdf_.get(), d_cdf_min_.get(), want);
        return device_mismatches(want, d_image_.get(), image_size(), "pixel");
      case Stage::Reduce:
        break;
    }
    steps.sum(d_equalized_.get(), size(), want);
    return device_mismatches(want, d_one_.get(), 1, "total");
  };
  return harness::time_fresh(launch, harness::doing_at_least(options, bytes),
                             {std::move(outputs), check, redraw, {}, [&] { upload(); }});
}

harness::TimingStats ImageBench::time_map(const MapVariant& v,
                                          const harness::TimingOptions& options) {
  return time_stage(Stage::Map, [&] { v.run(d_image_.get(), size()); }, options, map_bytes(), {});
}

harness::TimingStats ImageBench::time_histogram(const HistogramVariant& v,
                                                const harness::TimingOptions& options) {
  return time_stage(Stage::Histogram, [&] { v.run(d_mapped_.get(), size(), d_bins_.get()); },
                    options, histogram_bytes(), {harness::output_of(d_bins_)});
}

harness::TimingStats ImageBench::time_step(Step step, const harness::TimingOptions& options) {
  switch (step) {
    case Step::Cumulative:
      return time_stage(Stage::Cumulative,
                        [&] { cumulative_histogram(d_histo_.get(), d_bins_.get()); }, options,
                        bins_bytes(), {harness::output_of(d_bins_)});
    case Step::FirstNonZero:
      return time_stage(Stage::FirstNonZero,
                        [&] { first_non_zero(d_cdf_.get(), d_one_.get(), scratch()); }, options,
                        bins_bytes(), {harness::output_of(d_one_), harness::output_of(d_scratch_)});
    case Step::Equalize:
      return time_stage(Stage::Equalize,
                        [&] { equalize(d_image_.get(), size(), d_cdf_.get(), d_cdf_min_.get()); },
                        options, equalize_bytes(), {});
    case Step::Reduce:
      break;
  }
  return time_stage(
      Stage::Reduce, [&] { reduce_sum(d_equalized_.get(), size(), d_one_.get(), scratch()); },
      options, reduce_bytes(), {harness::output_of(d_one_), harness::output_of(d_scratch_)});
}

// ---- SortBench -------------------------------------------------------------------------

namespace {

std::vector<unsigned> in_order(std::vector<unsigned> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Keys i and i + 1 out of order.
struct Descent {
  const unsigned* keys;
  __device__ bool operator()(std::size_t i) const { return keys[i] > keys[i + 1]; }
};

}  // namespace

SortBench::SortBench(std::vector<unsigned> keys)
    : keys_(std::move(keys)),
      sorted_(in_order(keys_)),
      d_pristine_(keys_),
      d_sorted_(sorted_),
      d_keys_(keys_.size()),
      d_temp_(keys_.size()),
      d_flag_(1),
      d_scratch_(scratch_bytes(n())),
      d_cub_temp_(cub_sort_temp_bytes(static_cast<int>(n()))) {}

Scratch SortBench::scratch() { return Scratch{d_scratch_.get(), d_scratch_.bytes()}; }

void SortBench::restore() {
  LAB_CUDA_CHECK(
      cudaMemcpy(d_keys_.get(), d_pristine_.get(), d_keys_.bytes(), cudaMemcpyDeviceToDevice));
}

std::string SortBench::compare_sorted() {
  harness::synchronize_or_die();
  return harness::describe_mismatches(sorted_, d_keys_.download(), "key");
}

std::string SortBench::check_order_of(const std::vector<unsigned>& keys) {
  if (keys.size() != keys_.size()) throw std::invalid_argument("check_order_of: n keys");
  d_keys_.upload(keys);
  d_flag_.poison();
  check_order(d_keys_.get(), static_cast<int>(n()), d_flag_.get());
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  const int expected = std::is_sorted(keys.begin(), keys.end()) ? 1 : 0;
  return harness::describe_mismatches(std::vector<int>{expected}, d_flag_.download(), "sorted");
}

std::string SortBench::check_pass(int shift) {
  d_keys_.poison();
  d_scratch_.poison();
  radix_pass(d_pristine_.get(), d_keys_.get(), static_cast<int>(n()), shift, scratch());
  LAB_CHECK_LAUNCH();
  harness::synchronize_or_die();
  return harness::describe_mismatches(radix_pass_cpu(keys_, shift), d_keys_.download(), "key");
}

std::string SortBench::check_sort(Sort sort) {
  restore();
  d_temp_.poison();
  d_scratch_.poison();
  sort(d_keys_.get(), static_cast<int>(n()), d_temp_.get(), scratch());
  LAB_CHECK_LAUNCH();
  return compare_sorted();
}

std::string SortBench::check_cub() {
  d_keys_.poison();
  cub_sort_keys(d_pristine_.get(), d_keys_.get(), static_cast<int>(n()), d_cub_temp_.get(),
                d_cub_temp_.bytes());
  return compare_sorted();
}

harness::TimingStats SortBench::time_sort(const harness::TimingOptions& options, Sort sort) {
  const int count = static_cast<int>(n());
  // Each run's keys as drawn, which the sort (in place) overwrites, and CUB's sort of them.
  harness::DeviceBuffer<unsigned> fresh(keys_.size()), truth(keys_.size());
  return harness::time_fresh(
      [&] { sort(d_keys_.get(), count, d_temp_.get(), scratch()); },
      harness::doing_at_least(options, sort_bytes()),
      {{harness::output_of(d_temp_), harness::output_of(d_scratch_)},
       [&] {
         cub_sort_keys(fresh.get(), truth.get(), count, d_cub_temp_.get(), d_cub_temp_.bytes());
         return device_mismatches(truth.get(), d_keys_.get(), n(), "key");
       },
       [&](std::uint64_t seed) {
         harness::drawn(fresh.get(), fresh.size(), seed, Key{});
         LAB_CUDA_CHECK(cudaMemcpyAsync(d_keys_.get(), fresh.get(), d_keys_.bytes(),
                                        cudaMemcpyDeviceToDevice));
       }});
}

harness::TimingStats SortBench::time_order(const harness::TimingOptions& options) {
  // On sorted keys, where every key must be compared (no early way out): each
  // run's drawn anew and sorted by CUB; the harness counts their descents after it.
  const int count = static_cast<int>(n());
  harness::DeviceBuffer<unsigned> fresh(keys_.size());
  return harness::time_fresh(
      [&] { check_order(d_keys_.get(), count, d_flag_.get()); },
      harness::doing_at_least(options, order_bytes()),
      {{harness::output_of(d_flag_)},
       [&] {
         const std::size_t pairs = keys_.size() - 1;
         const int sorted = harness::count_where(pairs, Descent{d_keys_.get()}) == 0 ? 1 : 0;
         return harness::describe_mismatches(std::vector<int>{sorted}, d_flag_.download(),
                                             "sorted");
       },
       [&](std::uint64_t seed) {
         harness::drawn(fresh.get(), fresh.size(), seed, Key{});
         cub_sort_keys(fresh.get(), d_keys_.get(), count, d_cub_temp_.get(), d_cub_temp_.bytes());
       }});
}

harness::TimingStats SortBench::time_cub(const harness::TimingOptions& options) {
  // CUB sorts out of place: its input stays as it is, nothing to restore.
  return harness::time_gpu(
      [&] {
        cub_sort_keys(d_pristine_.get(), d_keys_.get(), static_cast<int>(n()), d_cub_temp_.get(),
                      d_cub_temp_.bytes());
      },
      harness::doing_at_least(options, sort_bytes()));
}

}  // namespace lab6
