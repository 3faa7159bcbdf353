// lab3's harness, shared by the program and the tests so that both judge a variant
// the same way: the variants as the harness sees them, the CPU reference and the
// inputs (datasets checked for overflow, or large inputs generated in-process), the
// timed sizes, the yardstick, and the bench that runs, checks and times a variant
// on one input. The bars are lab.json's (lab3_bars.hpp, for the timing tests); what
// they were set from is in calibration.json.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"
#include "reduction.cuh"

namespace lab3 {

// ---- The variants ----------------------------------------------------------

using Launcher = void (*)(int*, int, int*, Launch);

// Who launches the kernels: the host only, or also the device (the nested
// variants: a child grid per block, or one grid per level).
enum class Launches { Host, ChildPerBlock, GridPerLevel };

struct Variant {
  const char* name;
  const char* course_name;  // the kernel's name in the course's reduceInteger.cu
  Launcher run;
  int unroll;   // data blocks per thread block; 0: the whole sum on the device
  int threads;  // the course's block size
  // ChildPerBlock (nested_reduce, nested_reduce_nosync): at most kMaxNestedBlocks
  // blocks, with the device runtime's pending-launch limit raised.
  Launches launches = Launches::Host;
  bool per_block() const { return unroll > 0; }
  bool nested() const { return launches != Launches::Host; }
  bool child_per_block() const { return launches == Launches::ChildPerBlock; }
};

const std::vector<Variant>& variants();
// The named variant; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

// The course's reduceNeighbored or reduceInterleaved ("neighbored", "interleaved") as
// the harness ships them (lab3.cu): the baselines of the timing bars, so that a
// student's own variant, slowed on purpose, cannot move the bar it is measured against.
const Variant& course_variant(const std::string& name);

// The configuration to launch `v` with on n elements. Per-block variants get
// exactly ceil(n / (threads x unroll)) blocks; `requested.blocks` must be 0 or
// that number. reduce_shuffle keeps requested.blocks (0: it picks its grid),
// which may not exceed the partial buffer; a child_per_block variant takes at
// most kMaxNestedBlocks blocks. Throws std::invalid_argument with the
// reason for a configuration that cannot work.
Launch resolve_launch(const Variant& v, long long n, Launch requested);

// Elements of data that block b of `v` reduces (per-block variants).
inline long long chunk_of(const Variant& v, const Launch& l) {
  return static_cast<long long>(l.threads) * v.unroll;
}

std::ostream& operator<<(std::ostream& o, const Launch& l);

// ---- The CPU reference and the inputs --------------------------------------

// The course's in-place interleaved-pairs reduction, fixed for sizes that are not a
// power of two (the element left over by an odd size is added to data[0]).
// Destroys `data`, like the course's version; size >= 1.
int recursiveReduce(int* data, int size);

// recursiveReduce on a copy of `values`.
int reduce_cpu(const std::vector<int>& values);

// Sum of values[b * chunk, min((b + 1) * chunk, n)) for every block b.
std::vector<int> block_sums_cpu(const std::vector<int>& values, long long chunk);

// Throws harness::DatasetError naming `path` when sum(|value|) exceeds 2^31 - 1:
// then an int partial sum could overflow and the exact check would be meaningless.
void check_no_overflow(const std::vector<int>& values, const std::string& path);

// Reads a lab3 dataset (raw int32) and checks it; expected_count < 0 accepts any size.
std::vector<int> load_values(const std::string& path, long long expected_count = -1);

// n values in [0, 8) from a fixed seed (splitmix64), for sizes too large to ship
// as files: 7 x 2^28 < 2^31, so even the 2^28 case cannot overflow.
std::vector<int> random_values(long long n, unsigned long long seed = 3);

// ---- The timed sizes -------------------------------------------------------

inline constexpr const char* kTimedCase = "uniform_2p24";  // the course's 16M elements
inline constexpr long long kTimedN = 1LL << 24;
inline constexpr long long kLargeN = 1LL << 28;  // reference only, generated in-process

// ---- The yardstick (yardsticks.cu: CUB's compile time keeps it a unit of its own)
// What lab3's reference timings are measured against, shipped by the harness so
// that nobody can move the bar: CUB's DeviceReduce::Sum.

// cub::DeviceReduce::Sum of n ints into *sum (device memory); `temp` is scratch
// space of cub_sum_temp_bytes(n) bytes.
std::size_t cub_sum_temp_bytes(int n);
void cub_sum(const int* data, int n, int* sum, void* temp, std::size_t temp_bytes);

// ---- The bench -------------------------------------------------------------

class ReductionBench {
 public:
  explicit ReductionBench(std::vector<int> values);

  long long n() const { return static_cast<long long>(values_.size()); }
  double bytes_moved() const { return 4.0 * n(); }  // every input read once
  int expected_sum() const { return expected_sum_; }
  // The GPU's sum from the last check (partials added on the host when per-block).
  long long last_sum() const { return last_sum_; }

  // Restores the input, poisons the partial sums, runs once, waits (with the
  // deadline) and compares with the CPU reference: every partial[b] for the
  // per-block variants, partial[0] for shuffle. "" when right, else the first
  // mismatches.
  std::string check(const Variant& v, Launch launch);
  std::string check_cub();

  // Times a launcher (check it first: a wrong sum has no meaningful time), every
  // run on values redrawn from the bench's own and checked against the harness's
  // sums of them (harness::time_fresh). CUB is timed without the freshness checks.
  harness::TimingStats time(const Variant& v, Launch launch,
                            const harness::TimingOptions& options = {});
  harness::TimingStats time_cub(const harness::TimingOptions& options = {});

 private:
  void restore();
  void allow_child_launches(const Variant& v, Launch launch);
  std::string compare(const Variant& v, Launch launch);
  void redraw(std::uint64_t seed);
  std::string compare_redraw(const Variant& v, Launch launch, std::uint64_t seed);
  std::vector<int> values_;
  int expected_sum_;
  long long last_sum_ = 0;
  harness::DeviceBuffer<int> d_pristine_;  // the input plus poisoned padding
  harness::DeviceBuffer<int> d_data_;      // what the kernels get (and may overwrite)
  harness::DeviceBuffer<int> d_partial_;
  harness::DeviceBuffer<int> d_truth_;  // the harness's sums of a redraw, made after the run
  harness::DeviceBuffer<char> d_cub_temp_;
};

}  // namespace lab3
