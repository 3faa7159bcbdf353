// lab3_reduction: sums an int array with the reduction variants of the course and
// prints one row per variant like the book's reduceInteger output: grid, block,
// time, bandwidth, speedup over the CPU's recursiveReduce and over the neighbored
// kernel. Exits 1 when a sum is wrong.
#include <chrono>
#include <climits>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab3.hpp"
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
  return {Column("variant", -25),
          Column("seed_kernel", -29).titled("seed kernel"),
          Column("grid", 9).missing("auto"),
          Column("block", 6),
          Column("time_ms", 9).fixed(4),
          Column("gbps", 8).titled("GB/s").fixed(1),
          Column("vs_cpu", 8).fixed(1).suffix("x"),
          Column("vs_neighbored", 8).titled("vs_neigh").fixed(2).suffix("x").missing("-"),
          Column("check").gap("  ")};
}

struct Row {
  bool right = false;
  double ms = 0;
};

// Checks then times one variant, prints its row. `neigh_ms` 0: no baseline yet.
Row run_variant(harness::ResultWriter& out, lab3::ReductionBench& bench, const lab3::Variant& v,
                lab3::Launch requested, int reps, double cpu_ms, double neigh_ms) {
  const lab3::Launch l = lab3::resolve_launch(v, bench.n(), requested);
  const std::string wrong = bench.check(v, l);
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  const harness::TimingStats t = wrong.empty() ? bench.time(v, l, options) : harness::not_timed();
  out.row({v.name, v.course_name, l.blocks ? Cell(l.blocks) : Cell(), l.threads, t.median_ms,
           harness::gbps(bench.bytes_moved(), t.median_ms), cpu_ms / t.median_ms,
           neigh_ms > 0 ? Cell(neigh_ms / t.median_ms) : Cell(), wrong.empty() ? "ok" : "WRONG"});
  if (!wrong.empty()) out.note("  " + std::string(v.name) + ": " + wrong);
  return Row{wrong.empty(), t.median_ms};
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab3_reduction", argc, argv,
      {{"variant", "NAME", "", "all", harness::names_of(lab3::variants(), {"all"})},
       {"data", "FILE", "dataset file, raw int32", "data.bin"},
       {"random", "N",
        "instead of --data: N values 0..7 generated in-process, N from 1 to 2^28 (e.g. "
        "268435456)",
        ""},
       {"n", "N", "expected number of values in --data", "the file's size"},
       {"threads", "N", "threads per block, a power of two 64..1024", "512, the course's"},
       {"blocks", "N", "shuffle only: grid size", "its own choice"},
       {"reps", "N", "timed repetitions", "20"}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
        // Everything that can be wrong with the input is reported before touching the GPU.
        args.forbid_together("random", "data", "the values come from one or the other");
        args.forbid_together("random", "n", "--n is the count expected in --data");
        const std::string name = args.get("variant", "all");
        const lab3::Variant* chosen = name == "all" ? nullptr : &lab3::find_variant(name);
        lab3::Launch requested{args.get_positive("blocks", 0),
                               args.get_power_of_two("threads", 512, 64, 1024)};
        const int reps = args.get_positive("reps", 20);
        std::string source;
        std::vector<int> values;
        if (args.has("random")) {
          const long long n = args.get_int("random", 0);
          if (n < 1 || n > (1LL << 28)) {
            throw std::invalid_argument("--random must be 1 .. 2^28 (268435456), not " +
                                        std::to_string(n));
          }
          values = lab3::random_values(n);
          source = "random values 0..7 (in-process)";
        } else {
          source = args.get("data", "data.bin");
          values = lab3::load_values(source, args.get_int("n", -1, 1, INT_MAX));
        }
        const long long n = static_cast<long long>(values.size());
        if (chosen) {
          lab3::resolve_launch(*chosen, n, requested);
        } else {
          if (requested.blocks != 0) throw std::invalid_argument("--blocks needs one --variant");
          for (const lab3::Variant& v : lab3::variants()) {
            if (!v.child_per_block()) lab3::resolve_launch(v, n, requested);
          }
        }
        harness::require_gpu(out);
        out.context(harness::str_printf("data: %s, %lld values", source.c_str(), n),
                    {{"data", source}, {"values", n}});

        // The CPU side as in the course: recursiveReduce, timed on the host.
        std::vector<int> copy = values;
        const auto start = std::chrono::steady_clock::now();
        const int cpu_sum = lab3::recursiveReduce(copy.data(), static_cast<int>(n));
        const double cpu_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        out.context(harness::str_printf("cpu reduce (recursiveReduce) elapsed %.3f ms, cpu_sum: %d",
                                        cpu_ms, cpu_sum),
                    {{"cpu_ms", cpu_ms}, {"cpu_sum", cpu_sum}});
        copy = {};

        lab3::ReductionBench bench(std::move(values));
        out.table(columns());
        bool all_right = true;
        // The neighbored kernel is every row's baseline: measured first.
        const Row neigh = run_variant(out, bench, lab3::find_variant("neighbored"),
                                      lab3::Launch{0, requested.threads}, reps, cpu_ms, 0);
        all_right &= neigh.right;
        const double neigh_ms = neigh.right ? neigh.ms : 0;
        for (const lab3::Variant& v : lab3::variants()) {
          if (std::string(v.name) == "neighbored" || (chosen && chosen != &v)) continue;
          if (!chosen && v.child_per_block()) {
            // In `all`, a child tree per block past its block limit is left out, said why.
            try {
              lab3::resolve_launch(v, n, requested);
            } catch (const std::invalid_argument& e) {
              out.note("  " + std::string(v.name) + ": left out: " + e.what());
              continue;
            }
          }
          all_right &= run_variant(out, bench, v, requested, reps, cpu_ms, neigh_ms).right;
        }
        if (!chosen) {
          harness::TimingOptions options;
          options.min_reps = options.max_reps = reps;
          const std::string cub_wrong = bench.check_cub();
          const harness::TimingStats cub = bench.time_cub(options);
          const Cell blank = Cell().shown_as("");
          out.row({"cub*", "DeviceReduce::Sum", blank, blank, cub.median_ms,
                   harness::gbps(bench.bytes_moved(), cub.median_ms), cpu_ms / cub.median_ms,
                   neigh_ms > 0 ? Cell(neigh_ms / cub.median_ms) : Cell(),
                   cub_wrong.empty() ? "ok" : "WRONG"});
          const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
          out.context(harness::str_printf("* harness yardstick. Copy ceiling (device-to-device, "
                                          "read+write): %.0f GB/s",
                                          ceiling.gbps),
                      {{"copy_ceiling_gbps", ceiling.gbps}});
        }
        out.note(
            "time: kernel only (CUDA events; input restored and L2 flushed before each run); "
            "GB/s: 4n bytes read / time");
        return all_right ? 0 : 1;
      });
}
