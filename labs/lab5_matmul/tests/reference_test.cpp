// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// its matmul_best sets the standard the student bars are derived from.
#include <gtest/gtest.h>

#include "lab5.hpp"
#include "lab5_bars.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab5 {
namespace {

TEST(Reference, BestReachesItsShareOfCublasFp32At4096) {
  MatmulBench bench(kTimedSize, kTimedSize, kTimedSize, 1);
  const Variant& best = find_variant("best");
  ASSERT_EQ(bench.check(best.run, best.defaults), "") << "best gives a wrong product";
  ASSERT_EQ(bench.check_cublas(), "") << "cuBLAS gives a wrong product";
  harness::expect_speedup(
      kReferenceCublasShare, [&] { return bench.time_cublas(); },
      [&] { return bench.time(best.run, best.defaults); },
      [&](const harness::TimingStats& blas, const harness::TimingStats& t) {
        return harness::str_printf(
            "best %.3f ms (%.1f TFLOP/s), cuBLAS SGEMM FP32 %.3f ms (%.1f TFLOP/s)", t.median_ms,
            bench.flops() / t.median_ms / 1e9, blas.median_ms,
            bench.flops() / blas.median_ms / 1e9);
      },
      {"reference best / cuBLAS FP32"});
}

}  // namespace
}  // namespace lab5
