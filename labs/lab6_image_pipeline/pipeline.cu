// lab6's end-to-end pipeline (pipeline.hpp): the batch, the CPU pipeline, and the
// bench that runs, checks and times the student's GPU and Thrust pipelines.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "labs/cli.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/fresh.hpp"
#include "labs/random.hpp"
#include "labs/sync.hpp"
#include "pipeline.hpp"

namespace lab6 {

// ---- The batch ---------------------------------------------------------------------

std::vector<CorruptedImage> image_batch(const CorruptedImage& image, int count,
                                        std::uint64_t seed) {
  std::vector<CorruptedImage> batch{image};
  DeviceReference steps(image.n());
  ImageDraw draw(image, steps);
  harness::DeviceBuffer<int> drawn(image.buffer.size());
  for (int i = 1; i < count; ++i) {
    draw.buffer(harness::splitmix64_at(seed, i), drawn.get());
    batch.push_back({drawn.download(), image.image_size});
  }
  return batch;
}

const char* host_memory_name(HostMemory memory) {
  return memory == HostMemory::kPinned ? "pinned" : "pageable";
}

HostMemory parse_host_memory(const std::string& name) {
  if (name == "pinned") return HostMemory::kPinned;
  if (name == "pageable") return HostMemory::kPageable;
  throw harness::UsageError("--host-memory takes pinned or pageable, not '" + name + "'");
}

template <class T>
HostBuffer<T>::HostBuffer(std::size_t count, HostMemory memory) : count_(count), memory_(memory) {
  const std::size_t size = bytes() == 0 ? 1 : bytes();
  if (memory_ == HostMemory::kPinned) {
    LAB_CUDA_CHECK(cudaMallocHost(&ptr_, size));
  } else {
    ptr_ = static_cast<T*>(std::malloc(size));
    if (ptr_ == nullptr) throw std::bad_alloc();
  }
}

template <class T>
HostBuffer<T>::~HostBuffer() {
  if (memory_ == HostMemory::kPinned) {
    cudaFreeHost(ptr_);  // no throw: may run while unwinding a CUDA error
  } else {
    std::free(ptr_);
  }
}

template class HostBuffer<int>;
template class HostBuffer<unsigned>;

// ---- The CPU pipeline ----------------------------------------------------------------

BatchResult pipeline_cpu(const std::vector<CorruptedImage>& batch) {
  BatchResult result;
  for (const CorruptedImage& image : batch) {
    result.images.push_back(fix_image_cpu(image.buffer));
    result.sorted_sums.push_back(static_cast<unsigned>(total_cpu(result.images.back())));
  }
  std::sort(result.sorted_sums.begin(), result.sorted_sums.end());
  return result;
}

// ---- What the Thrust file reads back ----------------------------------------------------
// thrust_pipeline.cu may import cudaMemcpyAsync (Thrust reads its counts and sums
// back with it) and nothing else that copies: the object check refuses the rest,
// with managed and pinned memory, and device code reaches no pageable host memory
// on a GPU without pageable memory access (the H100: a kernel writing a static
// host array faults). The programs that link this library are linked with
// --wrap=cudaMemcpyAsync (CMakeLists.txt): every call to it, Thrust's or the
// student's own, comes here first. While the harness is inside thrust_fix_image or
// thrust_sort_sums, the bytes each copy writes to host memory are counted;
// run_thrust compares them with what Thrust's own algorithms read back, so that a
// copy of the image to the host (to compute the answer there) fails the pipeline,
// whatever its output.

namespace {

// What Thrust's own algorithms read back in a call: copy_if's count, find_if's
// position and reduce's sum in thrust_fix_image (28 bytes in the reference, CCCL
// 3.0, on an H100), nothing in thrust::sort.
constexpr std::size_t kFixReadbackBytes = 64;
constexpr std::size_t kSortReadbackBytes = 0;

struct Readback {
  bool watching = false;
  std::size_t bytes = 0;
};
Readback readback;

bool writes_host(const void* dst) {
  cudaPointerAttributes where{};
  if (cudaPointerGetAttributes(&where, dst) != cudaSuccess) {
    cudaGetLastError();  // not a pointer the runtime knows: host memory, and no error left behind
    return true;
  }
  return where.type != cudaMemoryTypeDevice;
}

// Counts what `call` copies to the host; "" when at most `allowed` bytes, else why it is wrong.
template <class Call>
std::string reading_back(const char* what, std::size_t allowed, const Call& call) {
  readback = {true, 0};
  try {
    call();
  } catch (...) {
    readback.watching = false;
    throw;
  }
  readback.watching = false;
  if (readback.bytes <= allowed) return "";
  return std::string(what) + " copied " + std::to_string(readback.bytes) +
         " bytes from the device to the host (Thrust's own counts and sums take at most " +
         std::to_string(allowed) +
         "): the Thrust pipeline computes on the device, never on a copy of the image on the host";
}

}  // namespace

extern "C" cudaError_t __real_cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes,
                                              cudaMemcpyKind kind, cudaStream_t stream);

