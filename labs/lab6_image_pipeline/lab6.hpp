// lab6's harness, shared by the program and the tests so that both judge the
// student's steps the same way: the scan variants, the CPU reference of the whole
// pipeline (the course's fix_image_cpu, step by step), the inputs (corrupted
// images from the dataset files, values to scan drawn in-process), the timed
// sizes, the yardstick, the device reference and the image draws (what each timed
// run gets and is checked against), and the benches that run, check and time
// steps 1-3. The
// bars are lab.json's (lab6_bars.hpp, for the timing tests); what they were set
// from is in calibration.json.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "image_pipeline.cuh"
#include "labs/device_buffer.hpp"
#include "labs/fresh.hpp"
#include "labs/timing.hpp"

namespace lab6 {

// ---- The scan variants ---------------------------------------------------------

using ScanFn = void (*)(const int*, int*, int, Scratch);

struct ScanVariant {
  const char* name;         // what --variant takes
  const char* course_name;  // how the course's report calls it
  ScanFn run;
};

const std::vector<ScanVariant>& scan_variants();
// The named variant; throws std::invalid_argument listing the known names.
const ScanVariant& find_scan_variant(const std::string& name);

// ---- The CPU reference ---------------------------------------------------------
// The course's fix_image_cpu, one function per step, with its integer semantics.

// 1 where buffer[i] != kGarbage, else 0.
std::vector<int> predicate_cpu(const std::vector<int>& buffer);
std::vector<int> inclusive_scan_cpu(const std::vector<int>& values);
// The course's std::exclusive_scan (from 0).
std::vector<int> exclusive_scan_cpu(const std::vector<int>& values);
// The buffer without its kGarbage values, in order: the image's pixels.
std::vector<int> compact_cpu(const std::vector<int>& buffer);
// image[i] += kMapDelta[i % 4].
void apply_map_cpu(std::vector<int>& image);
// kBins counts; throws std::out_of_range for a pixel outside [0, kBins).
std::vector<int> histogram_cpu(const std::vector<int>& image);
// The inclusive scan of the histogram, and its first non-zero value (cdf_min).
std::vector<int> cumulative_cpu(const std::vector<int>& histo);
int cdf_min_cpu(const std::vector<int>& cdf);
// roundf(((cdf[p] - cdf_min) / float(size - cdf_min)) * 255.0f), in float as the
// course writes it; 0 where size == cdf_min (one grey level: 0 / 0).
void equalize_cpu(std::vector<int>& image, const std::vector<int>& cdf, int cdf_min);
int total_cpu(const std::vector<int>& image);
// The whole pipeline on one corrupted buffer: the repaired image.
std::vector<int> fix_image_cpu(const std::vector<int>& buffer);
// One stable pass of the radix sort on the 2-bit digit (key >> shift) & 3.
std::vector<unsigned> radix_pass_cpu(const std::vector<unsigned>& keys, int shift);

// ---- The inputs ----------------------------------------------------------------

// A corrupted buffer as the dataset files hold it, and how many pixels it holds.
struct CorruptedImage {
  std::vector<int> buffer;
  long long image_size = 0;
  long long n() const { return static_cast<long long>(buffer.size()); }
};

// The image's pixel count, after checking that `buffer` is one: at least one
// pixel, at most kMaxImagePixels, and every pixel in [0, kBins) once mapped.
// Throws harness::DatasetError naming `path` and the first bad value.
long long check_image(const std::vector<int>& buffer, const std::string& path);
// Reads a lab6 dataset file (raw int32) and checks it; expected_count < 0 accepts
// any size.
CorruptedImage load_image(const std::string& path, long long expected_count = -1);

// n values in [0, 8) from `seed` (splitmix64), to scan: 7 x 2^28 < 2^31, so no
// prefix sum overflows.
std::vector<int> random_values(long long n, std::uint64_t seed);

// The sizes the scan, shift and sort tests run on: 1 and 2, both sides of the
// reference's tiles (4096 keys in the sort, 8192 values in the scans), a prime,
// and past 2^24.
struct TestSize {
  const char* name;
  long long n;
};
inline constexpr TestSize kTestSizes[] = {{"random_1", 1},
                                          {"random_2", 2},
                                          {"random_255", 255},
                                          {"random_257", 257},
                                          {"random_4095", 4095},
                                          {"random_4097", 4097},
                                          {"random_8191", 8191},
                                          {"random_8193", 8193},
                                          {"random_65537", 65537},
                                          {"random_prime_1000003", 1000003},
                                          {"random_2p24_plus_43", (1LL << 24) + 43}};

// ---- The timed sizes -------------------------------------------------------------

inline constexpr const char* kImageCase = "fullhd";  // the course's size, 1920 x 1080 pixels
inline constexpr long long kImageCaseN = 2300021;
inline constexpr long long kTimedScanN = 1LL << 26;
inline constexpr std::uint64_t kTimedScanSeed = 26;

// ---- The yardsticks, shipped by the harness so that nobody can move a bar ---------
// What the look-back scan is timed against: the course's three-kernel scan
// (course_scan.cu), the very design the single pass is to beat; and, reported beside
// it, CUB's DeviceScan::InclusiveSum (yardsticks.cu: CUB's compile time keeps it a
// unit of its own).
const ScanVariant& course_scan_variant();

std::size_t cub_scan_temp_bytes(int n);
void cub_inclusive_scan(const int* in, int* out, int n, void* temp, std::size_t temp_bytes);

// ---- The harness's own steps on the device -------------------------------------------
// What every timed run is checked against, computed after the run from its inputs
// on the device, and what draws those inputs: plain kernels of the harness's and
// CUB's scan (never the student's code), with the CPU reference's semantics. All
// on the default stream; `in` may be `out` where a step reads element i alone.

class DeviceReference {
 public:
  explicit DeviceReference(long long n);  // room for steps on up to n values

