// lab1's harness (lab1.hpp): the variants, the CPU reference and the bench.
#include <stdexcept>

#include "lab1.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/fresh.hpp"
#include "labs/named.hpp"
#include "labs/sync.hpp"

namespace lab1 {

// ---- The variants -----------------------------------------------------------

const std::vector<Variant>& variants() {
  // Defaults reproduce rows of the course's tables for 2^25 samples.
  static const std::vector<Variant> table = {
      {"global", "a", histogram_global, Work::SlicePerThread, {0, 512, 1024}},
      {"global_unroll", "b", histogram_global_unroll, Work::SlicePerThread, {0, 512, 1024}},
      {"global_ilp4", "c", histogram_global_ilp4, Work::SlicePerThread, {0, 512, 512}},
      {"one_per_thread", "d", histogram_one_per_thread, Work::SlicePerThread, {0, 512, 1}},
      {"shared", "e", histogram_shared, Work::SlicePerThread, {0, 256, 32}},
      {"inverse", "f", histogram_inverse, Work::ChunkPerBlock, {0, 1024, 8192}},
      {"banks", "g", histogram_banks, Work::ChunkPerBlock, {0, 1024, 1024}},
      {"banks2", "g2", histogram_banks2, Work::ChunkPerBlock, {0, 512, 1024}},
      {"banks4", "g4", histogram_banks4, Work::ChunkPerBlock, {0, 256, 1024}},
      {"best", "h", histogram_best, Work::Free, {0, 512, 0}},
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
}

Launch resolve_launch(const Variant& v, long long n, Launch requested) {
  Launch l = requested;
  if (l.threads < 1 || l.threads > 1024) {
    throw std::invalid_argument("threads per block must be 1..1024, not " +
                                std::to_string(l.threads));
  }
  if (v.work == Work::Free) return l;  // blocks 0: the variant picks its grid
  if (v.name == std::string("one_per_thread")) l.slice = 1;
  if (l.slice < 1) throw std::invalid_argument("slice must be at least 1");
  if (v.work == Work::ChunkPerBlock && l.slice > 10240) {
    throw std::invalid_argument(
        "slice (samples per block) must be at most 10240 to fit in "
        "40 KiB of shared memory, not " +
        std::to_string(l.slice));
  }
  const long long per_block =
      v.work == Work::SlicePerThread ? static_cast<long long>(l.threads) * l.slice : l.slice;
  const long long needed = (n + per_block - 1) / per_block;
  if (l.blocks == 0) {
    if (needed > 0x7fffffffLL) throw std::invalid_argument("grid too large: raise slice");
    l.blocks = static_cast<int>(needed);
  } else if (l.blocks < needed) {
    throw std::invalid_argument(
        std::to_string(l.blocks) + " blocks x " + std::to_string(per_block) +
        " samples per block cover " + std::to_string(l.blocks * per_block) +
        " samples, fewer than n = " + std::to_string(n) + ": use at least " +
        std::to_string(needed) + " blocks, or leave --blocks out");
  }
  return l;
}

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.blocks << " blocks x " << l.threads << " threads, slice " << l.slice;
}

// ---- The CPU reference and the datasets -------------------------------------

std::vector<int> histogram_cpu(const std::vector<int>& samples) {
  std::vector<int> hist(kBins, 0);
  for (int v : samples) ++hist[v];
  return hist;
}

void check_samples_in_range(const std::vector<int>& samples, const std::string& path) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i] < 0 || samples[i] >= kBins) {
      throw harness::DatasetError(path + ": sample " + std::to_string(i) + " is " +
                                  std::to_string(samples[i]) + ", outside 0.." +
                                  std::to_string(kBins - 1) + ": not a 10-bit dataset");
    }
  }
}

std::vector<int> load_samples(const std::string& path, long long expected_count) {
  std::vector<int> samples = harness::read_binary_file<int>(path, expected_count);
  check_samples_in_range(samples, path);
  return samples;
}

// ---- The bench --------------------------------------------------------------

HistogramBench::HistogramBench(std::vector<int> samples)
    : samples_(std::move(samples)),
      expected_(histogram_cpu(samples_)),
      d_samples_(samples_),
      d_hist_(kBins),
      d_cub_temp_(cub_histogram_temp_bytes(static_cast<int>(samples_.size()))) {}

std::string HistogramBench::compare() {
  harness::synchronize_or_die();
  last_ = d_hist_.download();
  return harness::describe_mismatches(expected_, last_, "bin");
}

std::string HistogramBench::check(Launcher run, Launch launch) {
  d_hist_.poison();
  run(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), launch);
  LAB_CHECK_LAUNCH();
  return compare();
}

std::string HistogramBench::check_cub() {
  d_hist_.poison();
  cub_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), d_cub_temp_.get(),
                d_cub_temp_.bytes());
  return compare();
}

// Fresh samples of the same distribution: every value v becomes (v + s) mod kBins
// for a random s, so every bin's count moves to another bin.
void HistogramBench::shift_samples(int shift) {
  for (int& v : samples_) v = (v + shift) % kBins;
  std::vector<int> moved(kBins);
  for (int b = 0; b < kBins; ++b) moved[(b + shift) % kBins] = expected_[b];
  expected_ = std::move(moved);
  d_samples_.upload(samples_);
  shift_ = (shift_ + shift) % kBins;
}

void HistogramBench::redraw() {
  shift_samples(1 + static_cast<int>(harness::fresh_seed() % (kBins - 1)));
}

void HistogramBench::undo_redraws() {
  if (shift_ != 0) shift_samples(kBins - shift_);
}

harness::TimingStats HistogramBench::time(Launcher run, Launch launch,
                                          const harness::TimingOptions& options) {
  return harness::time_fresh(
      [&] { run(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), launch); },
      harness::doing_at_least(options, bytes_moved()),
      {{harness::output_of(d_hist_)}, [&] { return compare(); }, [&] { redraw(); }});
}

harness::TimingStats HistogramBench::time_course_global(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] { course_global_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get()); },
      harness::doing_at_least(options, bytes_moved()));
}

harness::TimingStats HistogramBench::time_cub(const harness::TimingOptions& options) {
  return harness::time_gpu(
      [&] {
        cub_histogram(d_samples_.get(), static_cast<int>(n()), d_hist_.get(), d_cub_temp_.get(),
                      d_cub_temp_.bytes());
      },
      harness::doing_at_least(options, bytes_moved()));
}

}  // namespace lab1
