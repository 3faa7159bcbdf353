// lab5 timing bars for students: ratios measured in this process, on this GPU.
#include <gtest/gtest.h>

#include <string>

#include "lab5.hpp"
#include "lab5_bars.hpp"
#include "labs/result_writer.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"

namespace lab5 {
namespace {

MatmulBench timed_bench() { return MatmulBench(kTimedSize, kTimedSize, kTimedSize, 1); }

// Checks `name` first: a wrong product has no meaningful time.
const Variant& checked(MatmulBench& bench, const char* name) {
  const Variant& v = find_variant(name);
  const std::string wrong = bench.check(v.run, v.defaults);
  if (!wrong.empty()) {
    ADD_FAILURE() << "variant " << name << " gives a wrong product at " << kTimedSize
                  << ", so its time means nothing; fix correctness first:\n"
                  << wrong;
    throw std::runtime_error("fix correctness first");
  }
  return v;
}

// The faster of the two tiled instantiations (both must be right).
const Variant& faster_tiled(MatmulBench& bench, harness::TimingOptions quick) {
  const Variant& t16 = checked(bench, "tiled16");
  const Variant& t32 = checked(bench, "tiled32");
  return bench.time(t16.run, t16.defaults, quick).median_ms <
                 bench.time(t32.run, t32.defaults, quick).median_ms
             ? t16
             : t32;
}

// Picking a variant to time needs less than the timing itself.
harness::TimingOptions quick() { return harness::quick_options(150); }

TEST(Timing, TiledBeatsTheSeedNaiveKernelAt4096) {
  MatmulBench bench = timed_bench();
  const Variant& tiled = faster_tiled(bench, quick());
  harness::expect_speedup(
      kTiledSpeedup, [&] { return bench.time_course_naive(); },
      [&] { return bench.time(tiled.run, tiled.defaults); },
      [&](const harness::TimingStats& course, const harness::TimingStats& mine) {
        return harness::str_printf("%s %.3f ms vs the course's naive kernel (16 x 16) %.3f ms",
                                   tiled.name, mine.median_ms, course.median_ms);
      },
      {"tiled / seed naive", "tiled speedup over the course's naive kernel at 4096: "});
}

TEST(Timing, RegisterBlockedBeatsTiledAt4096) {
  MatmulBench bench = timed_bench();
  const Variant& reg = checked(bench, "regblock");
  const Variant& tiled = faster_tiled(bench, quick());
  harness::expect_speedup(
      kRegblockSpeedup, [&] { return bench.time(tiled.run, tiled.defaults); },
      [&] { return bench.time(reg.run, reg.defaults); },
      [&](const harness::TimingStats& t, const harness::TimingStats& r) {
        return harness::str_printf("regblock %.3f ms vs %s %.3f ms", r.median_ms, tiled.name,
                                   t.median_ms);
      },
      {"regblock / tiled", "register-blocked speedup over tiled at 4096: "});
}

TEST(Timing, FastestVariantReachesItsShareOfCublasFp32At4096) {
  MatmulBench bench = timed_bench();
  ASSERT_EQ(bench.check_cublas(), "") << "cuBLAS gives a wrong product: the harness is broken";
  std::string notes;
  const Variant* fastest = nullptr;
  double fastest_ms = 0;
  for (const Variant& v : variants()) {
    if (v.name == std::string("fine") || v.name == std::string("naive")) continue;  // slow
    if (!bench.check(v.run, v.defaults).empty()) {
      notes += std::string("\n  ") + v.name + ": wrong product, not timed";
      continue;
    }
    const double ms = bench.time(v.run, v.defaults, quick()).median_ms;
    notes += std::string("\n  ") + v.name + ": " + std::to_string(ms) + " ms";
    if (!fastest || ms < fastest_ms) fastest = &v, fastest_ms = ms;
  }
  ASSERT_NE(fastest, nullptr) << "no tiled variant gives a correct product; fix correctness first:"
                              << notes;
  harness::expect_speedup(
      kStudentCublasShare, [&] { return bench.time_cublas(); },
      [&] { return bench.time(fastest->run, fastest->defaults); },
      [&](const harness::TimingStats& blas, const harness::TimingStats& t) {
        return harness::str_printf(
            "fastest variant %s: %.3f ms (%.1f TFLOP/s) vs cuBLAS SGEMM FP32 %.3f ms "
            "(%.1f TFLOP/s) = %.0f%%; %.0f%% needed",
            fastest->name, t.median_ms, bench.flops() / t.median_ms / 1e9, blas.median_ms,
            bench.flops() / blas.median_ms / 1e9, 100 * blas.median_ms / t.median_ms,
            100 * kStudentCublasShare);
      },
      {"fastest variant / cuBLAS FP32", "", "\nmedians at 4096:" + notes});
}

struct MqdbTimed {
  const char* name;
  int n, k, seed;
};

class MqdbTiming : public testing::TestWithParam<MqdbTimed> {};

TEST_P(MqdbTiming, MqdbBestBeatsTheDenseProductByItsShareOfTheFlopRatio) {
  const MqdbTimed& c = GetParam();
  MqdbBench bench(c.n, c.k, c.seed);
  const std::string wrong = bench.check(false);
  ASSERT_TRUE(wrong.empty()) << "mqdb_best gives a wrong product, so its time means nothing; fix "
                                "correctness first:\n"
                             << wrong;
  const double flop_ratio = bench.dense_flops() / bench.flops();
  harness::TimingOptions dense_options;
  dense_options.min_reps = 5;
  // The dense product is cuBLAS's, not your matmul_best: slowing that would move the bar.
  harness::expect_speedup(
      harness::Bar{kMqdbFlopRatioShare.name, kMqdbFlopRatioShare * flop_ratio},
      [&] { return bench.time_dense_cublas(dense_options); }, [&] { return bench.time(false); },
      [&](const harness::TimingStats& dense, const harness::TimingStats& mine) {
        return harness::str_printf(
            "%s: mqdb_best %.3f ms vs cuBLAS SGEMM FP32 on the dense matrices %.3f ms; flop "
            "ratio %.1f, %.2f of it needed",
            c.name, mine.median_ms, dense.median_ms, flop_ratio,
            static_cast<double>(kMqdbFlopRatioShare));
      },
      {std::string("mqdb_best / dense cuBLAS, ") + c.name,
       "mqdb_best speedup over cuBLAS on the dense matrices: "});
}

INSTANTIATE_TEST_SUITE_P(Timing, MqdbTiming,
                         testing::Values(MqdbTimed{"seed1_n5000_k5", 5000, 5, 1},
                                         MqdbTimed{"seed2_n10000_k10", 10000, 10, 2}),
                         [](const testing::TestParamInfo<MqdbTimed>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace lab5
