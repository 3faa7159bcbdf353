// The end-to-end bar: the student's GPU pipeline against the course's CPU code on
// a batch of images of the course's size (1920 x 1080), same process, the GPU's
// time including the copies in and out of pinned memory and the sort of the sums
// (lab.json "bars", generated into lab6_bars.hpp).
#include <gtest/gtest.h>

#include "lab6_bars.hpp"
#include "labs/dataset.hpp"
#include "labs/result_writer.hpp"
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
  harness::expect_speedup(
      kPipelineOverCpu, [&] { return bench.time_cpu(kCpuReps); }, [&] { return bench.time_gpu(); },
      [&](const harness::TimingStats& cpu, const harness::TimingStats& gpu) {
        return harness::str_printf("%d images of 1920 x 1080: GPU end to end %.3f ms, CPU %.3f ms",
                                   bench.images(), gpu.median_ms, cpu.median_ms);
      },
      {"GPU pipeline / CPU pipeline, end to end"});
}

}  // namespace
}  // namespace lab6