extern "C" cudaError_t __wrap_cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes,
                                              cudaMemcpyKind kind, cudaStream_t stream) {
  if (readback.watching && writes_host(dst)) readback.bytes += bytes;
  return __real_cudaMemcpyAsync(dst, src, bytes, kind, stream);
}

// ---- PipelineBench -------------------------------------------------------------------

namespace {

long long largest(const std::vector<CorruptedImage>& batch) {
  long long n = 1;
  for (const CorruptedImage& image : batch) n = std::max(n, image.n());
  return n;
}

std::size_t total_values(const std::vector<CorruptedImage>& batch, bool pixels) {
  std::size_t count = 0;
  for (const CorruptedImage& image : batch) count += pixels ? image.image_size : image.n();
  return count;
}

}  // namespace

PipelineBench::PipelineBench(std::vector<CorruptedImage> batch, HostMemory memory)
    : batch_(std::move(batch)),
      expected_(pipeline_cpu(batch_)),
      h_in_(total_values(batch_, false), memory),
      h_out_(total_values(batch_, true), memory),
      h_sums_(batch_.size(), memory),
      d_buffer_(largest(batch_)),
      d_a_(largest(batch_)),
      d_b_(largest(batch_)),
      d_image_(largest(batch_)),
      d_sorted_(largest(batch_)),
      d_histo_(kBins),
      d_cdf_(kBins),
      d_cdf_min_(1),
      d_sums_(batch_.size()),
      d_temp_(batch_.size()),
      d_scratch_(scratch_bytes(largest(batch_))) {
  std::size_t in = 0, out = 0;
  for (const CorruptedImage& image : batch_) {
    if (image.n() != batch_.front().n() || image.image_size != batch_.front().image_size) {
      throw std::invalid_argument("a pipeline batch holds images of one size (image_batch)");
    }
    in_offset_.push_back(in);
    out_offset_.push_back(out);
    in += image.buffer.size();
    out += static_cast<std::size_t>(image.image_size);
  }
  fill_input();
}

long long PipelineBench::values() const {
  return static_cast<long long>(total_values(batch_, false));
}

long long PipelineBench::pixels() const {
  return static_cast<long long>(total_values(batch_, true));
}

void PipelineBench::fill_input() {
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    std::copy(batch_[i].buffer.begin(), batch_[i].buffer.end(), h_in_.get() + in_offset_[i]);
  }
}

Scratch PipelineBench::scratch() { return Scratch{d_scratch_.get(), d_scratch_.bytes()}; }

void PipelineBench::poison_host_outputs() {
  std::memset(h_out_.get(), harness::kPoisonIntByte, h_out_.bytes());
  std::memset(h_sums_.get(), harness::kPoisonIntByte, h_sums_.bytes());
}

void PipelineBench::poison_outputs() {
  poison_host_outputs();
  for (harness::DeviceBuffer<int>* d :
       {&d_a_, &d_b_, &d_image_, &d_sorted_, &d_histo_, &d_cdf_, &d_cdf_min_}) {
    d->poison();
  }
  d_sums_.poison();
  d_temp_.poison();
  d_scratch_.poison();
}

