// lab1_histogram: runs histogram variants on a data.bin file, prints the first 10
// bins (compare them with the seed's Python program) and one row per variant
// like the seed's tables. Exits 1 when a histogram is wrong.
#include <climits>
#include <cstdio>
#include <exception>
#include <sstream>
#include <stdexcept>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/bandwidth.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/program.hpp"
#include "variants.hpp"

namespace {

std::string operations(const lab1::Variant& v, const lab1::Launch& l) {
  std::ostringstream o;
  if (v.work == lab1::Work::SlicePerThread) {
    o << l.blocks << " x " << l.threads << " x " << l.slice << " = "
      << static_cast<long long>(l.blocks) * l.threads * l.slice;
  } else if (v.work == lab1::Work::ChunkPerBlock) {
    o << l.blocks << " x " << l.slice << " = " << static_cast<long long>(l.blocks) * l.slice;
  } else {
    o << "-";
  }
  return o.str();
}

void print_row(const char* name, const std::string& blocks, const std::string& threads,
               const std::string& slice, const std::string& ops, double ms, double gbps,
               const char* check) {
  std::printf("%-15s %7s %7s %6s  %-30s %9.3f %8.1f  %s\n", name, blocks.c_str(), threads.c_str(),
              slice.c_str(), ops.c_str(), ms, gbps, check);
}

void print_bins(const char* label, const std::vector<int>& hist) {
  std::printf("%s [", label);
  for (int i = 0; i < 10; ++i) std::printf("%s%d", i ? ", " : "", hist[i]);
  std::printf("]\n");
}

// Checks then times one variant; returns false when its histogram is wrong.
bool run_variant(lab1::HistogramBench& bench, const lab1::Variant& v, lab1::Launch requested,
                 int reps, bool show_bins) {
  const lab1::Launch l = lab1::resolve_launch(v, bench.n(), requested);
  const std::string wrong = bench.check(v.run, l);
  if (show_bins) print_bins("first 10 bins (GPU):", bench.last_result());
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  const harness::TimingStats t =
      wrong.empty() ? bench.time(v.run, l, options) : harness::not_timed();
  auto str = [](int x) { return x ? std::to_string(x) : std::string("auto"); };
  print_row(v.name, str(l.blocks), std::to_string(l.threads), std::to_string(l.slice),
            operations(v, l), t.median_ms, harness::gbps(bench.bytes_moved(), t.median_ms),
            wrong.empty() ? "ok" : "WRONG");
  if (!wrong.empty()) std::printf("  %s: %s\n", v.name, wrong.c_str());
  return wrong.empty();
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab1_histogram", argc, argv,
      {{"variant", "NAME",
        "global, global_unroll, global_ilp4, one_per_thread, shared, inverse, banks, best, or "
        "all",
        "shared"},
       {"data", "FILE", "dataset file, raw int32 samples 0..1023", "data.bin"},
       {"n", "N", "expected number of samples", "the file's size"},
       {"blocks", "N", "grid size", "just enough to cover n"},
       {"threads", "N", "threads per block", "the variant's"},
       {"slice", "N", "samples per thread, or per block for inverse/banks", "the variant's"},
       {"reps", "N", "timed repetitions", "20"}},
      [&](const harness::Args& args) {
        // Everything that can be wrong with the input is reported before touching the GPU,
        // and the options before reading a file that may be large.
        const std::string path = args.get("data", "data.bin");
        const long long expected = args.get_int("n", -1, 1, INT_MAX);
        const int reps = args.get_positive("reps", 20);
        const std::string name = args.get("variant", "shared");
        const lab1::Variant* chosen = name == "all" ? nullptr : &lab1::find_variant(name);
        lab1::Launch requested{};
        if (chosen) {
          requested.blocks = args.get_positive("blocks", 0);
          requested.threads = args.get_positive("threads", chosen->defaults.threads);
          requested.slice = args.get_positive("slice", chosen->defaults.slice);
        }
        std::vector<int> samples = lab1::load_samples(path, expected);
        if (chosen) {
          lab1::resolve_launch(*chosen, static_cast<long long>(samples.size()), requested);
        }
        harness::require_gpu();
        std::printf("data: %s, %zu samples\n", path.c_str(), samples.size());
        lab1::HistogramBench bench(std::move(samples));
        print_bins("first 10 bins (CPU):", bench.expected());

        std::printf("%-15s %7s %7s %6s  %-30s %9s %8s  %s\n", "variant", "blocks", "threads",
                    "slice", "operations", "time_ms", "GB/s", "check");
        bool all_right = true;
        if (name == "all") {
          for (const lab1::Variant& v : lab1::variants()) {
            all_right &= run_variant(bench, v, v.defaults, reps, false);
          }
          harness::TimingOptions options;
          options.min_reps = options.max_reps = reps;
          const harness::TimingStats seed = bench.time_seed_global(options);
          print_row("seed_global*", "", "512", "1024", "harness baseline", seed.median_ms,
                    harness::gbps(bench.bytes_moved(), seed.median_ms), "");
          const std::string cub_wrong = bench.check_cub();
          const harness::TimingStats cub = bench.time_cub(options);
          print_row("cub*", "", "", "", "DeviceHistogram::HistogramEven", cub.median_ms,
                    harness::gbps(bench.bytes_moved(), cub.median_ms),
                    cub_wrong.empty() ? "ok" : "WRONG");
          const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
          std::printf(
              "* harness yardsticks. Copy ceiling (device-to-device, read+write): %.0f GB/s\n",
              ceiling.gbps);
        } else {
          all_right = run_variant(bench, *chosen, requested, reps, true);
        }
        return all_right ? 0 : 1;
      });
}
