// lab5_matmul: runs the dense product variants on random n x k and k x m matrices
// and prints one row per variant (time, GFLOP/s, share of cuBLAS FP32), or, with
// --mqdb, the MQDB challenge's table for one instance. Exits 1 when a product is wrong.
#include <climits>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab5.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/named.hpp"
#include "labs/program.hpp"
#include "labs/result_writer.hpp"

namespace {

using harness::Cell;
using harness::Column;

double gflops(double flops, double ms) { return flops / (ms * 1e6); }

// Both tables: a name, its parameters, the time, GFLOP/s, a comparison, the check.
std::vector<Column> columns(const char* name, const char* params, Column compared) {
  return {Column("variant", -16).titled(name),
          Column(params, -18),
          Column("time_ms", 10).fixed(3),
          Column("gflops", 10).titled("GFLOP/s").fixed(1),
          compared,
          Column("check").gap("  ")};
}

std::string block_text(const lab5::Variant& v, lab5::Launch l) {
  if (v.block == lab5::Block::Chosen) {
    return std::to_string(l.block_x) + "x" + std::to_string(l.block_y);
  }
  if (v.name == std::string("tiled16")) return "16x16 tile";
  if (v.name == std::string("tiled32")) return "32x32 tile";
  if (v.name == std::string("regblock")) return "64x64, 4x4/thread";
  return "own";
}

// Two significant digits below 0.1x, where two decimals would say 0.00x.
Cell ratio(double x) {
  return Cell(x).shown_as(harness::str_printf(x < 0.1 ? "%.2gx" : "%.2fx", x));
}

int run_dense(harness::ResultWriter& out, const harness::Args& args, int n, int k, int m, int reps,
              long long seed) {
  const std::string name = args.get("variant", "all");
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  lab5::MatmulBench bench(n, k, m, static_cast<std::uint64_t>(seed));
  const char* check_by = bench.exact_check() ? "float64 CPU product" : "Freivalds, 3 vectors";
  out.context(harness::str_printf("product: %d x %d times %d x %d, inputs uniform in [-1, 1), "
                                  "check: %s",
                                  n, k, k, m, check_by),
              {{"n", n}, {"k", k}, {"m", m}, {"check_by", check_by}});
  out.table(columns("variant", "block",
                    Column("cublas_pct", 10).titled("of cuBLAS").fixed(1).suffix("%")));
  const std::string blas_wrong = bench.check_cublas();
  const harness::TimingStats blas = bench.time_cublas(options);
  bool all_right = true;
  for (const lab5::Variant& v : lab5::variants()) {
    if (name != "all" && name != v.name) continue;
    lab5::Launch l = v.defaults;
    l.block_x = args.get_positive("block-x", l.block_x);
    l.block_y = args.get_positive("block-y", l.block_y);
    if (name == "all" && v.name == std::string("fine") && bench.flops() > 2.2e9) {
      out.note(harness::str_printf("%-16s (skipped at this size: n k m = %.3g atomicAdds)", v.name,
                                   bench.flops() / 2));
      continue;
    }
    const std::string wrong = bench.check(v.run, l);
    const harness::TimingStats t =
        wrong.empty() ? bench.time(v.run, l, options) : harness::not_timed();
    out.row({v.name, block_text(v, l), t.median_ms, gflops(bench.flops(), t.median_ms),
             100 * (blas.median_ms / t.median_ms), wrong.empty() ? "ok" : "WRONG"});
    if (!wrong.empty()) out.note("  " + std::string(v.name) + ": " + wrong);
    all_right &= wrong.empty();
  }
  if (name == "all") {
    const std::string course_wrong = bench.check_course_naive();
    const harness::TimingStats course = bench.time_course_naive(options);
    out.row({"seed_naive*", "16x16", course.median_ms, gflops(bench.flops(), course.median_ms),
             100 * (blas.median_ms / course.median_ms), course_wrong.empty() ? "ok" : "WRONG"});
  }
  out.row({"cublas_sgemm*", "FP32 (pedantic)", blas.median_ms,
           gflops(bench.flops(), blas.median_ms), 100.0, blas_wrong.empty() ? "ok" : "WRONG"});
  out.note("* harness yardsticks");
  return all_right ? 0 : 1;
}

int run_mqdb(harness::ResultWriter& out, const harness::Args& args, int n, int k, int reps,
             long long seed) {
  const bool host = args.has("host");
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  lab5::MqdbBench bench(n, k, static_cast<std::uint64_t>(seed));
  const auto& d = bench.a().block_size;
  std::string sizes;
  for (std::size_t i = 0; i < d.size() && i < 12; ++i) {
    sizes += (i ? ", " : "") + std::to_string(d[i]);
  }
  if (d.size() > 12) sizes += ", ...";
  const double flop_ratio = bench.dense_flops() / bench.flops();
  out.context(harness::str_printf("MQDB seed %lld, n = %d, k = %d, D = {%s}; flop ratio dense / "
                                  "blocks = %.1f",
                                  seed, n, k, sizes.c_str(), flop_ratio),
              {{"seed", seed},
               {"n", n},
               {"k", k},
               {"block_sizes", sizes},
               {"dense_over_blocks_flops", flop_ratio}});
  out.table(columns("product", "params", Column("vs_dense", 10).titled("vs dense")));
  const std::string dense_wrong = bench.check_dense_best();
  const harness::TimingStats dense =
      dense_wrong.empty() ? bench.time_dense_best(options) : harness::not_timed();
  bool all_right = dense_wrong.empty();
  if (host) {
    const double ms = bench.time_host_ms();
    out.row({"host_sequential", "blocks, 1 thread", ms, gflops(bench.flops(), ms),
             ratio(dense.median_ms / ms), Cell()});
  }
  std::vector<lab5::Launch> blocks = {{8, 8}, {16, 16}, {32, 8}, {32, 32}};
  if (args.has("block-x") || args.has("block-y")) {
    blocks = {{args.get_positive("block-x", 16), args.get_positive("block-y", 16)}};
  }
  for (const lab5::Launch& l : blocks) {
    const std::string wrong = bench.check(true, l);
    const harness::TimingStats t =
        wrong.empty() ? bench.time(true, l, options) : harness::not_timed();
    out.row({"mqdb_naive", std::to_string(l.block_x) + "x" + std::to_string(l.block_y), t.median_ms,
             gflops(bench.flops(), t.median_ms), ratio(dense.median_ms / t.median_ms),
             wrong.empty() ? "ok" : "WRONG"});
    if (!wrong.empty()) out.note("  " + wrong);
    all_right &= wrong.empty();
  }
  const std::string wrong = bench.check(false);
  const harness::TimingStats t =
      wrong.empty() ? bench.time(false, {0, 0}, options) : harness::not_timed();
  out.row({"mqdb_best", "own", t.median_ms, gflops(bench.flops(), t.median_ms),
           ratio(dense.median_ms / t.median_ms), wrong.empty() ? "ok" : "WRONG"});
  if (!wrong.empty()) out.note("  " + wrong);
  all_right &= wrong.empty();
  out.row({"dense best", "n x n x n", dense.median_ms, gflops(bench.dense_flops(), dense.median_ms),
           ratio(1.0), dense_wrong.empty() ? "ok" : "WRONG"});
  return all_right ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab5_matmul", argc, argv,
      {{"variant", "NAME", "", "all", harness::names_of(lab5::variants(), {"all"})},
       {"n", "N", "rows of A and C; with --mqdb the matrix size", "4096; with --mqdb 1000"},
       {"k", "K", "columns of A, rows of B", "n"},
       {"m", "M", "columns of B and C", "n"},
       {"block-x", "N", "threads per block in x, for naive, naive_swapped, fine, mqdb_naive",
        "the variant's"},
       {"block-y", "N", "threads per block in y", "the variant's"},
       {"seed", "S", "input seed, 0 or more", "1; with --mqdb 0"},
       {"reps", "N", "timed repetitions", "10"},
       {"mqdb", "", "the MQDB challenge instead of a dense product", ""},
       {"blocks", "K", "MQDB: number k of diagonal blocks", "3"},
       {"host", "", "MQDB: also time the sequential host product (blocks only)", ""}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
        // Everything that can be wrong with the input is reported before touching the GPU.
        const bool mqdb = args.has("mqdb");
        const long long n = args.get_int("n", mqdb ? 1000 : 4096);
        const long long k = args.get_int("k", n), m = args.get_int("m", n);
        const int reps = args.get_positive("reps", 10);
        const long long seed = args.get_int("seed", mqdb ? 0 : 1, 0, LLONG_MAX);
        const long long blocks = args.get_int("blocks", 3);
        if (mqdb) {
          if (n < 1 || n > 46340)
            throw std::invalid_argument("MQDB size n must be 1..46340, not " + std::to_string(n));
          if (blocks < 1 || blocks > n || blocks > 65535) {
            throw std::invalid_argument(
                "MQDB needs 1 <= k <= n (and k <= 65535) diagonal blocks, not k = " +
                std::to_string(blocks) + " for n = " + std::to_string(n));
          }
          if (args.has("block-x") || args.has("block-y")) {
            lab5::check_mqdb_launch(
                {args.get_positive("block-x", 16), args.get_positive("block-y", 16)});
          }
        } else {
          const std::string name = args.get("variant", "all");
          for (const lab5::Variant& v : lab5::variants()) {
            if (name != "all" && name != v.name) continue;
            lab5::check_launch(v, n, k, m,
                               {args.get_positive("block-x", v.defaults.block_x),
                                args.get_positive("block-y", v.defaults.block_y)});
          }
          if (name != "all") lab5::find_variant(name);
        }
        harness::require_gpu(out);
        if (mqdb) {
          return run_mqdb(out, args, static_cast<int>(n), static_cast<int>(blocks), reps, seed);
        }
        return run_dense(out, args, static_cast<int>(n), static_cast<int>(k), static_cast<int>(m),
                         reps, seed);
      });
}
