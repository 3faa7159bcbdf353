// The end-to-end bar: the student's GPU pipeline against the course's CPU code on
// a batch of images of the course's size (1920 x 1080), same process, the GPU's
// time including the copies in and out of pinned memory and the sort of the sums
// (lab.json "bars", generated into lab6_bars.hpp).
#include <gtest/gtest.h>

#include <cstdio>

#include "lab6_bars.hpp"
#include "labs/dataset.hpp"
#include "labs/timing_report.hpp"
#include "labs/verdict.hpp"
#include "pipeline.hpp"

namespace lab6 {
namespace {

// The CPU's turn takes tens of milliseconds a batch: a few runs give its median.
constexpr int kCpuReps = 5;

TEST(Timing, GpuPipelineTenTimesTheCpuAtFullHd) {
  PipelineBench bench(
      image_batch(load_image(harness::dataset_path(LAB_DATA_DIR, kImageCase), kImageCaseN),
                  kTimedBatchImages, kBatchSeed));
  const std::string wrong = bench.check_gpu();
  ASSERT_TRUE(wrong.empty()) << "the GPU pipeline is wrong, so its time means nothing; fix "
                                "correctness first:\n"
                             << wrong;
  const harness::RatioVerdict verdict = harness::ratio_at_least(kPipelineOverCpu, [&] {
    const harness::TimingStats cpu = bench.time_cpu(kCpuReps);
    const harness::TimingStats gpu = bench.time_gpu();
    char detail[200];
    std::snprintf(detail, sizeof detail,
                  "%d images of 1920 x 1080: GPU end to end %.3f ms, CPU %.3f ms", bench.images(),
                  gpu.median_ms, cpu.median_ms);
    return harness::speedup(cpu, gpu, detail);
  });
  harness::report_timing("GPU pipeline / CPU pipeline, end to end", verdict);
  EXPECT_TRUE(verdict.passed) << verdict.message();
}

}  // namespace
}  // namespace lab6
