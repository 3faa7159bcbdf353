// lab6_image_pipeline: runs the student's steps of the course's image-repair
// pipeline and prints one row per step, like the report's benchmarks: time,
// bandwidth, the scans against CUB's. On a corrupted image (--data): the
// predicate, each scan of the predicate, the shift, the scatter, and the whole
// compaction with each scan; then steps 4-8, each variant of the map and the
// histogram. On values to scan (--random N): the scans and the shift; then step 9
// on N keys, the radix sort beside CUB's. Exits 1 when a step is wrong.
#include <chrono>
#include <climits>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "first_call.hpp"
#include "lab6.hpp"
#include "labs/bandwidth.hpp"
#include "labs/cli.hpp"
#include "labs/named.hpp"
#include "labs/program.hpp"
#include "labs/result_writer.hpp"
#include "pipeline.hpp"

namespace {

using harness::Cell;
using harness::Column;

std::vector<Column> columns() {
  return {Column("step", -11),
          Column("variant", -13).missing(""),
          Column("time_ms", 9).fixed(4),
          Column("gbps", 8).titled("GB/s").fixed(1),
          Column("vs_cub", 7).fixed(2).suffix("x").missing("-"),
          Column("check").gap("  ")};
}

// Checks then times one step and prints its row; its time, or 0 when wrong.
double run_row(harness::ResultWriter& out, const char* step, const char* variant, double bytes,
               const std::function<std::string()>& check,
               const std::function<harness::TimingStats(const harness::TimingOptions&)>& time,
               int reps, double cub_ms, bool* all_right) {
  const std::string wrong = check();
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  const harness::TimingStats t = wrong.empty() ? time(options) : harness::not_timed();
  out.row({step, variant ? Cell(variant) : Cell(), t.median_ms, harness::gbps(bytes, t.median_ms),
           cub_ms > 0 ? Cell(cub_ms / t.median_ms) : Cell(), wrong.empty() ? "ok" : "WRONG"});
  if (!wrong.empty())
    out.note("  " + std::string(step) + " " + (variant ? variant : "") + ": " + wrong);
  *all_right &= wrong.empty();
  return wrong.empty() ? t.median_ms : 0;
}

// ---- Steps 4-9 ------------------------------------------------------------------------

using Wanted = std::function<bool(const char*)>;

// Steps 4-8 on the image, each fed the CPU's result of the steps before it.
void image_rows(harness::ResultWriter& out, lab6::CorruptedImage image, const Wanted& wanted,
                int reps, bool* all_right) {
  lab6::ImageBench bench(std::move(image));
  using Step = lab6::ImageBench::Step;
  for (const lab6::MapVariant& v : lab6::map_variants()) {
    if (!wanted(v.name)) continue;
    run_row(
        out, "map", v.name, bench.map_bytes(), [&] { return bench.check_map(v); },
        [&](const harness::TimingOptions& o) { return bench.time_map(v, o); }, reps, 0, all_right);
  }
  for (const lab6::HistogramVariant& v : lab6::histogram_variants()) {
    if (!wanted(v.name)) continue;
    run_row(
        out, "histogram", v.name, bench.histogram_bytes(), [&] { return bench.check_histogram(v); },
        [&](const harness::TimingOptions& o) { return bench.time_histogram(v, o); }, reps, 0,
        all_right);
  }
  const struct {
    const char* step;
    Step which;
    double bytes;
    std::function<std::string()> check;
  } steps[] = {
      {"cdf", Step::Cumulative, bench.bins_bytes(), [&] { return bench.check_cumulative(); }},
      {"cdf_min", Step::FirstNonZero, bench.bins_bytes(),
       [&] { return bench.check_first_non_zero(); }},
      {"equalize", Step::Equalize, bench.equalize_bytes(), [&] { return bench.check_equalize(); }},
      {"reduce", Step::Reduce, bench.reduce_bytes(), [&] { return bench.check_reduce(); }},
  };
  for (const auto& s : steps) {
    run_row(
        out, s.step, nullptr, s.bytes, s.check,
        [&](const harness::TimingOptions& o) { return bench.time_step(s.which, o); }, reps, 0,
        all_right);
  }
}

// Step 9 on n keys over all 32 bits: the order check of the sorted keys, the radix
// sort, CUB's.
void sort_rows(harness::ResultWriter& out, long long n, const Wanted& wanted, int reps,
               bool* all_right) {
  if (!wanted(lab6::kRadixSortVariant)) return;  // sorting on the CPU takes seconds
  lab6::SortBench bench(lab6::random_keys(n, lab6::kTimedSortSeed));
  const std::string cub_wrong = bench.check_cub();
  const double cub_ms = run_row(
      out, "sort", "cub*", bench.sort_bytes(), [&] { return cub_wrong; },
      [&](const harness::TimingOptions& o) { return bench.time_cub(o); }, reps, 0, all_right);
  run_row(
      out, "order", nullptr, bench.order_bytes(),
      [&] { return bench.check_order_of(bench.sorted()); },
      [&](const harness::TimingOptions& o) { return bench.time_order(o); }, reps, 0, all_right);
  run_row(
      out, "sort", lab6::kRadixSortVariant, bench.sort_bytes(), [&] { return bench.check_sort(); },
      [&](const harness::TimingOptions& o) { return bench.time_sort(o); }, reps, cub_ms, all_right);
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab6_image_pipeline", argc, argv,
      {{"variant", "NAME", "the variant: a scan, a map, a histogram or the sort", "all",
        lab6::variant_names()},
       {"data", "FILE", "a corrupted image, raw int32 (datasets/lab6.json)", "data.bin"},
       {"random", "N",
        "instead of --data: scan N values 0..7 and sort N keys, generated in-process, N from 1 "
        "to 2^28 (e.g. 67108864)",
        ""},
       {"n", "N", "expected number of values in --data", "the file's size"},
       {"reps", "N", "timed repetitions", "20"},
       {"pipeline", "",
        "the report's final benchmark instead: a batch of --data images end to end, CPU, GPU "
        "and Thrust",
        ""},
       {"images", "N", "images in the --pipeline batch", "30"},
       {"host-memory", "KIND",
        "the --pipeline batch's host buffers: pinned (cudaMallocHost) or pageable (malloc)",
        "pinned"},
       {"first-call", "CALL",
        "instead: time this process's first CUDA call, malloc (none before the first "
        "cudaMalloc), set_device or free0, then a cudaMalloc",
        ""}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
        if (args.has("first-call")) return lab6::first_call_table(args.get("first-call", ""), out);
        // Everything that can be wrong with the input is reported before touching the GPU.
        args.forbid_together("random", "data", "the input is one or the other");
        args.forbid_together("random", "n", "--n is the count expected in --data");
        const std::string name = lab6::checked_variant(args.get("variant", "all"));
        const int reps = args.get_positive("reps", 20);
        if (args.has("pipeline") || args.has("images") || args.has("host-memory")) {
          if (!args.has("pipeline")) {
            throw harness::UsageError(
                "--images and --host-memory set the --pipeline batch; add --pipeline");
          }
          const lab6::HostMemory memory =
              lab6::parse_host_memory(args.get("host-memory", "pinned"));
          args.forbid_together("pipeline", "random", "the pipeline repairs --data images");
          const int images = args.get_positive("images", lab6::kBatchImages);
          const std::string source = args.get("data", "data.bin");
          const lab6::CorruptedImage image =
              lab6::load_image(source, args.get_int("n", -1, 1, INT_MAX));
          harness::require_gpu(out);
          return lab6::pipeline_table(image, images, reps, memory, out);
        }
        const auto wanted = [&](const auto& v) { return name == "all" || name == v.name; };
        bool all_right = true;

        if (args.has("random")) {
          const long long n = args.get_int("random", 0);
          if (n < 1 || n > lab6::kMaxScanN) {
            throw std::invalid_argument("--random must be 1 .. 2^28 (268435456), not " +
                                        std::to_string(n));
          }
          harness::require_gpu(out);
          out.context(harness::str_printf("scan: %lld values 0..7 (in-process)", n),
                      {{"values", n}});
          lab6::ScanBench bench(lab6::random_values(n, lab6::kTimedScanSeed));
          out.table(columns());
          const std::string cub_wrong = bench.check_cub();
          const double cub_ms = run_row(
              out, "scan", "cub*", bench.bytes_moved(), [&] { return cub_wrong; },
              [&](const harness::TimingOptions& o) { return bench.time_cub(o); }, reps, 0,
              &all_right);
          for (const lab6::ScanVariant& v : lab6::scan_variants()) {
            if (!wanted(v)) continue;
            run_row(
                out, "scan", v.name, bench.bytes_moved(), [&] { return bench.check(v); },
                [&](const harness::TimingOptions& o) { return bench.time(v, o); }, reps, cub_ms,
                &all_right);
          }
          // Step 9 on N keys.
          const auto wanted_name = [&](const char* v) { return name == "all" || name == v; };
          sort_rows(out, n, wanted_name, reps, &all_right);
          if (wanted_name(lab6::kRadixSortVariant)) {
            out.note("* harness yardstick: CUB DeviceRadixSort::SortKeys (all 32 bits)");
          }
          out.note("* harness yardstick: CUB DeviceScan::InclusiveSum");
          out.note(
              "time: kernels only (CUDA events; L2 flushed before each run); GB/s: 8n bytes "
              "(read + write) / time; vs_cub: CUB's time / this time");
          return all_right ? 0 : 1;
        }

        const std::string source = args.get("data", "data.bin");
        lab6::CorruptedImage image = lab6::load_image(source, args.get_int("n", -1, 1, INT_MAX));
        harness::require_gpu(out);
        out.context(harness::str_printf("data: %s, %lld values, %lld pixels", source.c_str(),
                                        image.n(), image.image_size),
                    {{"data", source}, {"values", image.n()}, {"pixels", image.image_size}});

        // The course's CPU loops (predicate, exclusive scan, scatter), timed on the host.
        const auto start = std::chrono::steady_clock::now();
        const std::vector<int> pixels = lab6::compact_cpu(image.buffer);
        const double cpu_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        out.context(harness::str_printf("cpu compaction elapsed %.3f ms (%zu pixels kept)", cpu_ms,
                                        pixels.size()),
                    {{"cpu_compaction_ms", cpu_ms}});

        const lab6::CorruptedImage to_repair = image;  // steps 4-8, below
        lab6::CompactionBench bench(std::move(image));
        using Step = lab6::CompactionBench::Step;
        out.table(columns());
        run_row(
            out, "predicate", nullptr, bench.predicate_bytes(),
            [&] { return bench.check_predicate(); },
            [&](const harness::TimingOptions& o) { return bench.time_step(Step::Predicate, o); },
            reps, 0, &all_right);
        for (const lab6::ScanVariant& v : lab6::scan_variants()) {
          if (!wanted(v)) continue;
          run_row(
              out, "scan", v.name, bench.scan_bytes(), [&] { return bench.check_scan(v); },
              [&](const harness::TimingOptions& o) { return bench.time_scan(v, o); }, reps, 0,
              &all_right);
        }
        run_row(
            out, "shift", nullptr, bench.scan_bytes(), [&] { return bench.check_shift(); },
            [&](const harness::TimingOptions& o) { return bench.time_step(Step::Shift, o); }, reps,
            0, &all_right);
        run_row(
            out, "scatter", nullptr, bench.scatter_bytes(), [&] { return bench.check_scatter(); },
            [&](const harness::TimingOptions& o) { return bench.time_step(Step::Scatter, o); },
            reps, 0, &all_right);
        for (const lab6::ScanVariant& v : lab6::scan_variants()) {
          if (!wanted(v)) continue;
          run_row(
              out, "compaction", v.name, bench.compaction_bytes(),
              [&] { return bench.check_compaction(v); },
              [&](const harness::TimingOptions& o) { return bench.time_compaction(v, o); }, reps, 0,
              &all_right);
        }
        // Steps 4-8 on the image.
        image_rows(
            out, to_repair, [&](const char* v) { return name == "all" || name == v; }, reps,
            &all_right);
        out.note(
            "map, equalize: in place, each pixel read and written; histogram, reduce: each pixel "
            "read; cdf, cdf_min: the 256 bins read and written");
        out.note(
            "time: kernels only (CUDA events; L2 flushed before each run); GB/s: the bytes a "
            "step must read and write / time; compaction: the four steps chained");
        return all_right ? 0 : 1;
      });
}
