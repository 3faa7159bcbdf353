// The end-to-end pipelines, exact against the CPU on every public image: a batch of
// three images of its size (the image, then two drawn like it), copied in from pinned
// memory, repaired by the student's steps chained (or by the student's Thrust
// variant, thrust_pipeline.cu), copied out, their sums sorted by the student's
// radix_sort (or thrust_sort_sums). Every output, the device's and the pinned
// host's, is poisoned before the run. The Thrust variant also fails when a call
// copies more to the host than Thrust's own read-backs (pipeline.cu).
#include "pipeline.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lab6_cases.hpp"
#include "labs/dataset.hpp"

namespace lab6 {
namespace {

constexpr int kTestBatchImages = 3;

PipelineBench bench_of(const harness::DatasetCase& data) {
  return PipelineBench(
      image_batch(load_image(harness::dataset_path(LAB_DATA_DIR, data.name), data.n),
                  kTestBatchImages, kBatchSeed));
}

class Pipeline : public testing::TestWithParam<harness::DatasetCase> {};

TEST_P(Pipeline, GpuEndToEndMatchesTheCpu) {
  PipelineBench bench = bench_of(GetParam());
  const std::string wrong = bench.check_gpu();
  EXPECT_TRUE(wrong.empty()) << "the GPU pipeline (lookback, map_constant, histogram_shared, "
                                "radix_sort) on three images of "
                             << GetParam().name << ":\n"
                             << wrong;
}

TEST_P(Pipeline, ThrustEndToEndMatchesTheCpu) {
  PipelineBench bench = bench_of(GetParam());
  const std::string wrong = bench.check_thrust();
  EXPECT_TRUE(wrong.empty()) << "the Thrust pipeline (thrust_fix_image, thrust_sort_sums) on "
                                "three images of "
                             << GetParam().name << ":\n"
                             << wrong;
}

INSTANTIATE_TEST_SUITE_P(Correctness, Pipeline,
                         testing::ValuesIn(std::vector<harness::DatasetCase>(std::begin(k_cases),
                                                                             std::end(k_cases))),
                         [](const testing::TestParamInfo<harness::DatasetCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace lab6
