// lab2_sum_matrix: the course's sumMatrix program. sumMatrixOnGPU2D adds two
// nx x ny float matrices (default 2^14 x 2^14, as in the course) with the block
// shape given by --block-x and --block-y; without them it runs the course's four
// shapes (32,32), (32,16), (16,32), (16,16). One row per shape, like the course's
// table.
// Exits 1 when a sum is wrong.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lab2.hpp"
#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/program.hpp"
#include "labs/result_writer.hpp"

int main(int argc, char** argv) {
  return harness::run_program(
      "lab2_sum_matrix", argc, argv,
      {{"block-x", "N", "block size in x (along a row); with --block-y",
        "the course's four shapes"},
       {"block-y", "N", "block size in y; with --block-x", ""},
       {"nx", "N", "columns", "16384"},
       {"ny", "N", "rows", "16384"},
       {"reps", "N", "timed repetitions", "10"}},
      [&](const harness::Args& args, harness::ResultWriter& out) {
        const long long nx = args.get_int("nx", 1 << 14), ny = args.get_int("ny", 1 << 14);
        if (nx < 1 || ny < 1 || nx > (1LL << 30) || ny > (1LL << 30) || nx * ny > (1LL << 30)) {
          throw std::invalid_argument(
              "--nx and --ny must be at least 1, with nx * ny at most 2^30, not " +
              std::to_string(nx) + " x " + std::to_string(ny));
        }
        std::vector<lab2::Block2D> shapes;
        if (args.has("block-x") || args.has("block-y")) {
          if (!args.has("block-x") || !args.has("block-y"))
            throw std::invalid_argument("give both --block-x and --block-y");
          shapes.push_back(
              lab2::check_block(args.get_positive("block-x", 0), args.get_positive("block-y", 0)));
        } else {
          shapes = {{32, 32}, {32, 16}, {16, 32}, {16, 16}};
        }
        const int reps = args.get_positive("reps", 10);
        harness::require_gpu(out);
        out.context(harness::str_printf("Matrix size: nx %lld ny %lld", nx, ny),
                    {{"nx", nx}, {"ny", ny}});
        lab2::MatrixBench bench(static_cast<int>(nx), static_cast<int>(ny), 7);
        harness::TimingOptions options;
        options.min_reps = options.max_reps = reps;
        // The course's sentence per run, its figures in columns.
        out.table({harness::Column("grid_x").gap("sumMatrixOnGPU2D <<< ("),
                   harness::Column("grid_y").gap(","), harness::Column("block_x").gap("), ("),
                   harness::Column("block_y").gap(","),
                   harness::Column("time_ms").gap(") >>> elapsed ").fixed(3),
                   harness::Column("gbps", 7).gap(" ms  ").fixed(0),
                   harness::Column("check").gap(" GB/s  ")},
                  harness::TableHeader::Hidden);
        bool all_right = true;
        for (const lab2::Block2D b : shapes) {
          const std::string wrong = bench.check(b);
          const harness::TimingStats t =
              wrong.empty() ? bench.time(b, options) : harness::not_timed();
          const long long gx = (nx + b.x - 1) / b.x, gy = (ny + b.y - 1) / b.y;
          out.row({gx, gy, b.x, b.y, t.median_ms, harness::gbps(bench.bytes_moved(), t.median_ms),
                   wrong.empty() ? "ok" : "WRONG"});
          if (!wrong.empty()) out.note("  " + wrong);
          all_right &= wrong.empty();
        }
        return all_right ? 0 : 1;
      });
}