  void predicate(const int* buffer, int n, int* out);
  void inclusive_scan(const int* in, int n, int* out);  // CUB's
  void shift(const int* inclusive, int n, int* exclusive);
  void scatter(const int* buffer, const int* addresses, int n, int* out);
  // Steps 1-3 through its own buffers: out[0 .. image_size) = the pixels of buffer.
  void compact(const int* buffer, int n, int* out);
  // The compaction undone: out[i] = kGarbage where mask[i] is, else the next of
  // pixels[0, 1, ...], in order (mask may be out).
  void expand(const int* mask, int n, const int* pixels, int* out);
  // out[i] = in[i] + sign * kMapDelta[i & 3]: sign -1 undoes the map.
  void map(const int* in, int size, int sign, int* out);
  void histogram(const int* image, int size, int* histo);  // levels outside [0, kBins) skipped
  void cumulative(const int* histo, int* cdf);
  void first_non_zero(const int* cdf, int* cdf_min);
  void equalize(const int* image, int size, const int* cdf, const int* cdf_min, int* out);
  void sum(const int* image, int size, int* total);
  // Steps 1-8: the image repaired into image[0 .. size), its sum into *total.
  void fix_image(const int* buffer, int n, int size, int* image, int* total);

 private:
  harness::DeviceBuffer<int> predicate_, inclusive_, exclusive_, histo_, cdf_, cdf_min_;
  harness::DeviceBuffer<unsigned char> temp_;
};

// Corrupted images like `image`, drawn on the device from a seed: its pixels at
// other places, their mapped grey levels moved by a bijection of the levels (the
// histogram's shape stays), its garbage at other places. Each still maps into
// [0, kBins) and holds as many values and pixels; every value depends on the seed.
class ImageDraw {
 public:
  ImageDraw(const CorruptedImage& image, DeviceReference& steps);
  void mapped(std::uint64_t seed, int* out);  // image_size mapped pixels (after step 4)
  void pixels(std::uint64_t seed, int* out);  // the same unmapped: a compacted image
  void buffer(std::uint64_t seed, int* out);  // n values: those pixels, garbage among them

