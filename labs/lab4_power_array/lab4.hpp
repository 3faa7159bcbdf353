// lab4's harness, shared by the program and the tests so that both judge a variant
// the same way: the variants as the harness sees them, the float64 CPU references
// with the tolerances and checks they use, the timed sizes, the harness's own
// kernels (yardsticks and the memory table's latencies), and the bench that runs,
// checks and times a variant on one array. The bars are lab.json's (lab4_bars.hpp,
// for the timing tests); what they were set from is in calibration.json.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"
#include "power_array.cuh"

namespace lab4 {

// ---- The variants ----------------------------------------------------------

using PointerPower = void (*)(const float*, float*, int, int, Launch);
using SymbolPower = void (*)(int, int, Launch);
using WindowLauncher = void (*)(const float*, float*, int, int, Launch);

enum class Storage { Pointer, Symbol };

enum class Grid {
  Cover,       // one element per thread: blocks * threads >= n, any threads
  FixedBlock,  // the same with threads == kBlockSize (a __shared__ array of that size)
  Free,        // the variant picks its grid (blocks = 0)
};

struct PowerVariant {
  const char* name;
  const char* letter;  // the exercise's item: (a), (b), ...
  Storage storage;
  PointerPower pointer;  // set when storage == Pointer
  SymbolPower symbol;    // set when storage == Symbol
  Grid grid;
  Launch defaults;  // the course's configuration: blocks of 128 threads
};

struct WindowVariant {
  const char* name;
  const char* letter;
  WindowLauncher run;
  Grid grid;
  Launch defaults;
};

const std::vector<PowerVariant>& power_variants();
const std::vector<WindowVariant>& window_variants();
// The named variant; throws std::invalid_argument listing the known names.
const PowerVariant& find_power_variant(const std::string& name);
const WindowVariant& find_window_variant(const std::string& name);
bool is_window_variant(const std::string& name);

// The configuration to launch a variant with on n elements: `requested.blocks == 0`
// means "just enough blocks to cover n". Throws std::invalid_argument with the
// reason for a configuration that cannot work.
Launch resolve_launch(Grid grid, long long n, Launch requested);
// Throws std::invalid_argument when a symbol variant cannot hold n elements.
void check_fits_symbol(const PowerVariant& v, long long n);
void check_power_k(long long k);
void check_radius(long long radius);

std::ostream& operator<<(std::ostream& o, const Launch& l);

// ---- The CPU references and the checks -------------------------------------

// x^k for every x, in double precision (exact up to double rounding).
std::vector<double> power_cpu(const std::vector<float>& x, int k);

// Part 1 tolerance, per element, relative: |got - ref| <= power_tolerance(k) * |ref|.
// k multiplications in float round k - 1 times (relative error <= (k - 1) * 2^-24);
// (k + 2) * 2^-23 leaves twice that plus room for powf or repeated squaring.
// The datasets keep 0.5 <= |x| < 1.5, so ref is never 0, denormal or inf.
double power_tolerance(int k);

// Empty when every element is within tolerance (NaN and inf never are); otherwise
// how many are not and the first ones (index, input, expected, got).
std::string describe_power_mismatches(const std::vector<float>& x, const std::vector<double>& ref,
                                      const std::vector<float>& got, int k);

// Part 2: the mean of the 2r+1 neighbours (0 outside [0, n)), and for each element
// the mean of their absolute values, which bounds the rounding error of any
// summation order: |got - ref| <= window_tolerance(r) * scale[i].
struct WindowReference {
  std::vector<double> mean;
  std::vector<double> scale;
};
WindowReference window_cpu(const std::vector<float>& x, int radius);
// A float sum of m = 2r+1 terms is off by at most (m - 1) * 2^-24 * sum|x|; the
// division adds 2^-24 relative. (2r + 3) * 2^-23 is twice that.
double window_tolerance(int radius);
std::string describe_window_mismatches(const WindowReference& ref, const std::vector<float>& got,
                                       int radius);

// Reads a lab4 dataset (raw float32); expected_count < 0 accepts any size. Throws
// harness::DatasetError naming the file and the first value that is not finite.
std::vector<float> load_values(const std::string& path, long long expected_count = -1);

// ---- The timed sizes -------------------------------------------------------

inline constexpr const char* kTimedCase = "big_2p24";  // 2^24 floats, 0.5 <= |x| < 1.5
inline constexpr long long kTimedN = 1LL << 24;
inline constexpr int kTimedK = 4;  // the course's powerArray<<<...>>>(N, 4)
// A window of 65 neighbours: shared memory pays only from a radius of about 8 up.
inline constexpr int kTimedRadius = 32;

// ---- The harness's own kernels ---------------------------------------------
// What lab4's timings are measured against, and what the program shows beside
// them, shipped by the harness so that a student cannot move the bar.

// The window of Part 2 from global memory, one output per thread, blocks of 128:
// the baseline the shared-memory window is compared with.
void window_global_yardstick(const float* in, float* out, int n, int radius);

// The course's loop with the compiler's hands tied: in[i] read through a volatile
// pointer, so the k loads really happen. Shows what keeping dA[i] in a register
// (which the compiler does by itself for the course's kernel) saves.
void power_volatile_reads(const float* in, float* out, int n, int k);

// Load latencies measured with one thread chasing pointers (each load's address
// is the previous load's value), in SM clock cycles per load.
struct Latency {
  std::string level;  // "shared memory", "L1 hit", ...
  std::string how;    // what was chased
  double cycles;
};
std::vector<Latency> measure_latencies();

// The arithmetic side of Little's law: one thread's chain of dependent fmaf (the
// latency, in cycles), and one full wave of blocks each running independent
// chains (the throughput, FMAs per cycle per SM: the median SM's, over the span of
// its blocks on its own clock).
struct FmaRates {
  double latency_cycles;
  double per_cycle_per_sm;
};
FmaRates measure_fma();

// ---- Occupancy (Part 3) ----------------------------------------------------

// The kernels of Part 3's table, each at the block size the lab launches it with.
struct OccupancyKernel {
  const char* name;  // the variant's name
  KernelId id;
  Grid grid;  // FixedBlock: always kBlockSize threads
  int threads;
};
const std::vector<OccupancyKernel>& occupancy_kernels();

// One kernel's resources and occupancy at one launch: the student's limits beside
// what the runtime says.
struct OccupancyRow {
  cudaFuncAttributes attributes;
  OccupancyLimits limits;  // occupancy_limits, the student's
  int blocks;              // the smallest of the student's limits
  int runtime_blocks;      // cudaOccupancyMaxActiveBlocksPerMultiprocessor
  int warps_per_block;
  int max_warps_per_sm;
  double percent(int active_blocks) const {
    return 100.0 * active_blocks * warps_per_block / max_warps_per_sm;
  }
};
// Reads the kernel's attributes and the current device's limits, then asks
// occupancy_limits and, once it has returned, the runtime.
OccupancyRow occupancy_of(KernelId id, int threads, std::size_t dynamic_shared_bytes);
OccupancyRow occupancy_of(const void* kernel, int threads, std::size_t dynamic_shared_bytes);

// ---- The bench -------------------------------------------------------------

class PowerBench {
 public:
  explicit PowerBench(std::vector<float> x);

