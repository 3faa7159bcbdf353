// lab1's harness, shared by the program and the tests so that both judge a variant
// the same way: the variants as the harness sees them, the CPU reference and the
// dataset check, the timed cases, the yardsticks, the bench that runs, checks and
// times a variant on one dataset, the colour images' variants, reference and bench,
// and the atomic operations' checks. The bars are
// lab.json's (lab1_bars.hpp, for the timing tests); what they were set from is in
// calibration.json.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "histogram.cuh"
#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"

namespace lab1 {

// ---- The variants ----------------------------------------------------------

using Launcher = void (*)(const int*, int, int*, Launch);

enum class Work {
  SlicePerThread,  // a thread handles `slice` samples: blocks * threads * slice >= n
  ChunkPerBlock,   // a block handles `slice` samples: blocks * slice >= n
  Free,            // the variant picks its grid (blocks = 0)
};

struct Variant {
  const char* name;
  const char* letter;  // the exercise's item: (a), (b), ...
  Launcher run;
  Work work;
  Launch defaults;  // the course's configuration for 2^25 samples
};

const std::vector<Variant>& variants();
// The named variant; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

// The configuration to launch `v` with on n samples: `requested.blocks == 0`
// means "just enough blocks to cover n". Throws std::invalid_argument with the
// reason for a configuration that cannot work (too few blocks, too many threads,
// a chunk larger than shared memory).
Launch resolve_launch(const Variant& v, long long n, Launch requested);

std::ostream& operator<<(std::ostream& o, const Launch& l);

// ---- The CPU reference and the datasets ------------------------------------

std::vector<int> histogram_cpu(const std::vector<int>& samples);

// Throws harness::DatasetError naming the file and the first value outside [0, kBins).
void check_samples_in_range(const std::vector<int>& samples, const std::string& path);

// Reads a lab1 dataset (raw int32) and checks it; expected_count < 0 accepts any size.
std::vector<int> load_samples(const std::string& path, long long expected_count = -1);

// ---- The timed cases -------------------------------------------------------

inline constexpr const char* kTimedCase = "uniform_2p25";          // the course's 2^25 samples
inline constexpr const char* kContentionCase = "contention_2p25";  // 90% in one bin

// ---- The yardsticks (yardsticks.cu: CUB's compile time keeps it a unit of its own)
// What lab1's timings are measured against, shipped by the harness so that a
// student cannot move the bar.

// The course's first kernel (64 blocks x 512 threads, slice 1024 on 2^25 samples),
// with a bound check so it handles any n. Zeroes hist first, like a student launcher.
void course_global_histogram(const int* samples, int n, int* hist);

// The course's shared-memory histogram (e), privatized per block: the colour bar's
// baseline, run once per channel, so that a student's own `shared`, slowed on purpose,
// cannot move it. A Launcher (slice per thread); zeroes hist first.
void course_shared_histogram(const int* samples, int n, int* hist, Launch launch);

// cub::DeviceHistogram::HistogramEven over kBins bins; `temp` is scratch space of
// cub_histogram_temp_bytes(n) bytes.
std::size_t cub_histogram_temp_bytes(int n);
void cub_histogram(const int* samples, int n, int* hist, void* temp, std::size_t temp_bytes);

// ---- The bench -------------------------------------------------------------

class HistogramBench {
 public:
  explicit HistogramBench(std::vector<int> samples);

  long long n() const { return static_cast<long long>(samples_.size()); }
  double bytes_moved() const { return 4.0 * n() + 4.0 * kBins; }  // samples read, bins written
  const std::vector<int>& expected() const { return expected_; }

  // Restores the samples (a launcher that wrote into its input spoils only its own
  // run), poisons the output, runs once, waits (with the deadline) and compares with
  // the CPU reference. Returns "" when right, else the first mismatches.
  std::string check(Launcher run, Launch launch);
  std::string check_cub();
  const std::vector<int>& last_result() const { return last_; }

  // Times a launcher (check it first: a wrong histogram has no meaningful time),
  // every run on samples redrawn from the bench's own and checked against CUB's
  // histogram of them (harness::time_fresh); the samples are the bench's own again
  // after it. The yardsticks are timed without the freshness checks; all must
  // read the samples in the window.
  harness::TimingStats time(Launcher run, Launch launch,
                            const harness::TimingOptions& options = {});
  harness::TimingStats time_course_global(const harness::TimingOptions& options = {});
  harness::TimingStats time_cub(const harness::TimingOptions& options = {});