 private:
  int n_, size_;
  DeviceReference& steps_;
  harness::DeviceBuffer<int> buffer_, mapped_, pixels_;  // the image's own, never a launcher's
};

// "" when got[0 .. n) equals want[0 .. n), compared on the device; else the first
// mismatches, named `what`.
std::string device_mismatches(const int* want, const int* got, long long n, const char* what);
std::string device_mismatches(const unsigned* want, const unsigned* got, long long n,
                              const char* what);

// ---- The benches -------------------------------------------------------------------

// Step 2 on n values: both scans, the shift, and CUB's scan.
class ScanBench {
 public:
  explicit ScanBench(std::vector<int> values);

  long long n() const { return static_cast<long long>(values_.size()); }
  double bytes_moved() const { return 8.0 * n(); }  // every value read once, written once

  // Poisons the output and the scratch, runs once, waits (with the deadline) and
  // compares with the CPU's inclusive scan: "" when right, else the first mismatches.
  std::string check(const ScanVariant& v);
  std::string check_cub();
  // shift_exclusive of the CPU's inclusive scan, against its exclusive scan.
  std::string check_shift();

  // Times a variant (check it first: a wrong scan has no meaningful time), every
  // run on values 0..7 drawn anew on the device and checked against CUB's scan of
  // them (harness::time_fresh), in buffers of its own: the bench's values stay.
  // CUB is timed without the freshness checks.
  harness::TimingStats time(const ScanVariant& v, const harness::TimingOptions& options = {});
  harness::TimingStats time_cub(const harness::TimingOptions& options = {});

 private:
  Scratch scratch();
  std::string compare();
  std::vector<int> values_;
  std::vector<int> expected_;  // the inclusive scan of values_
  harness::DeviceBuffer<int> d_in_, d_inclusive_, d_out_;
  harness::DeviceBuffer<unsigned char> d_scratch_, d_cub_temp_;
};

// Steps 1-3 on one corrupted image: each step alone, fed the CPU's result of the
// steps before it (a wrong step is named, not the steps after it), and the
// compaction chained from the student's own steps, with either scan.
class CompactionBench {
 public:
  explicit CompactionBench(CorruptedImage image);

  long long n() const { return image_.n(); }
  long long image_size() const { return image_.image_size; }
  // Bytes each step must move at least.
  double predicate_bytes() const { return 8.0 * n(); }
  double scan_bytes() const { return 8.0 * n(); }
  double scatter_bytes() const { return 8.0 * n() + 4.0 * image_size(); }
  double compaction_bytes() const { return predicate_bytes() + 2 * scan_bytes() + scatter_bytes(); }

  // Each: poison the output (and scratch), run once, wait, compare; "" when right.
  std::string check_predicate();
  std::string check_scan(const ScanVariant& v);  // the scan of the image's predicate
  std::string check_shift();
  std::string check_scatter();
  std::string check_compaction(const ScanVariant& v);

  // The step alone, or the compaction chained; check first. Freshness: every run
  // on an image drawn anew on the device (ImageDraw::buffer) with the step's
  // other inputs derived from it by the harness, checked against the harness's
  // answer (DeviceReference); the bench's own inputs again after.
  enum class Step { Predicate, Shift, Scatter };
  harness::TimingStats time_step(Step step, const harness::TimingOptions& options = {});
  harness::TimingStats time_scan(const ScanVariant& v, const harness::TimingOptions& options = {});
  harness::TimingStats time_compaction(const ScanVariant& v,
                                       const harness::TimingOptions& options = {});

