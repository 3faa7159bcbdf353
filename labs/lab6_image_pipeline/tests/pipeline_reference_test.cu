// The harness's Thrust pipeline, the yardstick of the end-to-end table, exact
// against the CPU on a batch of the course's image (registered for
// LAB_IMPL=solutions only: it tests the harness, not the student).
#include <gtest/gtest.h>

#include <string>

#include "labs/dataset.hpp"
#include "pipeline.hpp"

namespace lab6 {
namespace {

TEST(Reference, ThrustPipelineMatchesTheCpuOnFullHd) {
  PipelineBench bench(image_batch(
      load_image(harness::dataset_path(LAB_DATA_DIR, kImageCase), kImageCaseN), 3, kBatchSeed));
  const std::string wrong = bench.check_thrust();
  EXPECT_TRUE(wrong.empty()) << "the harness's Thrust pipeline on three " << kImageCase
                             << " images:\n"
                             << wrong;
}

}  // namespace
}  // namespace lab6
