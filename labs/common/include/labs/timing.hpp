// Kernel timing as the grading model asks: CUDA events around the launch only,
// warm-up first, L2 flushed between repetitions when asked, median and spread,
// and a median that the least work of the launch makes impossible fails.
//
// The timed window: each repetition runs `prepare` and the L2 flush, records the
// start event, calls the launcher, records the stop event, then waits for the
// whole device. Both events go on the legacy default stream, which waits for
// every blocking stream, so work the launcher enqueues on the default stream or
// on a stream of its own made without cudaStreamNonBlocking ends inside the
// window; and the device-wide synchronize after the stop event lets nothing a
// launcher leaves behind overlap the next repetition. Not covered here:
// non-blocking streams, host threads and std::async, whose work can finish after
// the stop event without the stream order seeing it; the object check closes them
// (a student's objects may not import cudaStreamCreateWithFlags, pthread_create
// and the like), and the run-time check of student code's CUDA calls refuses
// whatever makes such a stream, however it was called (student_calls.hpp). Work
// done before the window, on an earlier call or outside the launcher, is what the
// physics check below and the freshness checks (fresh.hpp) catch.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

struct TimingOptions {
  int warmup = 2;
  int min_reps = 10;
  int max_reps = 50;
  // Stop after min_reps once this much GPU time is spent: a kernel of several
  // milliseconds varies by well under 1% between runs, so ten runs of it are enough.
  double max_total_ms = 300.0;
  bool flush_l2 = true;  // evict the inputs from L2 before each repetition
  // The least work one launch must do; every timed launch sets one or both. A
  // median that implies more than kCeilingMargin x the copy ceiling measured in
  // this process, or more than the GPU's FP32 peak, fails with UntrustedTiming.
  double min_bytes = 0;  // bytes it must read + write in device memory at least
  double min_flops = 0;  // FP32 operations it must do at least
  // Runs before every repetition (warm-ups too), outside the timed region and
  // before the L2 flush: e.g. restoring an input an in-place kernel overwrote.
  std::function<void()> prepare;
  // Runs after every repetition (warm-ups too), outside the timed region, once the
  // device is idle: e.g. checking the output of that run.
  std::function<void()> after;
};

// The legitimate best kernels reach 1.00-1.01x of the copy ceiling (a kernel that
// mostly reads can edge past a copy); work done outside the window showed as 4x
// to 25x. 1.3x also absorbs the spread of a 30-microsecond median.
inline constexpr double kCeilingMargin = 1.3;

// A time that cannot be trusted as the variant's: impossible for its least work,
// or its output wrong for the inputs it was given. Tests fail with it; programs print it and
// exit 1.
class UntrustedTiming : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double cv = 0;  // coefficient of variation: standard deviation / mean
  int reps = 0;
  std::vector<double> samples_ms;
  std::string summary() const;  // "0.158 ms (median of 30, cv 0.8%)"
};

// What the programs print for a variant they did not time because its output is
// wrong (a wrong output has no meaningful time, and timing it would fail the
// freshness checks): every time NaN.
TimingStats not_timed();

// The median, extremes and spread of `samples_ms`, which it keeps in the order they
// were taken: what time_gpu returns for its repetitions, for times measured
// another way (on the host's clock).
TimingStats stats_of(std::vector<double> samples_ms);

// `options` with the least work set (what each bench passes to time_gpu).
inline TimingOptions doing_at_least(TimingOptions options, double bytes, double flops = 0) {
  options.min_bytes = bytes;
  options.min_flops = flops;
  return options;
}

// `options` for choosing a variant to time rather than judging one: 5 to 10
// repetitions, and none past the 5th once `max_total_ms` of GPU time is spent, so that
// slow variants do not eat the test's time limit and fast ones do not repeat their
// redraws and checks 50 times while the GPU is held alone (e.g. fastest_correct's
// `quick`; the variant chosen is then timed in full).
inline TimingOptions quick_options(double max_total_ms, TimingOptions options = {}) {
  options.min_reps = 5;
  options.max_reps = 10;
  options.max_total_ms = max_total_ms;
  return options;
}

// Runs `launch` (which enqueues work on the default stream) warmup + N times and
// times each run with events (see above). Every run is waited for with the kernel
// deadline. Throws std::invalid_argument when `options` sets no least work, and
// UntrustedTiming ("impossible timing: ...") when the median is impossible.
TimingStats time_gpu(const std::function<void()>& launch, const TimingOptions& options);

// The physics check on its own: "" when `median_ms` is possible for the least
// work, else the reason, starting with "impossible timing:".
std::string impossible_timing(double median_ms, double min_bytes, double min_flops,
                              double ceiling_gbps, double peak_gflops);

// An upper bound of this GPU's FP32 rate, in GFLOP/s: SMs x the maximum clock x
// 128 FP32 lanes x 2 (an FMA), more than any NVIDIA GPU so far has per SM.
double fp32_peak_gflops();

// GB/s for `bytes` moved in `ms` milliseconds.
inline double gbps(double bytes, double ms) { return bytes / (ms * 1e6); }

namespace detail {
// time_gpu without the physics check: only for the copy ceiling's own measurement.
TimingStats time_repetitions(const std::function<void()>& launch, const TimingOptions& options);
}  // namespace detail

}  // namespace harness