 private:
  enum class Stage { Predicate, Scan, Shift, Scatter, Compaction };
  harness::TimingStats time_stage(Stage stage, const std::function<void()>& launch,
                                  const harness::TimingOptions& options, double bytes,
                                  std::vector<harness::Output> outputs);
  Scratch scratch();
  void upload();  // the CPU's steps of image_ to the device: the bench's own inputs
  void run_compaction(const ScanVariant& v);
  std::string compare_predicate();
  std::string compare_scan();
  std::string compare_shift();
  std::string compare_scatter();
  std::string compare_compaction();
  CorruptedImage image_;
  std::vector<int> predicate_, inclusive_, exclusive_, pixels_;  // the CPU's steps
  harness::DeviceBuffer<int> d_buffer_, d_predicate_, d_inclusive_, d_exclusive_;
  harness::DeviceBuffer<int> d_a_, d_b_, d_c_;  // the student's outputs
  harness::DeviceBuffer<unsigned char> d_scratch_;
};

}  // namespace lab6

// ==== Steps 4-9 ======================================================================
// The image (steps 4-8) and the sort (step 9): their variants, their inputs, their
// yardstick and their benches. Their CPU reference is above (apply_map_cpu ..
// radix_pass_cpu), and so is their device reference (DeviceReference).

namespace lab6 {

// ---- The variants of steps 4, 5 and 9 ----------------------------------------------

struct MapVariant {
  const char* name;
  const char* course_name;
  void (*run)(int*, int);
};
struct HistogramVariant {
  const char* name;
  const char* course_name;
  void (*run)(const int*, int, int*);
};
// Step 9 has one: the name --variant takes for its rows.
inline constexpr const char* kRadixSortVariant = "radix_sort";

const std::vector<MapVariant>& map_variants();
const std::vector<HistogramVariant>& histogram_variants();
const MapVariant& find_map_variant(const std::string& name);
const HistogramVariant& find_histogram_variant(const std::string& name);
// Every name --variant takes, the scans' first, then "all".
std::vector<std::string> variant_names();
// `name` when --variant takes it; else throws std::invalid_argument listing them.
std::string checked_variant(const std::string& name);

// ---- The inputs of step 9 -------------------------------------------------------------

// n keys over all 32 bits from `seed`; never in order when n >= 2 and they are not
// all equal (reversed if drawn in order), so that a sort doing nothing fails.
std::vector<unsigned> random_keys(long long n, std::uint64_t seed);

inline constexpr long long kTimedSortN = 1LL << 24;
inline constexpr std::uint64_t kTimedSortSeed = 24;

// ---- The sort's yardstick (yardsticks.cu): CUB's DeviceRadixSort::SortKeys -------------

std::size_t cub_sort_temp_bytes(int n);
void cub_sort_keys(const unsigned* in, unsigned* out, int n, void* temp, std::size_t temp_bytes);

// ---- The benches of steps 4-9 ----------------------------------------------------------

// Steps 4-8 on one image: each step alone, fed the CPU's result of the steps before
// it (its compacted pixels, mapped image, histogram, cdf, cdf_min, equalised image),
// and steps 4-8 chained from the student's own steps.
class ImageBench {
 public:
  explicit ImageBench(CorruptedImage image);

  long long image_size() const { return image_.image_size; }
  // Bytes each step must move at least: the pixels read (and written, in place).
  double map_bytes() const { return 8.0 * image_size(); }
  double histogram_bytes() const { return 4.0 * image_size(); }
  double bins_bytes() const { return 8.0 * kBins; }  // the cdf and cdf_min: 256 bins read, written
  double equalize_bytes() const { return 8.0 * image_size(); }
  double reduce_bytes() const { return 4.0 * image_size(); }

  // Each: poison the output and the scratch (in place: restore the input), run
  // once, wait, compare; "" when right.
  std::string check_map(const MapVariant& v);
  std::string check_histogram(const HistogramVariant& v);
  std::string check_cumulative();
  std::string check_first_non_zero();
  std::string check_equalize();
  std::string check_reduce();
  // Steps 4-8 chained: the repaired image and its sum.
  std::string check_repair(const MapVariant& map, const HistogramVariant& histogram);

