#include <chrono>
#include <random>

#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/phases.hpp"
#include "labs/random.hpp"
#include "labs/sync.hpp"

namespace harness {
namespace {

// Words poisoned per buffer when the L2 is not flushed: enough that skipping
// any but a sliver of the output leaves one of them.
constexpr std::size_t kSparseWords = 4096;

void poison_all(const Output& out) {
  LAB_CUDA_CHECK(cudaMemsetAsync(out.ptr, out.poison, out.bytes));
}

// Without an L2 flush after it, poisoning all of a large output would leave the
// L2 full of dirty lines that the timed kernel then writes back: one 4-byte word
// per stride instead, at a phase no launcher can predict.
void poison_sparse(const Output& out, std::uint64_t phase) {
  const std::size_t stride = (out.bytes / kSparseWords + 3) / 4 * 4;
  if (stride < 64) return poison_all(out);
  const std::size_t offset = phase % (stride / 4) * 4;
  const std::size_t rows = (out.bytes - offset - 4) / stride + 1;
  LAB_CUDA_CHECK(
      cudaMemset2DAsync(static_cast<char*>(out.ptr) + offset, stride, out.poison, 4, rows));
}

std::string checked(const FreshChecks& fresh) {
  const PhaseTimer checking(Phase::Check);
  return fresh.check();
}

}  // namespace

std::uint64_t fresh_seed() {
  static std::uint64_t state =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return splitmix64_mix(state += kSplitMixGamma);
}

TimingStats time_fresh(const std::function<void()>& launch, TimingOptions options,
                       const FreshChecks& fresh) {
  const std::function<void()> restore = options.prepare;
  const bool flushed = options.flush_l2;  // a flush evicts the poison's dirty lines
  std::mt19937_64 phases(fresh_seed());
  options.prepare = [&] {
    if (restore) restore();
    for (const Output& out : fresh.outputs) {
      if (flushed) {
        poison_all(out);
      } else {
        poison_sparse(out, phases());
      }
    }
  };
  const TimingStats stats = time_gpu(launch, options);
  synchronize_or_die();
  std::string wrong = checked(fresh);
  if (!wrong.empty()) {
    throw UntrustedTiming(
        "the output of the last timed run is wrong: the timed runs did not write the answer "
        "(the output is poisoned before each):\n  " +
        wrong);
  }
  {
    const PhaseTimer redrawing(Phase::Redraw);
    fresh.redraw();
  }
  if (restore) restore();
  for (const Output& out : fresh.outputs) poison_all(out);
  launch();
  LAB_CHECK_LAUNCH();
  synchronize_or_die();
  wrong = checked(fresh);
  if (!wrong.empty()) {
    throw UntrustedTiming(
        "the output after timing is wrong: results cached between repetitions? (inputs drawn "
        "anew after timing, one more run):\n  " +
        wrong);
  }
  return stats;
}

}  // namespace harness
