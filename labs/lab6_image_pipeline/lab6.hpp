// lab6's harness, shared by the program and the tests so that both judge the
// student's steps the same way: the scan variants, the CPU reference of the whole
// pipeline (the course's fix_image_cpu, step by step), the inputs (corrupted
// images from the dataset files, values to scan drawn in-process), the timed
// sizes, the yardstick, and the benches that run, check and time steps 1-3. The
// bars are lab.json's (lab6_bars.hpp, for the timing tests); what they were set
// from is in calibration.json.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "image_pipeline.cuh"
#include "labs/device_buffer.hpp"
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
// The same pixels in the same order, the garbage moved: the pixels take
// image_size places of the n drawn from `seed`. What a fresh run gets.
CorruptedImage reshuffled(const CorruptedImage& image, std::uint64_t seed);

// n values in [0, 8) from `seed` (splitmix64), to scan: 7 x 2^28 < 2^31, so no
// prefix sum overflows.
std::vector<int> random_values(long long n, std::uint64_t seed);

// ---- The timed sizes -------------------------------------------------------------

inline constexpr const char* kImageCase = "fullhd";  // the course's size, 1920 x 1080 pixels
inline constexpr long long kImageCaseN = 2300021;
inline constexpr long long kTimedScanN = 1LL << 26;
inline constexpr std::uint64_t kTimedScanSeed = 26;

// ---- The yardstick (yardsticks.cu: CUB's compile time keeps it a unit of its own)
// What the look-back scan is timed against, shipped by the harness so that nobody
// can move the bar: CUB's DeviceScan::InclusiveSum.

std::size_t cub_scan_temp_bytes(int n);
void cub_inclusive_scan(const int* in, int* out, int n, void* temp, std::size_t temp_bytes);

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

  // Times a variant (check it first: a wrong scan has no meaningful time), then
  // checks the last timed run's output and one more run's on fresh values
  // (harness::time_fresh); the values stay the fresh ones. CUB is timed without
  // the freshness checks.
  harness::TimingStats time(const ScanVariant& v, const harness::TimingOptions& options = {});
  harness::TimingStats time_cub(const harness::TimingOptions& options = {});

 private:
  Scratch scratch();
  std::string compare();
  void draw(std::vector<int> values);
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

  // The step alone, or the compaction chained; check first. Freshness: the last
  // timed run and one more, on the same pixels with the garbage moved.
  enum class Step { Predicate, Shift, Scatter };
  harness::TimingStats time_step(Step step, const harness::TimingOptions& options = {});
  harness::TimingStats time_scan(const ScanVariant& v, const harness::TimingOptions& options = {});
  harness::TimingStats time_compaction(const ScanVariant& v,
                                       const harness::TimingOptions& options = {});

 private:
  Scratch scratch();
  void draw(CorruptedImage image);
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
