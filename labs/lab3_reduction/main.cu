// lab3_reduction: sums an int array with the reduction variants of the seeds and
// prints one row per variant like the book's reduceInteger output: grid, block,
// time, bandwidth, speedup over the CPU's recursiveReduce and over the neighbored
// kernel. Exits 1 when a sum is wrong.
#include <chrono>
#include <climits>
#include <cstdio>
#include <exception>
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

void print_header() {
  std::printf("%-25s %-29s %9s %6s %9s %8s %8s %8s  %s\n", "variant", "seed kernel", "grid",
              "block", "time_ms", "GB/s", "vs_cpu", "vs_neigh", "check");
}

void print_row(const char* name, const char* seed, const std::string& grid,
               const std::string& block, double ms, double gbps, double cpu_ms, double neigh_ms,
               const char* check) {
  char vs_neigh[32] = "-";
  if (neigh_ms > 0) std::snprintf(vs_neigh, sizeof vs_neigh, "%.2fx", neigh_ms / ms);
  char vs_cpu[32];
  std::snprintf(vs_cpu, sizeof vs_cpu, "%.1fx", cpu_ms / ms);
  std::printf("%-25s %-29s %9s %6s %9.4f %8.1f %8s %8s  %s\n", name, seed, grid.c_str(),
              block.c_str(), ms, gbps, vs_cpu, vs_neigh, check);
}

struct Row {
  bool right = false;
  double ms = 0;
};

// Checks then times one variant, prints its row.
Row run_variant(lab3::ReductionBench& bench, const lab3::Variant& v, lab3::Launch requested,
                int reps, double cpu_ms, double neigh_ms) {
  const lab3::Launch l = lab3::resolve_launch(v, bench.n(), requested);
  const std::string wrong = bench.check(v, l);
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  const harness::TimingStats t = wrong.empty() ? bench.time(v, l, options) : harness::not_timed();
  print_row(v.name, v.seed_name, l.blocks ? std::to_string(l.blocks) : std::string("auto"),
            std::to_string(l.threads), t.median_ms, harness::gbps(bench.bytes_moved(), t.median_ms),
            cpu_ms, neigh_ms, wrong.empty() ? "ok" : "WRONG");
  if (!wrong.empty()) std::printf("  %s: %s\n", v.name, wrong.c_str());
  return Row{wrong.empty(), t.median_ms};
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab3_reduction", argc, argv,
      {{"variant", "NAME",
        "neighbored, neighbored_less, interleaved, unrolling2, unrolling4, unrolling8, "
        "unroll_warps8, complete_unroll8, complete_unroll_template, shuffle, or all",
        "all"},
       {"data", "FILE", "dataset file, raw int32", "data.bin"},
       {"random", "N",
        "instead of --data: N values 0..7 generated in-process, N from 1 to 2^28 (e.g. "
        "268435456)",
        ""},
       {"n", "N", "expected number of values in --data", "the file's size"},
       {"threads", "N", "threads per block, a power of two 64..1024", "512, the seeds'"},
       {"blocks", "N", "shuffle only: grid size", "its own choice"},
       {"reps", "N", "timed repetitions", "20"}},
      [&](const harness::Args& args) {
        // Everything that can be wrong with the input is reported before touching the GPU.
        args.forbid_together("random", "data", "the values come from one or the other");
        args.forbid_together("random", "n", "--n is the count expected in --data");
        const std::string name = args.get("variant", "all");
        const lab3::Variant* chosen = name == "all" ? nullptr : &lab3::find_variant(name);
        lab3::Launch requested{args.get_positive("blocks", 0), args.get_positive("threads", 512)};
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
          for (const lab3::Variant& v : lab3::variants()) lab3::resolve_launch(v, n, requested);
        }
        harness::require_gpu();
        std::printf("data: %s, %lld values\n", source.c_str(), n);

        // The CPU side as in the seeds: recursiveReduce, timed on the host.
        std::vector<int> copy = values;
        const auto start = std::chrono::steady_clock::now();
        const int cpu_sum = lab3::recursiveReduce(copy.data(), static_cast<int>(n));
        const double cpu_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        std::printf("cpu reduce (recursiveReduce) elapsed %.3f ms, cpu_sum: %d\n", cpu_ms, cpu_sum);
        copy = {};

        lab3::ReductionBench bench(std::move(values));
        print_header();
        bool all_right = true;
        // The neighbored kernel is every row's baseline: measured first.
        const Row neigh = run_variant(bench, lab3::find_variant("neighbored"),
                                      lab3::Launch{0, requested.threads}, reps, cpu_ms, 0);
        all_right &= neigh.right;
        const double neigh_ms = neigh.right ? neigh.ms : 0;
        for (const lab3::Variant& v : lab3::variants()) {
          if (std::string(v.name) == "neighbored" || (chosen && chosen != &v)) continue;
          all_right &= run_variant(bench, v, requested, reps, cpu_ms, neigh_ms).right;
        }
        if (!chosen) {
          harness::TimingOptions options;
          options.min_reps = options.max_reps = reps;
          const std::string cub_wrong = bench.check_cub();
          const harness::TimingStats cub = bench.time_cub(options);
          print_row("cub*", "DeviceReduce::Sum", "", "", cub.median_ms,
                    harness::gbps(bench.bytes_moved(), cub.median_ms), cpu_ms, neigh_ms,
                    cub_wrong.empty() ? "ok" : "WRONG");
          const harness::CopyCeiling ceiling = harness::measure_copy_ceiling();
          std::printf(
              "* harness yardstick. Copy ceiling (device-to-device, read+write): %.0f GB/s\n",
              ceiling.gbps);
        }
        std::printf(
            "time: kernel only (CUDA events; input restored and L2 flushed before each run); "
            "GB/s: 4n bytes read / time\n");
        return all_right ? 0 : 1;
      });
}
