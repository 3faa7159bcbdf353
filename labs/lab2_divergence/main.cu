// lab2_divergence: runs the divergent kernels and their divergence-free twins on n
// random floats, checks each against the CPU (or the harness's GPU reference above
// 2^21 elements) and prints one row per kernel, then the course's tiny textbook
// kernels for comparison. `--variant simple_divergence --n 32` replays the course's
// simpleDivergence program. Exits 1 when a result is wrong.
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "bench.hpp"
#include "cpu_reference.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/program.hpp"
#include "labs/sync.hpp"
#include "variants.hpp"

namespace {

unsigned long long grid_of(const lab2::Variant& v, long long n, int threads) {
  long long total = n;
  if (v.run == lab2::warp_aligned) total = (n + 63) / 64 * 64;
  if (v.run == lab2::switch_uniform) total = (n + 1023) / 1024 * 1024;
  return static_cast<unsigned long long>((total + threads - 1) / threads);
}

int run_simple(long long n, lab2::Launch launch) {
  // As in the course: data[i] = i (values that stay small), or random for larger n.
  std::vector<int> data(n);
  if (n <= 64) {
    std::iota(data.begin(), data.end(), 0);
  } else {
    data = lab2::random_ints(n, 3, -(1 << 29), (1 << 29));
  }
  std::vector<int> got;
  const std::string wrong = lab2::check_simple_divergence(data, launch, &got);
  std::printf("simpleDivergence <<<%lld, %d>>> on %lld ints\nResult:\n",
              (n + launch.threads - 1) / launch.threads, launch.threads, n);
  for (long long i = 0; i < n && i < 64; ++i) std::printf("h_data[%lld] = %d\n", i, got[i]);
  std::printf("check: %s\n", wrong.empty() ? "ok" : "WRONG");
  if (!wrong.empty()) std::printf("  %s\n", wrong.c_str());
  return wrong.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab2_divergence", argc, argv,
      {{"variant", "NAME",
        "even_odd, warp_aligned, half_block, switch_divergent, switch_uniform, "
        "simple_divergence, or all",
        "all"},
       {"n", "N", "number of elements, 1 to 2^30", "2^24 = 16777216"},
       {"threads", "N", "threads per block, a multiple of 32", "256"},
       {"reps", "N", "timed repetitions", "20"}},
      [&](const harness::Args& args) {
        const std::string name = args.get("variant", "all");
        const long long n = args.get_int("n", 1 << 24);
        if (n < 1 || n > (1LL << 30)) {
          throw std::invalid_argument("--n must be from 1 to 2^30, not " + std::to_string(n));
        }
        const lab2::Launch launch =
            lab2::check_launch(args.get_int("threads", lab2::kDefaultThreads));
        std::vector<const lab2::Variant*> chosen;
        if (name == "all") {
          for (const lab2::Variant& v : lab2::variants()) chosen.push_back(&v);
        } else if (name != "simple_divergence") {
          chosen.push_back(&lab2::find_variant(name));
        }
        const int reps = args.get_positive("reps", 20);
        harness::require_gpu();
        if (name == "simple_divergence") return run_simple(n, launch);

        std::printf(
            "n = %lld floats, %d threads per block; bodies: %d dependent FMAs per branch "
            "(even/odd), %d per case (switch)\n",
            n, launch.threads, lab2::kBodyFmas, lab2::kCaseFmas);
        lab2::ElementwiseBench bench(static_cast<int>(n), 1);
        harness::TimingOptions options;
        options.min_reps = options.max_reps = reps;
        std::printf("%-22s %-30s %9s %6s %9s  %s\n", "kernel", "branch on", "grid", "block",
                    "time_ms", "check");
        bool all_right = true;
        double ms_of[5] = {0, 0, 0, 0, 0};
        for (const lab2::Variant* v : chosen) {
          const std::string wrong = bench.check(*v, launch);
          const harness::TimingStats t =
              wrong.empty() ? bench.time(*v, launch, options) : harness::not_timed();
          ms_of[v - lab2::variants().data()] = t.median_ms;
          std::printf("%-22s %-30s %9llu %6d %9.3f  %s\n",
                      (std::string(v->name) + " (" + v->letter + ")").c_str(), v->branch,
                      grid_of(*v, n, launch.threads), launch.threads, t.median_ms,
                      wrong.empty() ? "ok" : "WRONG");
          if (!wrong.empty()) std::printf("  %s: %s\n", v->name, wrong.c_str());
          all_right &= wrong.empty();
        }
        if (name == "all") {
          const harness::TimingStats a = bench.time_textbook(false, launch, options);
          const harness::TimingStats b = bench.time_textbook(true, launch, options);
          const unsigned long long g = (n + launch.threads - 1) / launch.threads;
          std::printf("%-22s %-30s %9llu %6d %9.3f\n", "textbook_even_odd*",
                      "tid % 2 (a = 2; b = 1)", g, launch.threads, a.median_ms);
          std::printf("%-22s %-30s %9llu %6d %9.3f\n", "textbook_warp_aligned*",
                      "(tid / warpSize) % 2", g, launch.threads, b.median_ms);
          std::printf(
              "* the course's tiny kernels, shipped by the harness: the compiler predicates "
              "them, so they time the same\n");
          auto ratio = [&](int slow, int fast) {
            return ms_of[fast] > 0 ? ms_of[slow] / ms_of[fast] : 0;
          };
          std::printf(
              "even_odd / warp_aligned = %.2fx, even_odd / half_block = %.2fx, "
              "switch_divergent / switch_uniform = %.2fx, textbook even_odd / warp_aligned = "
              "%.2fx\n",
              ratio(0, 1), ratio(0, 2), ratio(3, 4), a.median_ms / b.median_ms);
        }
        return all_right ? 0 : 1;
      });
}
