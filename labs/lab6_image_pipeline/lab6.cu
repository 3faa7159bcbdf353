// lab6's harness (lab6.hpp): the scan variants, the CPU reference of the pipeline,
// the inputs, the benches of steps 1-3.
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
#include "labs/sync.hpp"

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

CorruptedImage reshuffled(const CorruptedImage& image, std::uint64_t seed) {
  // Fisher-Yates on the n places; the first image_size, in order, hold the pixels.
  const std::size_t n = image.buffer.size();
  std::vector<std::uint32_t> places(n);
  std::iota(places.begin(), places.end(), 0u);
  for (std::size_t i = n; i > 1; --i) {
    std::swap(places[i - 1], places[harness::splitmix64_at(seed, i) % i]);
  }
  std::vector<std::uint32_t> kept(places.begin(), places.begin() + image.image_size);
  std::sort(kept.begin(), kept.end());
  CorruptedImage fresh{std::vector<int>(n, kGarbage), image.image_size};
  std::size_t next = 0;
  for (int v : image.buffer) {
    if (v != kGarbage) fresh.buffer[kept[next++]] = v;
  }
  return fresh;
}

std::vector<int> random_values(long long n, std::uint64_t seed) {
  return harness::random_values<int>(static_cast<std::size_t>(n), seed,
                                     [](std::uint64_t r) { return static_cast<int>(r >> 61); });
}

// ---- ScanBench ---------------------------------------------------------------------

ScanBench::ScanBench(std::vector<int> values)
    : d_in_(values.size()),
      d_inclusive_(values.size()),
      d_out_(values.size()),
      d_scratch_(scratch_bytes(static_cast<long long>(values.size()))),
      d_cub_temp_(cub_scan_temp_bytes(static_cast<int>(values.size()))) {
  draw(std::move(values));
}

void ScanBench::draw(std::vector<int> values) {
  values_ = std::move(values);
  expected_ = inclusive_scan_cpu(values_);
  d_in_.upload(values_);
  d_inclusive_.upload(expected_);
}

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
  return harness::time_fresh(
      [&] { v.run(d_in_.get(), d_out_.get(), static_cast<int>(n()), scratch()); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_out_), harness::output_of(d_scratch_)},
       [&] { return compare(); },
       [&] { draw(random_values(n(), harness::fresh_seed())); }});
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
    : d_buffer_(image.buffer.size()),
      d_predicate_(image.buffer.size()),
      d_inclusive_(image.buffer.size()),
      d_exclusive_(image.buffer.size()),
      d_a_(image.buffer.size()),
      d_b_(image.buffer.size()),
      d_c_(image.buffer.size()),
      d_scratch_(scratch_bytes(static_cast<long long>(image.buffer.size()))) {
  draw(std::move(image));
}

