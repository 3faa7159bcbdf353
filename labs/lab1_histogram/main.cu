// lab1_histogram: runs histogram variants on a data.bin file and prints one row per
// variant like the course's tables, each with its first 10 bins (compare them with the
// CPU's, or with first_bins.py, the course's Python reader). Exits 1 when one is wrong.
#include <climits>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab1.hpp"
#include "labs/bandwidth.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/named.hpp"
#include "labs/program.hpp"
#include "labs/result_writer.hpp"

namespace {

using harness::Cell;
using harness::Column;

std::vector<Column> columns() {
  return {Column("variant", -15),
          Column("blocks", 7).missing("auto"),
          Column("threads", 7),
          Column("slice", 6),
          Column("operations", -30).gap("  ").missing("-"),
          Column("time_ms", 9).fixed(3),
          Column("gbps", 8).titled("GB/s").fixed(1),
          Column("check", -5).gap("  "),
          Column("first_bins").titled("first 10 bins").gap("  ")};
}

// The number of samples the launch reads, shown as the product that makes it.
Cell operations(const lab1::Variant& v, const lab1::Launch& l) {
  const long long blocks = l.blocks, threads = l.threads, slice = l.slice;
  if (v.work == lab1::Work::SlicePerThread) {
    return Cell(blocks * threads * slice)
        .shown_as(harness::str_printf("%lld x %lld x %lld = %lld", blocks, threads, slice,
                                      blocks * threads * slice));
  }
  if (v.work == lab1::Work::ChunkPerBlock) {
    return Cell(blocks * slice)
        .shown_as(harness::str_printf("%lld x %lld = %lld", blocks, slice, blocks * slice));
  }
  return Cell();
}

// The first 10 bins, as the course's Python reader prints them: "[32663, 32848, ...]".
std::string first_bins(const std::vector<int>& hist) {
  std::string text = "[";
  for (int i = 0; i < 10; ++i) text += (i ? ", " : "") + std::to_string(hist[i]);
  return text + "]";
}

// Checks then times one variant; returns false when its histogram is wrong.
bool run_variant(harness::ResultWriter& out, lab1::HistogramBench& bench, const lab1::Variant& v,
                 lab1::Launch requested, int reps) {
  const lab1::Launch l = lab1::resolve_launch(v, bench.n(), requested);
  const std::string wrong = bench.check(v.run, l);
  const std::string bins = first_bins(bench.last_result());  // before timing, on the file's data
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  const harness::TimingStats t =
      wrong.empty() ? bench.time(v.run, l, options) : harness::not_timed();
  out.row({v.name, l.blocks ? Cell(l.blocks) : Cell(), l.threads, l.slice, operations(v, l),
           t.median_ms, harness::gbps(bench.bytes_moved(), t.median_ms),
           wrong.empty() ? "ok" : "WRONG", bins});
  if (!wrong.empty()) out.note("  " + std::string(v.name) + ": " + wrong);
  return wrong.empty();
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab1_histogram", argc, argv,
      {{"variant", "NAME", "", "shared", harness::names_of(lab1::variants(), {"all"})},
       {"data", "FILE", "dataset file, raw int32 samples 0..1023", "data.bin"},
       {"n", "N", "expected number of samples", "the file's size"},
       {"blocks", "N", "grid size", "just enough to cover n"},
       {"threads", "N", "threads per block", "the variant's"},
       {"slice", "N", "samples per thread, or per block for inverse/banks", "the variant's"},
       {"reps", "N", "timed repetitions", "20"}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
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
        harness::require_gpu(out);
        out.context(harness::str_printf("data: %s, %zu samples", path.c_str(), samples.size()),
                    {{"data", path}, {"samples", samples.size()}});
        lab1::HistogramBench bench(std::move(samples));
        out.context("first 10 bins (CPU): " + first_bins(bench.expected()),
                    {{"first_bins_cpu", first_bins(bench.expected())}});

        out.table(columns());
        bool all_right = true;
        if (name == "all") {
          for (const lab1::Variant& v : lab1::variants()) {
            all_right &= run_variant(out, bench, v, v.defaults, reps);
          }
          harness::TimingOptions options;
          options.min_reps = options.max_reps = reps;
          const Cell blank = Cell().shown_as("");
          const harness::TimingStats course = bench.time_course_global(options);
          out.row({"seed_global*", blank, 512, 1024, Cell().shown_as("harness baseline"),
                   course.median_ms, harness::gbps(bench.bytes_moved(), course.median_ms), Cell()});
          const std::string cub_wrong = bench.check_cub();
          const harness::TimingStats cub = bench.time_cub(options);
          out.row({"cub*", blank, blank, blank, Cell().shown_as("DeviceHistogram::HistogramEven"),
                   cub.median_ms, harness::gbps(bench.bytes_moved(), cub.median_ms),
                   cub_wrong.empty() ? "ok" : "WRONG", first_bins(bench.last_result())});
          const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
          out.context(harness::str_printf("* harness yardsticks. Copy ceiling (device-to-device, "
                                          "read+write): %.0f GB/s",
                                          ceiling.gbps),
                      {{"copy_ceiling_gbps", ceiling.gbps}});
        } else {
          all_right = run_variant(out, bench, *chosen, requested, reps);
        }
        return all_right ? 0 : 1;
      });
}
