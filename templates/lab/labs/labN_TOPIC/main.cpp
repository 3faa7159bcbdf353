// labN_TOPIC: runs the student's saxpy on n seeded floats, checks it against the
// CPU and prints its time, its bandwidth and its share of the copy ceiling.
// Exits 1 when the result is wrong.
#include <string>

#include "labN.hpp"
#include "labs/bandwidth.hpp"
#include "labs/cli.hpp"
#include "labs/program.hpp"
#include "labs/result_writer.hpp"

int main(int argc, char** argv) {
  using harness::Column;
  return harness::run_program(
      "labN_TOPIC", argc, argv,
      {{"n", "N", "number of elements, 1 to 2^28", "2^25 = 33554432"},
       {"blocks", "N", "grid size", "just enough to cover n"},
       {"threads", "N", "threads per block, 1 to 1024", "256"},
       {"reps", "N", "timed repetitions", "20"}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
        // Everything that can be wrong with the options is reported before touching the GPU.
        const long long n = args.get_int("n", labN::kTimedN, 1, labN::kMaxN);
        const labN::Launch launch = labN::checked_launch(
            n,
            {args.get_positive("blocks", 0), args.get_positive("threads", labN::kDefaultThreads)});
        const int reps = args.get_positive("reps", 20);
        harness::require_gpu(out);
        out.context(harness::str_printf("saxpy: out = a * x + y on %lld floats, a = %g", n,
                                        static_cast<double>(labN::kA)),
                    {{"n", n}, {"a", static_cast<double>(labN::kA)}});
        labN::SaxpyBench bench(static_cast<int>(n), labN::kTimedSeed);
        const double ceiling = harness::measure_copy_ceiling().gbps;
        const std::string wrong = bench.check(launch);
        harness::TimingOptions options;
        options.min_reps = options.max_reps = reps;
        const harness::TimingStats t =
            wrong.empty() ? bench.time(launch, options) : harness::not_timed();
        const double rate = harness::gbps(bench.bytes_moved(), t.median_ms);
        out.table({Column("blocks", 9), Column("threads", 7), Column("time_ms", 10).fixed(4),
                   Column("gbps", 8).titled("GB/s").fixed(1),
                   Column("copy_pct", 6).titled("%copy").fixed(1), Column("check").gap("  ")});
        out.row({launch.blocks, launch.threads, t.median_ms, rate, 100 * rate / ceiling,
                 wrong.empty() ? "ok" : "WRONG"});
        if (!wrong.empty()) out.note("  saxpy: " + wrong);
        out.context(
            harness::str_printf("copy ceiling (device-to-device, read+write): %.0f GB/s", ceiling),
            {{"copy_ceiling_gbps", ceiling}});
        return wrong.empty() ? 0 : 1;
      });
}