// Per image: copy in, predicate -> a, scan a -> b, shift b -> a, scatter -> image,
// then steps 4-8 on the image in place, its sum into sums[i], copy out. Then the
// sums sorted and copied out. Everything on the default stream: the copies from
// pinned memory are asynchronous, so nothing waits for the host until the end.
void PipelineBench::run_gpu(const std::vector<cudaEvent_t>* marks) {
  std::size_t mark = 0;
  const auto step_done = [&] {
    if (marks != nullptr) LAB_CUDA_CHECK(cudaEventRecord((*marks)[mark++]));
  };
  step_done();
  int* sums = reinterpret_cast<int*>(d_sums_.get());  // non-negative: the same bits
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    const int n = static_cast<int>(batch_[i].n());
    const int size = static_cast<int>(batch_[i].image_size);
    LAB_CUDA_CHECK(cudaMemcpyAsync(d_buffer_.get(), h_in_.get() + in_offset_[i], sizeof(int) * n,
                                   cudaMemcpyHostToDevice));
    step_done();
    build_predicate(d_buffer_.get(), n, d_a_.get());
    step_done();
    scan_lookback(d_a_.get(), d_b_.get(), n, scratch());
    step_done();
    shift_exclusive(d_b_.get(), d_a_.get(), n);
    step_done();
    scatter(d_buffer_.get(), d_a_.get(), n, d_image_.get());
    step_done();
    apply_map_constant(d_image_.get(), size);
    step_done();
    histogram_shared(d_image_.get(), size, d_histo_.get());
    step_done();
    cumulative_histogram(d_histo_.get(), d_cdf_.get());
    step_done();
    first_non_zero(d_cdf_.get(), d_cdf_min_.get(), scratch());
    step_done();
    equalize(d_image_.get(), size, d_cdf_.get(), d_cdf_min_.get());
    step_done();
    reduce_sum(d_image_.get(), size, sums + i, scratch());
    step_done();
    LAB_CUDA_CHECK(cudaMemcpyAsync(h_out_.get() + out_offset_[i], d_image_.get(),
                                   sizeof(int) * size, cudaMemcpyDeviceToHost));
    step_done();
  }
  radix_sort(d_sums_.get(), images(), d_temp_.get(), scratch());
  LAB_CUDA_CHECK(
      cudaMemcpyAsync(h_sums_.get(), d_sums_.get(), d_sums_.bytes(), cudaMemcpyDeviceToHost));
  step_done();
}

// The same for the student's Thrust variant. The copy out takes the image's own
// size: a wrong returned size is reported, never trusted as a length. What each
// call copies to the host is counted.
void PipelineBench::run_thrust() {
  int* sums = reinterpret_cast<int*>(d_sums_.get());
  thrust_wrong_.clear();
  const auto note = [&](const std::string& wrong) {
    if (thrust_wrong_.empty()) thrust_wrong_ = wrong;
  };
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    const int n = static_cast<int>(batch_[i].n());
    const int size = static_cast<int>(batch_[i].image_size);
    const std::string image = "image " + std::to_string(i) + ": thrust_fix_image";
    LAB_CUDA_CHECK(cudaMemcpyAsync(d_buffer_.get(), h_in_.get() + in_offset_[i], sizeof(int) * n,
                                   cudaMemcpyHostToDevice));
    int got = 0;
    note(reading_back(image.c_str(), kFixReadbackBytes, [&] {
      got = thrust_fix_image(d_buffer_.get(), n, d_image_.get(), d_sorted_.get(), d_histo_.get(),
                             sums + i);
    }));
    if (got != size) {
      note(image + " returned " + std::to_string(got) + ", expected the image's size " +
           std::to_string(size));
    }
    LAB_CUDA_CHECK(cudaMemcpyAsync(h_out_.get() + out_offset_[i], d_image_.get(),
                                   sizeof(int) * size, cudaMemcpyDeviceToHost));
  }
  note(reading_back("thrust_sort_sums", kSortReadbackBytes,
                    [&] { thrust_sort_sums(d_sums_.get(), images()); }));
  LAB_CUDA_CHECK(
      cudaMemcpyAsync(h_sums_.get(), d_sums_.get(), d_sums_.bytes(), cudaMemcpyDeviceToHost));
}

std::string PipelineBench::compare() {
  harness::synchronize_or_die();
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    const int* got = h_out_.get() + out_offset_[i];
    const std::vector<int> image(got, got + batch_[i].image_size);
    const std::string wrong = harness::describe_mismatches(expected_.images[i], image, "pixel");
    if (!wrong.empty()) return "image " + std::to_string(i) + ": " + wrong;
  }
  const std::vector<unsigned> sums(h_sums_.get(), h_sums_.get() + h_sums_.size());
  return harness::describe_mismatches(expected_.sorted_sums, sums, "sorted sum");
}

std::string PipelineBench::check_gpu() {
  poison_outputs();
  run_gpu(nullptr);
  LAB_CHECK_LAUNCH();
  return compare();
}

std::string PipelineBench::check_thrust() {
  poison_outputs();
  run_thrust();
  const std::string wrong = compare();
  return thrust_wrong_.empty() ? wrong : thrust_wrong_;
}