  long long n() const { return static_cast<long long>(x_.size()); }
  // Bytes a pass must move: n floats read and n floats written.
  double bytes_moved() const { return 8.0 * n(); }
  const std::vector<float>& input() const { return x_; }
  const std::vector<float>& last_result() const { return last_; }

  // Timing options for this array: no L2 flush when the data (read + written) is
  // more than twice the L2, as for the copy ceiling it is compared with.
  harness::TimingOptions timing_options(harness::TimingOptions base = {}) const;

  // Poisons the output (NaN), runs once, waits (with the deadline) and compares
  // with the CPU reference. Returns "" when right, else the first mismatches. A
  // symbol variant runs on dA filled and read back by the harness itself
  // (symbol_array); then symbol_upload and symbol_download are checked on values
  // drawn for them, which no kernel ever sees.
  std::string check(const PowerVariant& v, int k, Launch launch);
  std::string check(const WindowVariant& v, int radius, Launch launch);
  std::string check_window_yardstick(int radius);
  std::string check_volatile(int k);

  // Times a variant (check it first: a wrong answer has no meaningful time), every
  // run on values picked anew from the bench's on the device (harness::resampled, into dA
  // for the symbol variants, timed in place, kernel only), its output checked there
  // (harness::time_fresh); the bench's own values stay as they are. The harness's
  // own kernels are timed without the freshness checks.
  harness::TimingStats time(const PowerVariant& v, int k, Launch launch,
                            const harness::TimingOptions& options);
  harness::TimingStats time(const WindowVariant& v, int radius, Launch launch,
                            const harness::TimingOptions& options);
  harness::TimingStats time_window_yardstick(int radius, const harness::TimingOptions& options);
  harness::TimingStats time_volatile(int k, const harness::TimingOptions& options);

 private:
  std::string finish_power(int k, const float* result);
  std::string finish_window(int radius);
  std::string check_symbol_copies(float* dA);
  harness::TimingStats time_on_fresh(const std::function<void(const float* in)>& launch,
                                     float* in_place, const harness::TimingOptions& options,
                                     const std::function<std::string(const float* x)>& compare);
  // The CPU references of x_, computed at their first use.
  const std::vector<double>& expected_power(int k);
  const WindowReference& expected_window(int radius);
  int size() const { return static_cast<int>(x_.size()); }
  std::vector<float> x_;
  std::map<int, std::vector<double>> power_by_k_;
  std::map<int, WindowReference> window_by_radius_;
  std::vector<float> last_;
  harness::DeviceBuffer<float> d_in_;
  harness::DeviceBuffer<float> d_base_;  // the values again, never handed to a launcher
  harness::DeviceBuffer<float> d_out_;
};

}  // namespace lab4
