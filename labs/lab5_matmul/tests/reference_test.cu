// Bars only the reference solution must meet (registered for LAB_IMPL=solutions):
// its matmul_best sets the standard the student bars are derived from.
#include <gtest/gtest.h>

#include <cstdio>

#include "lab5.hpp"
#include "lab5_bars.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab5 {
namespace {

TEST(Reference, BestReachesItsShareOfCublasFp32At4096) {
  MatmulBench bench(kTimedSize, kTimedSize, kTimedSize, 1);
  const Variant& best = find_variant("best");
  ASSERT_EQ(bench.check(best.run, best.defaults), "") << "best gives a wrong product";
  ASSERT_EQ(bench.check_cublas(), "") << "cuBLAS gives a wrong product";
  const harness::RatioVerdict verdict = harness::ratio_at_least(kReferenceCublasShare, [&] {
    const harness::TimingStats blas = bench.time_cublas();
    const harness::TimingStats t = bench.time(best.run, best.defaults);
    char detail[200];
    std::snprintf(detail, sizeof detail,
                  "best %.3f ms (%.1f TFLOP/s), cuBLAS SGEMM FP32 %.3f ms (%.1f TFLOP/s)",
                  t.median_ms, bench.flops() / t.median_ms / 1e9, blas.median_ms,
                  bench.flops() / blas.median_ms / 1e9);
    return harness::speedup(blas, t, detail);
  });
  harness::report_timing("reference best / cuBLAS FP32", verdict);
  EXPECT_TRUE(verdict.passed) << verdict.message();
}

}  // namespace
}  // namespace lab5