// Every run on a batch drawn anew on the device, image by image like the batch's
// first, into the pinned input the pipeline copies from; checked against the
// harness's own pipeline on that input, computed after the run, after
// `also_wrong` (what else makes the run wrong).
harness::TimingStats PipelineBench::time_batch(const std::function<void()>& launch,
                                               const harness::TimingOptions& options,
                                               std::vector<harness::Output> outputs,
                                               const std::function<std::string()>& also_wrong) {
  const CorruptedImage& like = batch_.front();  // every image has its sizes
  const int n = static_cast<int>(like.n()), size = static_cast<int>(like.image_size);
  DeviceReference steps(n);
  ImageDraw draw(like, steps);
  harness::DeviceBuffer<int> input(like.buffer.size()), want(like.buffer.size()), got(size);
  harness::DeviceBuffer<int> sums(batch_.size());
  const auto redraw = [&](std::uint64_t seed) {
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      draw.buffer(harness::splitmix64_at(seed, i), input.get());
      LAB_CUDA_CHECK(cudaMemcpyAsync(h_in_.get() + in_offset_[i], input.get(), input.bytes(),
                                     cudaMemcpyDeviceToHost));
    }
  };
  const auto check = [&]() -> std::string {
    if (std::string wrong = also_wrong(); !wrong.empty()) return wrong;
    for (std::size_t i = 0; i < batch_.size(); ++i) {
      LAB_CUDA_CHECK(cudaMemcpyAsync(input.get(), h_in_.get() + in_offset_[i], input.bytes(),
                                     cudaMemcpyHostToDevice));
      steps.fix_image(input.get(), n, size, want.get(), sums.get() + i);
      LAB_CUDA_CHECK(cudaMemcpyAsync(got.get(), h_out_.get() + out_offset_[i], got.bytes(),
                                     cudaMemcpyHostToDevice));
      const std::string wrong = device_mismatches(want.get(), got.get(), size, "pixel");
      if (!wrong.empty()) return "image " + std::to_string(i) + ": " + wrong;
    }
    std::vector<int> in_order = sums.download();  // non-negative: sorted as unsigned too
    std::sort(in_order.begin(), in_order.end());
    return harness::describe_mismatches(
        std::vector<unsigned>(in_order.begin(), in_order.end()),
        std::vector<unsigned>(h_sums_.get(), h_sums_.get() + h_sums_.size()), "sorted sum");
  };
  harness::TimingOptions batch = harness::doing_at_least(options, transfer_bytes());
  batch.prepare = [&] { poison_host_outputs(); };  // host memory: poisoned by the host
  return harness::time_fresh(launch, batch,
                             {std::move(outputs), check, redraw, {}, [&] { fill_input(); }});
}

harness::TimingStats PipelineBench::time_gpu(const harness::TimingOptions& options) {
  return time_batch(
      [&] { run_gpu(nullptr); }, options,
      {harness::output_of(d_a_), harness::output_of(d_b_), harness::output_of(d_image_),
       harness::output_of(d_histo_), harness::output_of(d_cdf_), harness::output_of(d_cdf_min_),
       harness::output_of(d_sums_), harness::output_of(d_temp_), harness::output_of(d_scratch_)},
      [] { return std::string(); });
}

harness::TimingStats PipelineBench::time_thrust(const harness::TimingOptions& options) {
  return time_batch([&] { run_thrust(); }, options,
                    {harness::output_of(d_image_), harness::output_of(d_sorted_),
                     harness::output_of(d_histo_), harness::output_of(d_sums_)},
                    [&] { return thrust_wrong_; });
}

harness::TimingStats PipelineBench::time_cpu(int reps) {
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const BatchResult result = pipeline_cpu(batch_);
    samples.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    if (result.sorted_sums != expected_.sorted_sums) {
      throw std::logic_error("the CPU pipeline gave other sums on the same batch");
    }
  }
  return harness::stats_of(samples);
}

std::vector<double> PipelineBench::step_times_ms(int reps) {
  const std::size_t count = batch_.size() * (kPipelineStepCount - 1) + 2;
  std::vector<cudaEvent_t> marks(count);
  for (cudaEvent_t& e : marks) LAB_CUDA_CHECK(cudaEventCreate(&e));
  std::vector<std::vector<double>> runs(kPipelineStepCount);
  for (int r = 0; r < reps; ++r) {
    run_gpu(&marks);
    LAB_CHECK_LAUNCH();
    harness::synchronize_or_die();
    std::vector<double> sum(kPipelineStepCount, 0.0);
    for (std::size_t j = 1; j < count; ++j) {
      float ms = 0;
      LAB_CUDA_CHECK(cudaEventElapsedTime(&ms, marks[j - 1], marks[j]));
      // The last mark closes the sort; the others cycle through the steps of an image.
      const std::size_t step =
          j + 1 == count ? kPipelineStepCount - 1 : (j - 1) % (kPipelineStepCount - 1);
      sum[step] += ms;
    }
    for (int s = 0; s < kPipelineStepCount; ++s) runs[s].push_back(sum[s]);
  }
  for (cudaEvent_t e : marks) cudaEventDestroy(e);
  std::vector<double> medians;
  for (std::vector<double>& samples : runs) medians.push_back(harness::stats_of(samples).median_ms);
  return medians;
}

}  // namespace lab6