  // Check first. Freshness: every run on an image drawn anew on the device
  // (ImageDraw::mapped or pixels) with the step's other inputs derived from it by
  // the harness, checked against the harness's answer (DeviceReference); the
  // bench's own inputs again after.
  enum class Step { Cumulative, FirstNonZero, Equalize, Reduce };
  harness::TimingStats time_map(const MapVariant& v, const harness::TimingOptions& options = {});
  harness::TimingStats time_histogram(const HistogramVariant& v,
                                      const harness::TimingOptions& options = {});
  harness::TimingStats time_step(Step step, const harness::TimingOptions& options = {});

 private:
  enum class Stage { Map, Histogram, Cumulative, FirstNonZero, Equalize, Reduce };
  harness::TimingStats time_stage(Stage stage, const std::function<void()>& launch,
                                  const harness::TimingOptions& options, double bytes,
                                  std::vector<harness::Output> outputs);
  Scratch scratch();
  int size() const { return static_cast<int>(image_size()); }
  void upload();  // the CPU's steps of image_ to the device: the bench's own inputs
  void restore(const harness::DeviceBuffer<int>& from);  // d_image_ = from
  std::string compare_image(const std::vector<int>& expected);
  std::string compare_bins(const std::vector<int>& expected);
  std::string compare_one(int expected, const char* what);
  CorruptedImage image_;
  // The CPU's steps: compacted, mapped, histogram, cdf, cdf_min, equalised, sum.
  std::vector<int> pixels_, mapped_, histo_, cdf_, equalized_;
  int cdf_min_ = 0, total_ = 0;
  harness::DeviceBuffer<int> d_pixels_, d_mapped_, d_histo_, d_cdf_, d_cdf_min_, d_equalized_;
  harness::DeviceBuffer<int> d_image_, d_bins_, d_cdf_out_, d_one_, d_total_;  // the student's
  harness::DeviceBuffer<unsigned char> d_scratch_;
};

// Step 9 on n keys: the order check, one pass at any shift, the sort, and CUB's.
class SortBench {
 public:
  explicit SortBench(std::vector<unsigned> keys);

  long long n() const { return static_cast<long long>(keys_.size()); }
  double sort_bytes() const { return 8.0 * n(); }  // every key read once, written once
  double order_bytes() const { return 4.0 * n(); }

  // check_order on `keys` (n of them), against std::is_sorted.
  std::string check_order_of(const std::vector<unsigned>& keys);
  std::string check_pass(int shift);
  // A sort with radix_sort's signature: the contract's, or the reference's best.
  using Sort = void (*)(unsigned* keys, int n, unsigned* temp, Scratch scratch);
  std::string check_sort(Sort sort = radix_sort);
  std::string check_cub();
  const std::vector<unsigned>& keys() const { return keys_; }
  const std::vector<unsigned>& sorted() const { return sorted_; }

  // Freshness: every run on keys drawn anew on the device into a buffer of the
  // harness's, then copied into the sort's (it sorts in place), and checked
  // against CUB's sort of them. The order check times keys sorted by CUB, with
  // one pair swapped in about half the runs, checked against the harness's kernel.
  harness::TimingStats time_sort(const harness::TimingOptions& options = {},
                                 Sort sort = radix_sort);
  harness::TimingStats time_order(const harness::TimingOptions& options = {});  // on sorted keys
  harness::TimingStats time_cub(const harness::TimingOptions& options = {});

 private:
  Scratch scratch();
  void restore();  // d_keys_ = the keys
  std::string compare_sorted();
  std::vector<unsigned> keys_, sorted_;
  harness::DeviceBuffer<unsigned> d_pristine_, d_sorted_, d_keys_, d_temp_;
  harness::DeviceBuffer<int> d_flag_;
  harness::DeviceBuffer<unsigned char> d_scratch_, d_cub_temp_;
};

}  // namespace lab6
