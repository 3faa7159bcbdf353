// lab6_image_pipeline --pipeline (pipeline.hpp): the report's final benchmark. One
// row per pipeline end to end (CPU, GPU, Thrust: time, speed-up over the CPU,
// images equal), then the GPU pipeline's steps (time summed over the batch, share
// of the steps' total): the modern counterpart of the report's nvprof summary,
// which nsys prints for the whole process (README, "Profiling").
#include <string>
#include <vector>

#include "labs/program.hpp"
#include "pipeline.hpp"

namespace lab6 {

namespace {

using harness::Cell;
using harness::Column;

std::vector<Column> pipeline_columns() {
  return {Column("pipeline", -9),
          Column("step", -10),
          Column("time_ms", 10).fixed(3),
          Column("share", 6).fixed(1).suffix("%").missing("-"),
          Column("vs_cpu", 7).fixed(1).suffix("x").missing("-"),
          Column("images").gap("  ")};
}

}  // namespace

int pipeline_table(const CorruptedImage& image, int images, int reps, HostMemory memory,
                   harness::ResultWriter& out) {
  PipelineBench bench(image_batch(image, images, kBatchSeed), memory);
  out.context(harness::str_printf("batch: %d images of %lld values, %lld pixels each; host "
                                  "buffers %s (%s)",
                                  images, image.n(), image.image_size, host_memory_name(memory),
                                  memory == HostMemory::kPinned ? "cudaMallocHost" : "malloc"),
              {{"images", images},
               {"values", image.n()},
               {"pixels", image.image_size},
               {"host_memory", host_memory_name(memory)}});
  out.table(pipeline_columns());
  harness::TimingOptions options;
  options.min_reps = options.max_reps = reps;

  const double cpu_ms = bench.time_cpu(reps).median_ms;
  out.row({"cpu", "all", cpu_ms, Cell(), 1.0, "reference"});

  const std::string gpu_wrong = bench.check_gpu();
  if (gpu_wrong.empty()) {
    const std::vector<double> steps = bench.step_times_ms(reps);
    double sum = 0;
    for (double ms : steps) sum += ms;
    for (int s = 0; s < kPipelineStepCount; ++s) {
      out.row({"gpu", kPipelineSteps[s], steps[s], 100.0 * steps[s] / sum, Cell(), ""});
    }
  }
  const harness::TimingStats gpu =
      gpu_wrong.empty() ? bench.time_gpu(options) : harness::not_timed();
  out.row({"gpu", "all", gpu.median_ms, Cell(), cpu_ms / gpu.median_ms,
           gpu_wrong.empty() ? "equal" : "DIFFER"});
  if (!gpu_wrong.empty()) out.note("  gpu: " + gpu_wrong);

  const std::string thrust_wrong = bench.check_thrust();
  const harness::TimingStats thrust =
      thrust_wrong.empty() ? bench.time_thrust(options) : harness::not_timed();
  out.row({"thrust", "all", thrust.median_ms, Cell(), cpu_ms / thrust.median_ms,
           thrust_wrong.empty() ? "equal" : "DIFFER"});
  if (!thrust_wrong.empty()) out.note("  thrust: " + thrust_wrong);

  out.note(
      "all: end to end, the copies in and out and the sort of the sums included (gpu, thrust: "
      "CUDA events; cpu: the host's clock); images: each repaired image and the sorted sums "
      "against the CPU's");
  out.note(
      "gpu steps: lookback scan, map_constant, histogram_shared, radix_sort; each step's time "
      "summed over the batch (an event between steps), share: of the steps' total");
  return gpu_wrong.empty() && thrust_wrong.empty() ? 0 : 1;
}

}  // namespace lab6
