// lab2_divergence: runs the divergent kernels and their divergence-free twins on n
// random floats, checks each against the CPU (or the harness's GPU reference above
// 2^21 elements) and prints one row per kernel, then the course's tiny textbook
// kernels for comparison. `--variant simple_divergence --n 32` replays the course's
// simpleDivergence program. Exits 1 when a result is wrong.
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "lab2.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/named.hpp"
#include "labs/program.hpp"
#include "labs/result_writer.hpp"
#include "labs/sync.hpp"

namespace {

unsigned long long grid_of(const lab2::Variant& v, long long n, int threads) {
  long long total = n;
  if (v.run == lab2::warp_aligned) total = (n + 63) / 64 * 64;
  if (v.run == lab2::switch_uniform) total = (n + 1023) / 1024 * 1024;
  return static_cast<unsigned long long>((total + threads - 1) / threads);
}

using harness::Cell;
using harness::Column;

int run_simple(harness::ResultWriter& out, long long n, lab2::Launch launch) {
  // As in the course: data[i] = i (values that stay small), or random for larger n.
  std::vector<int> data(n);
  if (n <= 64) {
    std::iota(data.begin(), data.end(), 0);
  } else {
    data = lab2::random_ints(n, 3, -(1 << 29), (1 << 29));
  }
  std::vector<int> got;
  const std::string wrong = lab2::check_simple_divergence(data, launch, &got);
  const long long grid = (n + launch.threads - 1) / launch.threads;
  out.context(harness::str_printf("simpleDivergence <<<%lld, %d>>> on %lld ints\nResult:", grid,
                                  launch.threads, n),
              {{"grid", grid}, {"threads", launch.threads}, {"n", n}});
  // The first 64 elements, as the course's program prints them.
  out.table({Column("index").gap("h_data["), Column("value").gap("] = ")},
            harness::TableHeader::Hidden);
  for (long long i = 0; i < n && i < 64; ++i) out.row({i, got[i]});
  const char* check = wrong.empty() ? "ok" : "WRONG";
  out.context(std::string("check: ") + check, {{"check", check}});
  if (!wrong.empty()) out.note("  " + wrong);
  return wrong.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab2_divergence", argc, argv,
      {{"variant", "NAME", "", "all",
        harness::names_of(lab2::variants(), {"simple_divergence", "all"})},
       {"n", "N", "number of elements, 1 to 2^30", "2^24 = 16777216"},
       {"threads", "N", "threads per block, a multiple of 32", "256"},
       {"reps", "N", "timed repetitions", "20"}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
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
        harness::require_gpu(out);
        if (name == "simple_divergence") return run_simple(out, n, launch);

        out.context(harness::str_printf("n = %lld floats, %d threads per block; bodies: %d "
                                        "dependent FMAs per branch (even/odd), %d per case "
                                        "(switch)",
                                        n, launch.threads, lab2::kBodyFmas, lab2::kCaseFmas),
                    {{"n", n},
                     {"threads", launch.threads},
                     {"body_fmas", lab2::kBodyFmas},
                     {"case_fmas", lab2::kCaseFmas}});
        lab2::ElementwiseBench bench(static_cast<int>(n), 1);
        harness::TimingOptions options;
        options.min_reps = options.max_reps = reps;
        out.table({Column("variant", -22).titled("kernel"),
                   Column("branch_on", -30).titled("branch on"), Column("grid", 9),
                   Column("block", 6), Column("time_ms", 9).fixed(3), Column("check").gap("  ")});
        bool all_right = true;
        double ms_of[5] = {0, 0, 0, 0, 0};
        for (const lab2::Variant* v : chosen) {
          const std::string wrong = bench.check(*v, launch);
          const harness::TimingStats t =
              wrong.empty() ? bench.time(*v, launch, options) : harness::not_timed();
          ms_of[v - lab2::variants().data()] = t.median_ms;
          out.row({Cell(v->name).shown_as(std::string(v->name) + " (" + v->letter + ")"), v->branch,
                   grid_of(*v, n, launch.threads), launch.threads, t.median_ms,
                   wrong.empty() ? "ok" : "WRONG"});
          if (!wrong.empty()) out.note("  " + std::string(v->name) + ": " + wrong);
          all_right &= wrong.empty();
        }
        if (name == "all") {
          const harness::TimingStats a = bench.time_textbook(false, launch, options);
          const harness::TimingStats b = bench.time_textbook(true, launch, options);
          const unsigned long long g = (n + launch.threads - 1) / launch.threads;
          // No check: the harness's own kernels, timed only.
          out.row({"textbook_even_odd*", "tid % 2 (a = 2; b = 1)", g, launch.threads, a.median_ms});
          out.row(
              {"textbook_warp_aligned*", "(tid / warpSize) % 2", g, launch.threads, b.median_ms});
          out.note(
              "* the course's tiny kernels, shipped by the harness: the compiler predicates "
              "them, so they time the same");
          auto ratio = [&](int slow, int fast) {
            return ms_of[fast] > 0 ? ms_of[slow] / ms_of[fast] : 0;
          };
          out.context(
              harness::str_printf("even_odd / warp_aligned = %.2fx, even_odd / half_block "
                                  "= %.2fx, switch_divergent / switch_uniform = %.2fx, "
                                  "textbook even_odd / warp_aligned = %.2fx",
                                  ratio(0, 1), ratio(0, 2), ratio(3, 4), a.median_ms / b.median_ms),
              {{"even_odd_over_warp_aligned", ratio(0, 1)},
               {"even_odd_over_half_block", ratio(0, 2)},
               {"switch_divergent_over_switch_uniform", ratio(3, 4)},
               {"textbook_even_odd_over_warp_aligned", a.median_ms / b.median_ms}});
        }
        return all_right ? 0 : 1;
      });
}
