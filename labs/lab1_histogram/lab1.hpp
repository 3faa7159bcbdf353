// lab1's harness, shared by the program and the tests so that both judge a variant
// the same way: the variants as the harness sees them, the CPU reference and the
// dataset check, the timed cases, the yardsticks, the bench that runs, checks and
// times a variant on one dataset, and the atomic operations' checks. The bars are
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

  // Poisons the output, runs once, waits (with the deadline) and compares with the
  // CPU reference. Returns "" when right, else the first mismatches.
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
  std::vector<int> samples_;
  std::vector<int> expected_;
  std::vector<int> last_;
  harness::DeviceBuffer<int> d_samples_;
  harness::DeviceBuffer<int> d_base_;  // the samples, never handed to a launcher
  harness::DeviceBuffer<int> d_hist_;
  harness::DeviceBuffer<int> d_truth_;  // CUB's histogram of a redraw, made after the run
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