void CompactionBench::draw(CorruptedImage image) {
  image_ = std::move(image);
  predicate_ = predicate_cpu(image_.buffer);
  inclusive_ = inclusive_scan_cpu(predicate_);
  exclusive_ = exclusive_scan_cpu(predicate_);
  pixels_ = compact_cpu(image_.buffer);
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

harness::TimingStats CompactionBench::time_step(Step step, const harness::TimingOptions& options) {
  const int count = static_cast<int>(n());
  const auto redraw = [&] { draw(reshuffled(image_, harness::fresh_seed())); };
  switch (step) {
    case Step::Predicate:
      return harness::time_fresh(
          [&] { build_predicate(d_buffer_.get(), count, d_a_.get()); },
          harness::doing_at_least(options, predicate_bytes()),
          {{harness::output_of(d_a_)}, [&] { return compare_predicate(); }, redraw});
    case Step::Shift:
      return harness::time_fresh(
          [&] { shift_exclusive(d_inclusive_.get(), d_a_.get(), count); },
          harness::doing_at_least(options, scan_bytes()),
          {{harness::output_of(d_a_)}, [&] { return compare_shift(); }, redraw});
    case Step::Scatter:
      break;
  }
  return harness::time_fresh(
      [&] { scatter(d_buffer_.get(), d_exclusive_.get(), count, d_c_.get()); },
      harness::doing_at_least(options, scatter_bytes()),
      {{harness::output_of(d_c_)}, [&] { return compare_scatter(); }, redraw});
}

harness::TimingStats CompactionBench::time_scan(const ScanVariant& v,
                                                const harness::TimingOptions& options) {
  return harness::time_fresh(
      [&] { v.run(d_predicate_.get(), d_b_.get(), static_cast<int>(n()), scratch()); },
      harness::doing_at_least(options, scan_bytes()),
      {{harness::output_of(d_b_), harness::output_of(d_scratch_)},
       [&] { return compare_scan(); },
       [&] { draw(reshuffled(image_, harness::fresh_seed())); }});
}

harness::TimingStats CompactionBench::time_compaction(const ScanVariant& v,
                                                      const harness::TimingOptions& options) {
  return harness::time_fresh([&] { run_compaction(v); },
                             harness::doing_at_least(options, compaction_bytes()),
                             {{harness::output_of(d_a_), harness::output_of(d_b_),
                               harness::output_of(d_c_), harness::output_of(d_scratch_)},
                              [&] { return compare_compaction(); },
                              [&] { draw(reshuffled(image_, harness::fresh_seed())); }});
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

// ---- The inputs of steps 4-9 ---------------------------------------------------------

CorruptedImage relevelled(const CorruptedImage& image, std::uint64_t seed) {
  const int shift = 1 + static_cast<int>(harness::splitmix64_at(seed, 0) % (kBins - 1));
  CorruptedImage moved = image;
  long long pixel = 0;
  for (int& v : moved.buffer) {
    if (v == kGarbage) continue;
    const int delta = kMapDelta[pixel++ % 4];
    v = (v + delta + shift) % kBins - delta;  // the mapped level moved, still in 0..255
  }
  return reshuffled(moved, seed);
}

std::vector<unsigned> random_keys(long long n, std::uint64_t seed) {
  std::vector<unsigned> keys = harness::random_values<unsigned>(
      static_cast<std::size_t>(n), seed, [](std::uint64_t r) { return static_cast<unsigned>(r); });
  if (std::is_sorted(keys.begin(), keys.end())) std::reverse(keys.begin(), keys.end());
  return keys;
}

// ---- ImageBench ----------------------------------------------------------------------

ImageBench::ImageBench(CorruptedImage image)
    : d_pixels_(image.image_size),
      d_mapped_(image.image_size),
      d_histo_(kBins),
      d_cdf_(kBins),
      d_cdf_min_(1),
      d_equalized_(image.image_size),
      d_image_(image.image_size),
      d_bins_(kBins),
      d_cdf_out_(kBins),
      d_one_(1),
      d_total_(1),
      d_scratch_(scratch_bytes(image.image_size)) {
  draw(std::move(image));
}

void ImageBench::draw(CorruptedImage image) {
  image_ = std::move(image);
  pixels_ = compact_cpu(image_.buffer);
  mapped_ = pixels_;
  apply_map_cpu(mapped_);
  histo_ = histogram_cpu(mapped_);
  cdf_ = cumulative_cpu(histo_);
  cdf_min_ = cdf_min_cpu(cdf_);
  equalized_ = mapped_;
  equalize_cpu(equalized_, cdf_, cdf_min_);
  total_ = total_cpu(equalized_);
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

harness::TimingStats ImageBench::time_fresh(const std::function<void()>& launch,
                                            harness::TimingOptions options, double bytes,
                                            std::vector<harness::Output> outputs,
                                            const std::function<std::string()>& compare) {
  return harness::time_fresh(
      launch, harness::doing_at_least(std::move(options), bytes),
      {std::move(outputs), compare, [&] { draw(relevelled(image_, harness::fresh_seed())); }});
}

harness::TimingStats ImageBench::time_map(const MapVariant& v,
                                          const harness::TimingOptions& options) {
  harness::TimingOptions restoring = options;
  restoring.prepare = [&] { restore(d_pixels_); };  // the map works in place
  return time_fresh([&] { v.run(d_image_.get(), size()); }, restoring, map_bytes(), {},
                    [&] { return compare_image(mapped_); });
}

harness::TimingStats ImageBench::time_histogram(const HistogramVariant& v,
                                                const harness::TimingOptions& options) {
  return time_fresh([&] { v.run(d_mapped_.get(), size(), d_bins_.get()); }, options,
                    histogram_bytes(), {harness::output_of(d_bins_)},
                    [&] { return compare_bins(histo_); });
}

harness::TimingStats ImageBench::time_step(Step step, const harness::TimingOptions& options) {
  switch (step) {
    case Step::Cumulative:
      return time_fresh([&] { cumulative_histogram(d_histo_.get(), d_bins_.get()); }, options,
                        bins_bytes(), {harness::output_of(d_bins_)},
                        [&] { return compare_bins(cdf_); });
    case Step::FirstNonZero:
      return time_fresh([&] { first_non_zero(d_cdf_.get(), d_one_.get(), scratch()); }, options,
                        bins_bytes(), {harness::output_of(d_one_), harness::output_of(d_scratch_)},
                        [&] { return compare_one(cdf_min_, "cdf_min"); });
    case Step::Equalize: {
      harness::TimingOptions restoring = options;
      restoring.prepare = [&] { restore(d_mapped_); };  // in place
      return time_fresh([&] { equalize(d_image_.get(), size(), d_cdf_.get(), d_cdf_min_.get()); },
                        restoring, equalize_bytes(), {}, [&] { return compare_image(equalized_); });
    }
    case Step::Reduce:
      break;
  }
  return time_fresh([&] { reduce_sum(d_equalized_.get(), size(), d_one_.get(), scratch()); },
                    options, reduce_bytes(),
                    {harness::output_of(d_one_), harness::output_of(d_scratch_)},
                    [&] { return compare_one(total_, "total"); });
}

// ---- SortBench -------------------------------------------------------------------------

SortBench::SortBench(std::vector<unsigned> keys)
    : d_pristine_(keys.size()),
      d_sorted_(keys.size()),
      d_keys_(keys.size()),
      d_temp_(keys.size()),
      d_flag_(1),
      d_scratch_(scratch_bytes(static_cast<long long>(keys.size()))),
      d_cub_temp_(cub_sort_temp_bytes(static_cast<int>(keys.size()))) {
  draw(std::move(keys));
}

void SortBench::draw(std::vector<unsigned> keys) {
  keys_ = std::move(keys);
  sorted_ = keys_;
  std::sort(sorted_.begin(), sorted_.end());
  d_pristine_.upload(keys_);
  d_sorted_.upload(sorted_);
}

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

std::string SortBench::check_sort() {
  restore();
  d_temp_.poison();
  d_scratch_.poison();
  radix_sort(d_keys_.get(), static_cast<int>(n()), d_temp_.get(), scratch());
  LAB_CHECK_LAUNCH();
  return compare_sorted();
}

std::string SortBench::check_cub() {
  d_keys_.poison();
  cub_sort_keys(d_pristine_.get(), d_keys_.get(), static_cast<int>(n()), d_cub_temp_.get(),
                d_cub_temp_.bytes());
  return compare_sorted();
}

harness::TimingStats SortBench::time_sort(const harness::TimingOptions& options) {
  harness::TimingOptions restoring = harness::doing_at_least(options, sort_bytes());
  restoring.prepare = [&] { restore(); };  // the sort works in place
  return harness::time_fresh(
      [&] { radix_sort(d_keys_.get(), static_cast<int>(n()), d_temp_.get(), scratch()); },
      restoring,
      {{harness::output_of(d_temp_), harness::output_of(d_scratch_)},
       [&] { return compare_sorted(); },
       [&] { draw(random_keys(n(), harness::fresh_seed())); }});
}

harness::TimingStats SortBench::time_order(const harness::TimingOptions& options) {
  // On the sorted keys, where every key must be compared (no early way out).
  LAB_CUDA_CHECK(
      cudaMemcpy(d_keys_.get(), d_sorted_.get(), d_keys_.bytes(), cudaMemcpyDeviceToDevice));
  return harness::time_fresh(
      [&] { check_order(d_keys_.get(), static_cast<int>(n()), d_flag_.get()); },
      harness::doing_at_least(options, order_bytes()),
      {{harness::output_of(d_flag_)},
       [&] {
         harness::synchronize_or_die();
         return harness::describe_mismatches(std::vector<int>{1}, d_flag_.download(), "sorted");
       },
       [&] {
         draw(random_keys(n(), harness::fresh_seed()));
         LAB_CUDA_CHECK(
             cudaMemcpy(d_keys_.get(), d_sorted_.get(), d_keys_.bytes(), cudaMemcpyDeviceToDevice));
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
