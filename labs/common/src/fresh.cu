#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/integrity.hpp"
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

// sum over the region's 4-byte words w of mix(w ^ key), into *out: the same for the
// same words in any order.
__global__ void multiset_kernel(const unsigned* words, std::size_t count, std::uint64_t key,
                                unsigned long long* out) {
  std::uint64_t sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    sum += splitmix64_mix(words[i] ^ key);
  }
  atomicAdd(out, static_cast<unsigned long long>(sum));
}

std::vector<std::uint64_t> multisets(const std::vector<Region>& regions, std::uint64_t key,
                                     DeviceBuffer<unsigned long long>& scratch) {
  std::vector<std::uint64_t> sums;
  for (const Region& r : regions) {
    if (r.bytes < kRepeatCheckBytes) continue;
    LAB_CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    multiset_kernel<<<1024, 256>>>(static_cast<const unsigned*>(r.ptr), r.bytes / 4, key,
                                   scratch.get());
    LAB_CHECK_LAUNCH();
    sums.push_back(scratch.download()[0]);
  }
  return sums;
}

std::vector<std::uint64_t> digests(const std::vector<Region>& regions, std::uint64_t key,
                                   DeviceBuffer<unsigned long long>& scratch) {
  std::vector<std::uint64_t> sums;
  for (const Region& r : regions) {
    LAB_CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    detail::device_digest(r.ptr, r.bytes, key, scratch.get());
    sums.push_back(scratch.download()[0]);
  }
  return sums;
}

}  // namespace

std::uint64_t fresh_seed() {
  std::random_device device;  // getrandom(2): no state in this process to read
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

TimingStats time_fresh(const std::function<void()>& launch, TimingOptions options,
                       const FreshChecks& fresh) {
  const std::function<void()> restore = options.prepare;
  const bool flushed = options.flush_l2;  // a flush evicts the poison's dirty lines
  std::mt19937_64 phases(fresh_seed());
  DeviceBuffer<unsigned long long> scratch(1);
  std::uint64_t key = 0;
  const std::uint64_t multiset_key = fresh_seed();
  std::vector<std::uint64_t> before, last_inputs;
  int redraws = 0;
  options.prepare = [&] {
    if (restore) restore();
    {
      const PhaseTimer redrawing(Phase::Redraw);
      fresh.redraw(fresh_seed());
      LAB_CHECK_LAUNCH();
      std::vector<std::uint64_t> inputs = multisets(fresh.redrawn, multiset_key, scratch);
      if (++redraws > 1 && !inputs.empty() && inputs == last_inputs) {
        throw UntrustedTiming(
            "redraw " + std::to_string(redraws) +
            " gave the inputs the same values as the one before, in another order: a redraw "
            "must draw every input anew (labs/common/include/labs/redraw.cuh)");
      }
      last_inputs = std::move(inputs);
      key = fresh_seed();
      before = digests(fresh.unchanged, key, scratch);
    }
    for (const Output& out : fresh.outputs) {
      if (flushed) {
        poison_all(out);
      } else {
        poison_sparse(out, phases());
      }
    }
  };
  int run = 0;
  options.after = [&] {
    ++run;
    const PhaseTimer checking(Phase::Check);
    if (digests(fresh.unchanged, key, scratch) != before) {
      throw UntrustedTiming("timed run " + std::to_string(run) +
                            " (warm-ups counted) wrote to memory it may only read: its input, "
                            "or the harness's copy that inputs are drawn from");
    }
    const std::string wrong = fresh.check();
    if (!wrong.empty()) {
      throw UntrustedTiming("the output of timed run " + std::to_string(run) +
                            " (warm-ups counted) is wrong for the inputs drawn just before it: "
                            "the inputs are new and the output poisoned before every run, so "
                            "that run did not compute it:\n  " +
                            wrong);
    }
  };
  try {
    const TimingStats stats = time_gpu(launch, options);
    if (fresh.restore) fresh.restore();
    return stats;
  } catch (...) {
    try {
      if (fresh.restore) fresh.restore();
    } catch (...) {  // a broken context: the first error is the one to report
    }
    throw;
  }
}

}  // namespace harness
