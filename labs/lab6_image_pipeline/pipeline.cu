// lab6's end-to-end pipeline (pipeline.hpp): the batch, the CPU pipeline, and the
// bench that runs, checks and times the student's GPU and Thrust pipelines.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

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
  std::vector<CorruptedImage> batch;
  batch.reserve(static_cast<std::size_t>(count));
  batch.push_back(image);
  for (int i = 1; i < count; ++i)
    batch.push_back(relevelled(image, harness::splitmix64_at(seed, i)));
  return batch;
}

template <class T>
PinnedBuffer<T>::PinnedBuffer(std::size_t count) : count_(count) {
  LAB_CUDA_CHECK(cudaMallocHost(&ptr_, bytes() == 0 ? 1 : bytes()));
}

template <class T>
PinnedBuffer<T>::~PinnedBuffer() {
  cudaFreeHost(ptr_);  // no throw: may run while unwinding a CUDA error
}

template class PinnedBuffer<int>;
template class PinnedBuffer<unsigned>;

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

PipelineBench::PipelineBench(std::vector<CorruptedImage> batch)
    : h_in_(total_values(batch, false)),
      h_out_(total_values(batch, true)),
      h_sums_(batch.size()),
      d_buffer_(largest(batch)),
      d_a_(largest(batch)),
      d_b_(largest(batch)),
      d_image_(largest(batch)),
      d_sorted_(largest(batch)),
      d_histo_(kBins),
      d_cdf_(kBins),
      d_cdf_min_(1),
      d_sums_(batch.size()),
      d_temp_(batch.size()),
      d_scratch_(scratch_bytes(largest(batch))) {
  draw(std::move(batch));
}

long long PipelineBench::values() const {
  return static_cast<long long>(total_values(batch_, false));
}

long long PipelineBench::pixels() const {
  return static_cast<long long>(total_values(batch_, true));
}

void PipelineBench::draw(std::vector<CorruptedImage> batch) {
  batch_ = std::move(batch);
  expected_ = pipeline_cpu(batch_);
  in_offset_.clear();
  out_offset_.clear();
  std::size_t in = 0, out = 0;
  for (const CorruptedImage& image : batch_) {
    in_offset_.push_back(in);
    out_offset_.push_back(out);
    std::copy(image.buffer.begin(), image.buffer.end(), h_in_.get() + in);
    in += image.buffer.size();
    out += static_cast<std::size_t>(image.image_size);
  }
}

void PipelineBench::redraw() {
  const std::uint64_t seed = harness::fresh_seed();
  draw(image_batch(relevelled(batch_.front(), seed), images(), seed + 1));
}

Scratch PipelineBench::scratch() { return Scratch{d_scratch_.get(), d_scratch_.bytes()}; }

void PipelineBench::poison_outputs() {
  std::memset(h_out_.get(), harness::kPoisonIntByte, h_out_.bytes());
  std::memset(h_sums_.get(), harness::kPoisonIntByte, h_sums_.bytes());
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
// size: a wrong returned size is reported, never trusted as a length.
void PipelineBench::run_thrust() {
  int* sums = reinterpret_cast<int*>(d_sums_.get());
  thrust_size_wrong_.clear();
  for (std::size_t i = 0; i < batch_.size(); ++i) {
    const int n = static_cast<int>(batch_[i].n());
    const int size = static_cast<int>(batch_[i].image_size);
    LAB_CUDA_CHECK(cudaMemcpyAsync(d_buffer_.get(), h_in_.get() + in_offset_[i], sizeof(int) * n,
                                   cudaMemcpyHostToDevice));
    const int got = thrust_fix_image(d_buffer_.get(), n, d_image_.get(), d_sorted_.get(),
                                     d_histo_.get(), sums + i);
    if (got != size && thrust_size_wrong_.empty()) {
      thrust_size_wrong_ = "image " + std::to_string(i) + ": thrust_fix_image returned " +
                           std::to_string(got) + ", expected the image's size " +
                           std::to_string(size);
    }
    LAB_CUDA_CHECK(cudaMemcpyAsync(h_out_.get() + out_offset_[i], d_image_.get(),
                                   sizeof(int) * size, cudaMemcpyDeviceToHost));
  }
  thrust_sort_sums(d_sums_.get(), images());
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
  return thrust_size_wrong_.empty() ? wrong : thrust_size_wrong_;
}

namespace {

harness::TimingStats time_batch(PipelineBench& bench, const std::function<void()>& launch,
                                harness::TimingOptions options,
                                std::vector<harness::Output> outputs,
                                const std::function<void()>& poison_host,
                                const std::function<std::string()>& compare,
                                const std::function<void()>& redraw) {
  options = harness::doing_at_least(std::move(options), bench.transfer_bytes());
  options.prepare = poison_host;  // the pinned outputs: host memory, poisoned by the host
  return harness::time_fresh(launch, options, {std::move(outputs), compare, redraw});
}

}  // namespace

harness::TimingStats PipelineBench::time_gpu(const harness::TimingOptions& options) {
  return time_batch(
      *this, [&] { run_gpu(nullptr); }, options,
      {harness::output_of(d_a_), harness::output_of(d_b_), harness::output_of(d_image_),
       harness::output_of(d_histo_), harness::output_of(d_cdf_), harness::output_of(d_cdf_min_),
       harness::output_of(d_sums_), harness::output_of(d_temp_), harness::output_of(d_scratch_)},
      [&] {
        std::memset(h_out_.get(), harness::kPoisonIntByte, h_out_.bytes());
        std::memset(h_sums_.get(), harness::kPoisonIntByte, h_sums_.bytes());
      },
      [&] { return compare(); }, [&] { redraw(); });
}

harness::TimingStats PipelineBench::time_thrust(const harness::TimingOptions& options) {
  return time_batch(
      *this, [&] { run_thrust(); }, options,
      {harness::output_of(d_image_), harness::output_of(d_sorted_), harness::output_of(d_histo_),
       harness::output_of(d_sums_)},
      [&] {
        std::memset(h_out_.get(), harness::kPoisonIntByte, h_out_.bytes());
        std::memset(h_sums_.get(), harness::kPoisonIntByte, h_sums_.bytes());
      },
      [&] { return compare(); }, [&] { redraw(); });
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
