// lab5_matmul: runs the dense product variants on random n x k and k x m matrices
// and prints one row per variant (time, GFLOP/s, share of cuBLAS FP32), or, with
// --mqdb, the MQDB challenge's table for one instance. Exits 1 when a product is wrong.
#include <climits>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "bench.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/program.hpp"
#include "variants.hpp"

namespace {

double gflops(double flops, double ms) { return flops / (ms * 1e6); }

void print_row(const std::string& name, const std::string& params, double ms, double gf,
               const std::string& extra, const std::string& check) {
  std::printf("%-16s %-18s %10.3f %10.1f %10s  %s\n", name.c_str(), params.c_str(), ms, gf,
              extra.c_str(), check.c_str());
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

std::string percent(double x) {
  char t[32];
  std::snprintf(t, sizeof t, "%.1f%%", 100 * x);
  return t;
}

std::string ratio(double x) {
  char t[32];
  std::snprintf(t, sizeof t, x < 0.1 ? "%.2gx" : "%.2fx", x);
  return t;
}

int run_dense(const harness::Args& args, int n, int k, int m, int reps, long long seed) {
  const std::string name = args.get("variant", "all");
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  lab5::MatmulBench bench(n, k, m, static_cast<std::uint64_t>(seed));
  std::printf("product: %d x %d times %d x %d, inputs uniform in [-1, 1), check: %s\n", n, k, k, m,
              bench.exact_check() ? "float64 CPU product" : "Freivalds, 3 vectors");
  std::printf("%-16s %-18s %10s %10s %10s  %s\n", "variant", "block", "time_ms", "GFLOP/s",
              "of cuBLAS", "check");
  const std::string blas_wrong = bench.check_cublas();
  const harness::TimingStats blas = bench.time_cublas(options);
  bool all_right = true;
  for (const lab5::Variant& v : lab5::variants()) {
    if (name != "all" && name != v.name) continue;
    lab5::Launch l = v.defaults;
    l.block_x = args.get_positive("block-x", l.block_x);
    l.block_y = args.get_positive("block-y", l.block_y);
    if (name == "all" && v.name == std::string("fine") && bench.flops() > 2.2e9) {
      std::printf("%-16s (skipped at this size: n k m = %.3g atomicAdds)\n", v.name,
                  bench.flops() / 2);
      continue;
    }
    const std::string wrong = bench.check(v.run, l);
    const harness::TimingStats t =
        wrong.empty() ? bench.time(v.run, l, options) : harness::not_timed();
    print_row(v.name, block_text(v, l), t.median_ms, gflops(bench.flops(), t.median_ms),
              percent(blas.median_ms / t.median_ms), wrong.empty() ? "ok" : "WRONG");
    if (!wrong.empty()) std::printf("  %s: %s\n", v.name, wrong.c_str());
    all_right &= wrong.empty();
  }
  if (name == "all") {
    const std::string seed_wrong = bench.check_seed_naive();
    const harness::TimingStats seed = bench.time_seed_naive(options);
    print_row("seed_naive*", "16x16", seed.median_ms, gflops(bench.flops(), seed.median_ms),
              percent(blas.median_ms / seed.median_ms), seed_wrong.empty() ? "ok" : "WRONG");
  }
  print_row("cublas_sgemm*", "FP32 (pedantic)", blas.median_ms,
            gflops(bench.flops(), blas.median_ms), "100.0%", blas_wrong.empty() ? "ok" : "WRONG");
  std::printf("* harness yardsticks\n");
  return all_right ? 0 : 1;
}

int run_mqdb(const harness::Args& args, int n, int k, int reps, long long seed) {
  const bool host = args.has("host");
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;
  lab5::MqdbBench bench(n, k, static_cast<std::uint64_t>(seed));
  std::printf("MQDB seed %lld, n = %d, k = %d, D = {", seed, n, k);
  const auto& d = bench.a().block_size;
  for (std::size_t i = 0; i < d.size() && i < 12; ++i) std::printf("%s%d", i ? ", " : "", d[i]);
  std::printf("%s}; flop ratio dense / blocks = %.1f\n", d.size() > 12 ? ", ..." : "",
              bench.dense_flops() / bench.flops());
  std::printf("%-16s %-18s %10s %10s %10s  %s\n", "product", "params", "time_ms", "GFLOP/s",
              "vs dense", "check");
  const std::string dense_wrong = bench.check_dense_best();
  const harness::TimingStats dense =
      dense_wrong.empty() ? bench.time_dense_best(options) : harness::not_timed();
  bool all_right = dense_wrong.empty();
  if (host) {
    const double ms = bench.time_host_ms();
    print_row("host_sequential", "1 CPU thread", ms, gflops(bench.flops(), ms),
              ratio(dense.median_ms / ms), "");
  }
  std::vector<lab5::Launch> blocks = {{8, 8}, {16, 16}, {32, 8}, {32, 32}};
  if (args.has("block-x") || args.has("block-y")) {
    blocks = {{args.get_positive("block-x", 16), args.get_positive("block-y", 16)}};
  }
  for (const lab5::Launch& l : blocks) {
    const std::string wrong = bench.check(true, l);
    const harness::TimingStats t =
        wrong.empty() ? bench.time(true, l, options) : harness::not_timed();
    print_row("mqdb_naive", std::to_string(l.block_x) + "x" + std::to_string(l.block_y),
              t.median_ms, gflops(bench.flops(), t.median_ms), ratio(dense.median_ms / t.median_ms),
              wrong.empty() ? "ok" : "WRONG");
    if (!wrong.empty()) std::printf("  %s\n", wrong.c_str());
    all_right &= wrong.empty();
  }
  const std::string wrong = bench.check(false);
  const harness::TimingStats t =
      wrong.empty() ? bench.time(false, {0, 0}, options) : harness::not_timed();
  print_row("mqdb_best", "own", t.median_ms, gflops(bench.flops(), t.median_ms),
            ratio(dense.median_ms / t.median_ms), wrong.empty() ? "ok" : "WRONG");
  if (!wrong.empty()) std::printf("  %s\n", wrong.c_str());
  all_right &= wrong.empty();
  print_row("dense best", "n x n x n", dense.median_ms,
            gflops(bench.dense_flops(), dense.median_ms), "1.00x",
            dense_wrong.empty() ? "ok" : "WRONG");
  return all_right ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab5_matmul", argc, argv,
      {{"variant", "NAME", "naive, fine, tiled16, tiled32, regblock, best, or all", "all"},
       {"n", "N", "rows of A and C; with --mqdb the matrix size", "4096; with --mqdb 1000"},
       {"k", "K", "columns of A, rows of B", "n"},
       {"m", "M", "columns of B and C", "n"},
       {"block-x", "N", "threads per block in x, for naive, fine, mqdb_naive", "the variant's"},
       {"block-y", "N", "threads per block in y", "the variant's"},
       {"seed", "S", "input seed, 0 or more", "1; with --mqdb 0"},
       {"reps", "N", "timed repetitions", "10"},
       {"mqdb", "", "the MQDB challenge instead of a dense product", ""},
       {"blocks", "K", "MQDB: number k of diagonal blocks", "3"},
       {"host", "", "MQDB: also time the sequential host product", ""}},
      [&](const harness::Args& args) {
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
        harness::require_gpu();
        if (mqdb) return run_mqdb(args, static_cast<int>(n), static_cast<int>(blocks), reps, seed);
        return run_dense(args, static_cast<int>(n), static_cast<int>(k), static_cast<int>(m), reps,
                         seed);
      });
}