 private:
  std::string compare();
  std::string compare_with_cub();
  void restore();  // the samples from d_base_
  std::vector<int> samples_;
  std::vector<int> expected_;
  std::vector<int> last_;
  harness::DeviceBuffer<int> d_samples_;
  harness::DeviceBuffer<int> d_base_;  // the samples, never handed to a launcher
  harness::DeviceBuffer<int> d_hist_;
  harness::DeviceBuffer<int> d_truth_;  // CUB's histogram of a redraw, made after the run
  harness::DeviceBuffer<char> d_cub_temp_;
};

// ---- The colour images ------------------------------------------------------
// The variants of the contract's colour part, their CPU reference, the image files
// (rgba_image cases of datasets/lab1.json: one packed pixel, a uchar4, per int32) and
// their bench.

using ColourLauncher = void (*)(const uchar4*, int, int*, Launch);

enum class Colour { Rgb, Hue };

struct ColourVariant {
  const char* name;
  const char* letter;  // the exercise's item: (l), (m)
  ColourLauncher run;
  Colour kind;
  int planes;      // values a pixel gives: its three channels (rgb), its hue (hue)
  int plane_bins;  // bins per value: kColourBins, kHueBins
  int bins() const { return planes * plane_bins; }
};

const std::vector<ColourVariant>& colour_variants();
const ColourVariant& find_colour_variant(const std::string& name);

// The grid every colour test launches (a grid-stride loop covers any image), and the
// odd one: fewer threads than counters to zero, far fewer than the larger images' pixels.
inline constexpr Launch kColourLaunch{1024, 256, 0};
inline constexpr Launch kColourOddLaunch{7, 96, 0};
// `requested` checked: threads 1..1024, blocks at least 1. Throws std::invalid_argument.
Launch resolve_colour_launch(Launch requested);

// The datasets' distribution of images, and the timed image (8K UHD).
inline constexpr const char* kImageDistribution = "rgba_image";
inline constexpr const char* kTimedImage = "image_7680x4320";
inline constexpr long long kTimedImagePixels = 7680LL * 4320;

// Reads an image file (raw little-endian int32, bytes R, G, B, A); expected_pixels < 0
// accepts any size. Throws harness::DatasetError naming the file.
std::vector<uchar4> load_image(const std::string& path, long long expected_pixels = -1);

// The contract's histogram of `image` for `v`, counted on the CPU: v.bins() ints.
std::vector<int> colour_histogram_cpu(const ColourVariant& v, const std::vector<uchar4>& image);

class ColourBench {
 public:
  explicit ColourBench(std::vector<uchar4> image);

  long long n() const { return static_cast<long long>(image_.size()); }
  // The pixels read, the bins written.
  double bytes_moved(const ColourVariant& v) const { return 4.0 * n() + 4.0 * v.bins(); }
  // The baseline's: three planes of ints read, three histograms of kBins written.
  double bytes_moved_per_channel() const { return kChannels * (4.0 * n() + 4.0 * kBins); }
  // The CPU reference for `v` on the bench's image, counted once.
  const std::vector<int>& expected(const ColourVariant& v);

  // Restores the image, poisons the output, runs once, waits (with the deadline) and
  // compares with the CPU reference. Returns "" when right, else the first mismatches.
  std::string check(const ColourVariant& v, Launch launch);
  const std::vector<int>& last_result() const { return last_; }

  // Times a variant (check it first), every run on an image redrawn from the bench's own
  // (its pixels picked with replacement, harness::resampled: the image's colours, greys
  // and a dominant colour too, never a transformation of an earlier image) and checked
  // against CUB's histograms of its planes (harness::time_fresh); the image is the
  // bench's own again after it.
  harness::TimingStats time(const ColourVariant& v, Launch launch,
                            const harness::TimingOptions& options = {});

  // The rgb kernel's baseline: a single-channel launcher (course_shared_histogram) run
  // once per channel, on the image's red, green and blue planes of ints, each plane
  // 256-byte aligned. The planes are made outside the timed window (before every run,
  // from that run's redrawn image); the three launches are timed together, and each
  // histogram is checked against CUB's.
  harness::TimingStats time_per_channel(Launcher single, Launch launch,
                                        const harness::TimingOptions& options = {});

 private:
  void make_planes(Colour kind, int planes);  // d_image_'s values into d_planes_
  void run_per_channel(Launcher single, Launch launch, harness::DeviceBuffer<int>& hist);
  // Compares `planes` histograms of `bins` ints each, in `hist`, with CUB's histograms
  // of the first `planes` planes of d_planes_.
  std::string compare_with_cub(const harness::DeviceBuffer<int>& hist, int planes, int bins);
  void redraw(std::uint64_t seed);
  void restore();
  std::vector<uchar4> image_;
  std::vector<int> expected_[2];  // by Colour, once counted
  std::vector<int> last_;
  harness::DeviceBuffer<uchar4> d_image_;
  harness::DeviceBuffer<uchar4> d_base_;  // the image, never handed to a launcher
  harness::DeviceBuffer<int> d_planes_;   // kChannels planes of ints, 256-byte aligned
  harness::DeviceBuffer<int> d_truth_;    // CUB's histogram of one plane
  harness::DeviceBuffer<char> d_cub_temp_;
};

// ---- The atomic operations --------------------------------------------------
// Each runs the student's launcher on n threads (`threads` per block, just enough
// blocks) with initial values drawn from `seed`, and returns "" when every result
// is right, else what is wrong. The checks hold whatever order the threads take:
// a value that depends on the order (atomicExch's, atomicCAS's, a CAS loop's
// returns) is checked as a chain, each thread's returned value replaced by its own
// (the returns and the final value are the initial one and the values written).

std::string check_atomic_catalogue(int n, int threads, std::uint64_t seed);
std::string check_threshold_flag(const std::vector<int>& values, int threshold, int threads);
std::string check_atomic_multiply(int n, int threads, std::uint64_t seed);

}  // namespace lab1
