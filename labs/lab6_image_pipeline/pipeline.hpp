// lab6's end-to-end pipeline, the report's final benchmark (its sections 4, 14,
// 15 and 16): a batch of corrupted images repaired on the CPU (fix_image_cpu), by
// the student's steps 1-8 chained on the GPU, and by the student's Thrust
// variant (thrust_pipeline.cu), the sums of the batch sorted (step 9), each
// result compared with the CPU's. The host buffers
// are the harness's, pinned unless asked otherwise (HostMemory); the GPU times include the copies
// to the device and back. Shared by the program (--pipeline) and the pipeline tests.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lab6.hpp"
#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"

namespace lab6 {

// ---- The batch ---------------------------------------------------------------------

// The report repairs a batch of images and sorts their sums; its nvprof summary
// counts 30 pinned allocations, one per image.
inline constexpr int kBatchImages = 30;
// The batch the timing test times: enough images that the copies of one overlap
// nothing but its own steps, few enough that the CPU's turn stays short.
inline constexpr int kTimedBatchImages = 8;
inline constexpr std::uint64_t kBatchSeed = 6;

// `count` images of `image`'s size: `image` itself, then images drawn like it on
// the device (ImageDraw::buffer) with seeds drawn from `seed`: other grey levels,
// other places of the pixels and the garbage, other sums.
std::vector<CorruptedImage> image_batch(const CorruptedImage& image, int count, std::uint64_t seed);

// The report's section 14: pinned host memory (cudaMallocHost, page-locked) is
// what the copies to and from the device read and write directly; a copy from
// pageable memory (malloc) goes through a staging buffer of the driver and waits.
enum class HostMemory { kPinned, kPageable };
const char* host_memory_name(HostMemory memory);
HostMemory parse_host_memory(const std::string& name);  // pinned | pageable

// The host buffers the pipelines copy from and to, owned by the harness.
template <class T>
class HostBuffer {
 public:
  HostBuffer(std::size_t count, HostMemory memory);
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer();
  T* get() { return ptr_; }
  const T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_;
  HostMemory memory_;
};

// ---- The CPU pipeline ----------------------------------------------------------------

// Every image repaired and the sums of the repaired images, sorted: what each
// pipeline must give exactly.
struct BatchResult {
  std::vector<std::vector<int>> images;
  std::vector<unsigned> sorted_sums;
};
// The course's CPU code on every image, then std::sort of the sums.
BatchResult pipeline_cpu(const std::vector<CorruptedImage>& batch);

// ---- The bench -----------------------------------------------------------------------

// The three pipelines on one batch. The GPU pipeline chains the report's last
// version of each step: the look-back scan, the map with a constant table, the
// histogram in shared memory; its sums are sorted by the student's radix_sort.
// The Thrust pipeline is the contract's thrust_fix_image and thrust_sort_sums:
// Thrust allocates its own temporary memory and reads its counts back to the
// host, as the report's did: all of it is in its time. What else it copies to the
// host is counted (pipeline.cu, "What the Thrust file reads back"): more than
// Thrust's own counts and sums makes the pipeline wrong, whatever its images.
class PipelineBench {
 public:
  explicit PipelineBench(std::vector<CorruptedImage> batch,
                         HostMemory memory = HostMemory::kPinned);

  int images() const { return static_cast<int>(batch_.size()); }
  long long values() const;  // corrupted values in the batch
  long long pixels() const;  // pixels in the batch
  // What any pipeline must move through device memory: the corrupted buffers
  // copied in, the repaired images copied out.
  double transfer_bytes() const { return 4.0 * (values() + pixels()); }

  // Poison every output (the device's and the pinned host's), run the whole
  // pipeline once, compare every image and the sorted sums with the CPU's: ""
  // when all are equal, else what differs first.
  std::string check_gpu();
  std::string check_thrust();

  // End to end: the copies in, the steps of every image, the copies out and the
  // sort of the sums (CUDA events around all of it). Check first. Freshness: every
  // run on a batch drawn anew on the device (ImageDraw::buffer) into the pinned
  // input, checked against the harness's own pipeline (DeviceReference::fix_image)
  // on that input; the bench's own batch again after.
  harness::TimingStats time_gpu(const harness::TimingOptions& options = {});
  harness::TimingStats time_thrust(const harness::TimingOptions& options = {});
  // The CPU pipeline's wall-clock time (median of `reps` runs).
  harness::TimingStats time_cpu(int reps);

  // The GPU pipeline once per repetition with an event between its steps: each
  // step's time summed over the batch, the median over `reps` runs, in the order
  // of kPipelineSteps. Check first.
  std::vector<double> step_times_ms(int reps);

 private:
  void fill_input();  // the batch's buffers into the pinned input
  void poison_host_outputs();
  void poison_outputs();
  // Records marks[k] after step k of every image (the same step adds up) when given.
  void run_gpu(const std::vector<cudaEvent_t>* marks);
  void run_thrust();
  std::string compare();
  harness::TimingStats time_batch(const std::function<void()>& launch,
                                  const harness::TimingOptions& options,
                                  std::vector<harness::Output> outputs,
                                  const std::function<std::string()>& also_wrong);
  Scratch scratch();
  // run_thrust's first misuse: an image whose returned size differs, or a call
  // that read more back from the device than Thrust's own counts and sums.
  std::string thrust_wrong_;
  std::vector<CorruptedImage> batch_;
  BatchResult expected_;
  std::vector<std::size_t> in_offset_, out_offset_;  // each image's place in the host buffers
  HostBuffer<int> h_in_, h_out_;
  HostBuffer<unsigned> h_sums_;
  harness::DeviceBuffer<int> d_buffer_, d_a_, d_b_, d_image_, d_sorted_, d_histo_, d_cdf_;
  harness::DeviceBuffer<int> d_cdf_min_;
  harness::DeviceBuffer<unsigned> d_sums_, d_temp_;
  harness::DeviceBuffer<unsigned char> d_scratch_;
};

// The rows of the per-step table: the copies, steps 1-8 and the sort.
inline constexpr const char* kPipelineSteps[] = {
    "h2d", "predicate", "scan",     "shift",  "scatter", "map", "histogram",
    "cdf", "cdf_min",   "equalize", "reduce", "d2h",     "sort"};
inline constexpr int kPipelineStepCount = sizeof(kPipelineSteps) / sizeof(kPipelineSteps[0]);

}  // namespace lab6

// ---- The program's table (pipeline_table.cu) -------------------------------------------

#include "labs/result_writer.hpp"

namespace lab6 {

// lab6_image_pipeline --pipeline: `images` images of `image`'s size, in host buffers of
// `memory`, through the three pipelines, `reps` timed runs each; prints the end-to-end rows and the
// GPU pipeline's steps. Returns the program's status: 1 when a pipeline's images differ.
int pipeline_table(const CorruptedImage& image, int images, int reps, HostMemory memory,
                   harness::ResultWriter& out);

}  // namespace lab6
