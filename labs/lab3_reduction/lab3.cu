// lab3's harness (lab3.hpp): the variants, the CPU reference and the inputs, the bench.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <stdexcept>

#include "lab3.hpp"
#include "labs/compare.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/fresh.hpp"
#include "labs/named.hpp"
#include "labs/parallel.hpp"
#include "labs/random.hpp"
#include "labs/redraw.cuh"
#include "labs/sync.hpp"

namespace lab3 {

// ---- The variants -----------------------------------------------------------

const std::vector<Variant>& variants() {
  // Block 512, the course's configuration for 16M elements.
  static const std::vector<Variant> table = {
      {"neighbored", "reduceNeighbored", reduce_neighbored, 1, 512},
      {"neighbored_less", "reduceNeighboredLess", reduce_neighbored_less, 1, 512},
      {"interleaved", "reduceInterleaved", reduce_interleaved, 1, 512},
      {"unrolling2", "reduceUnrolling2", reduce_unrolling2, 2, 512},
      {"unrolling4", "reduceUnrolling4", reduce_unrolling4, 4, 512},
      {"unrolling8", "reduceUnrolling8", reduce_unrolling8, 8, 512},
      {"unroll_warps8", "reduceUnrollWarps8", reduce_unroll_warps8, 8, 512},
      {"complete_unroll8", "reduceCompleteUnrollWarps8", reduce_complete_unroll8, 8, 512},
      {"complete_unroll_template", "reduceCompleteUnroll<512>", reduce_complete_unroll_template, 8,
       512},
      {"shuffle", "(grid-stride, warp shuffles)", reduce_shuffle, 0, 512},
      {"nested_reduce", "gpuRecursiveReduce", nested_reduce, 1, 512, Launches::ChildPerBlock},
      {"nested_reduce_nosync", "gpuRecursiveReduceNosync", nested_reduce_nosync, 1, 512,
       Launches::ChildPerBlock},
      {"nested_reduce2", "gpuRecursiveReduce2", nested_reduce2, 1, 512, Launches::GridPerLevel},
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
}

// ---- The course's baselines (course_variant) ------------------------------------

namespace {

// The block's chunk, this thread's element zeroed when it lies past n (the padding
// the contract hands the student's kernels too).
__device__ int* course_chunk(int* g_idata, int n) {
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x;
  if (first + threadIdx.x >= n) g_idata[first + threadIdx.x] = 0;
  __syncthreads();
  return g_idata + first;
}

__global__ void course_neighbored(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = course_chunk(g_idata, n);
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if ((tid % (2 * stride)) == 0) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

__global__ void course_interleaved(int* g_idata, int n, int* g_odata) {
  const unsigned tid = threadIdx.x;
  int* idata = course_chunk(g_idata, n);
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) idata[tid] += idata[tid + stride];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = idata[0];
}

void run_course_neighbored(int* data, int n, int* partial, Launch launch) {
  course_neighbored<<<launch.blocks, launch.threads>>>(data, n, partial);
}

void run_course_interleaved(int* data, int n, int* partial, Launch launch) {
  course_interleaved<<<launch.blocks, launch.threads>>>(data, n, partial);
}

}  // namespace

const Variant& course_variant(const std::string& name) {
  static const std::vector<Variant> table = {
      {"neighbored", "reduceNeighbored", run_course_neighbored, 1, 512},
      {"interleaved", "reduceInterleaved", run_course_interleaved, 1, 512},
  };
  return harness::find_by_name(table, name);
}

Launch resolve_launch(const Variant& v, long long n, Launch requested) {
  Launch l = requested;
  const int t = l.threads;
  if (t < 64 || t > 1024 || (t & (t - 1)) != 0) {
    throw std::invalid_argument("threads per block must be a power of two from 64 to 1024, not " +
                                std::to_string(t));
  }
  if (n < 1 || n > 0x7fffffffLL) {
    throw std::invalid_argument("n must be 1 .. 2^31 - 1, not " + std::to_string(n));
  }
  if (!v.per_block()) {
    const long long slots = padded_size(n) / 64;
    if (l.blocks < 0 || l.blocks > slots) {
      throw std::invalid_argument("shuffle: --blocks must be 0 (auto) .. " + std::to_string(slots) +
                                  " (the partial buffer) for n = " + std::to_string(n) + ", not " +
                                  std::to_string(l.blocks));
    }
    return l;
  }
  const long long chunk = chunk_of(v, l);
  const long long needed = (n + chunk - 1) / chunk;
  if (l.blocks != 0 && l.blocks != needed) {
    throw std::invalid_argument(std::string(v.name) + " reduces " + std::to_string(chunk) +
                                " elements per block (" + std::to_string(t) + " threads x " +
                                std::to_string(v.unroll) + "), so n = " + std::to_string(n) +
                                " needs exactly " + std::to_string(needed) + " blocks, not " +
                                std::to_string(l.blocks) + ": leave --blocks out");
  }
  if (v.child_per_block() && needed > kMaxNestedBlocks) {
    throw std::invalid_argument(
        std::string(v.name) + " launches a child grid per block and takes " +
        std::to_string(kMaxNestedBlocks) + " blocks at most; n = " + std::to_string(n) + " needs " +
        std::to_string(needed) + " blocks of " + std::to_string(t) + " threads");
  }
  l.blocks = static_cast<int>(needed);
  return l;
}

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.blocks << " blocks x " << l.threads << " threads";
}

// ---- The CPU reference and the inputs ---------------------------------------

int recursiveReduce(int* data, int size) {
  // terminate
  if (size == 1) return data[0];
  // renew the stride
  const int stride = size / 2;
  // in-place reduction
  for (int i = 0; i < stride; i++) data[i] += data[i + stride];
  // an odd size leaves its last element unpaired: fold it into data[0]
  if (size % 2 == 1) data[0] += data[size - 1];
  // recursive call
  return recursiveReduce(data, stride);
}

int reduce_cpu(const std::vector<int>& values) {
  std::vector<int> copy = values;
  return recursiveReduce(copy.data(), static_cast<int>(copy.size()));
}

std::vector<int> block_sums_cpu(const std::vector<int>& values, long long chunk) {
  const std::size_t n = values.size(), size = static_cast<std::size_t>(chunk);
  std::vector<int> sums((n + size - 1) / size, 0);
  const std::size_t grain = std::max<std::size_t>(1, (1 << 16) / size);
  harness::for_ranges(sums.size(), grain, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) {
      const std::size_t end = std::min(n, (b + 1) * size);
      for (std::size_t i = b * size; i < end; ++i) sums[b] += values[i];
    }
  });
  return sums;
}

void check_no_overflow(const std::vector<int>& values, const std::string& path) {
  long long total = 0;
  for (int v : values) {
    total += std::llabs(static_cast<long long>(v));
    if (total > INT_MAX) {
      throw harness::DatasetError(
          path +
          ": the sum of |values| exceeds 2^31 - 1, so an int sum could overflow; lab3 "
          "datasets must keep n x max|value| below 2^31 (e.g. values 0..127 up to 2^24 "
          "elements)");
    }
  }
}

std::vector<int> load_values(const std::string& path, long long expected_count) {
  std::vector<int> values = harness::read_binary_file<int>(path, expected_count);
  if (values.empty()) throw harness::DatasetError(path + ": holds no values; n must be >= 1");
  check_no_overflow(values, path);
  return values;
}

std::vector<int> random_values(long long n, unsigned long long seed) {
  std::vector<int> values(static_cast<std::size_t>(n));
  // splitmix64 of (seed, index): the same values whatever the number of threads.
  harness::for_ranges(values.size(), 1 << 16, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t z = harness::splitmix64_mix(seed * harness::kSplitMixGamma + i);
      values[i] = static_cast<int>(z >> 61);  // 0..7
    }
  });
  return values;
}

// ---- The bench --------------------------------------------------------------

ReductionBench::ReductionBench(std::vector<int> values)
    : values_(std::move(values)),
      expected_sum_(reduce_cpu(values_)),
      d_pristine_(padded_size(n())),
      d_data_(padded_size(n())),
      d_partial_(padded_size(n()) / 64),
      d_truth_(padded_size(n()) / 64),
      d_cub_temp_(cub_sum_temp_bytes(static_cast<int>(n()))) {
  // The padding past n stays garbage: kernels must not add it. Sealed: the source of
  // every redraw and CUB's input, checked against the host's record after every call.
  std::vector<int> pristine = values_;
  pristine.resize(d_pristine_.size(), harness::kPoisonInt);
  d_pristine_.upload(pristine);
  d_pristine_.seal(pristine);
}

void ReductionBench::restore() {
  LAB_CUDA_CHECK(
      cudaMemcpyAsync(d_data_.get(), d_pristine_.get(), d_data_.bytes(), cudaMemcpyDeviceToDevice));
}

// The device runtime buffers at most 2048 launches not yet started (the default
// limit); past it a device-side launch fails inside the kernel and that block's sum
// is lost. A child tree per block keeps up to one pending launch per block. Raised
// only for those variants, as needed: a larger buffer slows every device-side launch.
void ReductionBench::allow_child_launches(const Variant& v, Launch launch) {
  if (!v.child_per_block()) return;
  const std::size_t needed = 2 * static_cast<std::size_t>(launch.blocks) + 2048;
  std::size_t current = 0;
  LAB_CUDA_CHECK(cudaDeviceGetLimit(&current, cudaLimitDevRuntimePendingLaunchCount));
  if (current < needed) {
    LAB_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, needed));
  }
}

std::string ReductionBench::check(const Variant& v, Launch launch) {
  allow_child_launches(v, launch);
  restore();
  d_partial_.poison();
  harness::synchronize_or_die();
  v.run(d_data_.get(), static_cast<int>(n()), d_partial_.get(), launch);
  LAB_CHECK_LAUNCH();
  return compare(v, launch);
}

std::string ReductionBench::compare(const Variant& v, Launch launch) {
  harness::synchronize_or_die();
  if (!v.per_block()) {
    int total = 0;
    LAB_CUDA_CHECK(cudaMemcpy(&total, d_partial_.get(), sizeof(int), cudaMemcpyDeviceToHost));
    last_sum_ = total;
    return harness::describe_mismatches(std::vector<int>{expected_sum_}, std::vector<int>{total},
                                        "sum (partial[0])");
  }
  // The course's host side: copy the per-block partial sums back, add them here.
  std::vector<int> partial(launch.blocks);
  LAB_CUDA_CHECK(cudaMemcpy(partial.data(), d_partial_.get(), partial.size() * sizeof(int),
                            cudaMemcpyDeviceToHost));
  last_sum_ = std::accumulate(partial.begin(), partial.end(), 0LL);
  std::string wrong = harness::describe_mismatches(block_sums_cpu(values_, chunk_of(v, launch)),
                                                   partial, "partial sum of block");
  if (!wrong.empty()) {
    wrong += "\n  (block b sums elements [b x " + std::to_string(chunk_of(v, launch)) +
             ", (b + 1) x " + std::to_string(chunk_of(v, launch)) +
             ") of n = " + std::to_string(n()) + "; host total " + std::to_string(last_sum_) +
             ", expected " + std::to_string(expected_sum_) + ")";
  }
  return wrong;
}

std::string ReductionBench::check_cub() {
  d_partial_.poison();
  cub_sum(d_pristine_.get(), static_cast<int>(n()), d_partial_.get(), d_cub_temp_.get(),
          d_cub_temp_.bytes());
  harness::synchronize_or_die();
  int total = 0;
  LAB_CUDA_CHECK(cudaMemcpy(&total, d_partial_.get(), sizeof(int), cudaMemcpyDeviceToHost));
  return harness::describe_mismatches(std::vector<int>{expected_sum_}, std::vector<int>{total},
                                      "CUB sum");
}

namespace {

// sums[i / chunk] += data[i] for i < n: the harness's own sums of a redraw. Int
// additions wrap alike in any order, as the variants' own do.
__global__ void chunk_sums(const int* data, long long n, long long chunk, int* sums) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  int v = i < n ? data[i] : 0;
  const long long chunk_of_i = (i < n ? i : n - 1) / chunk;
  if (__shfl_sync(~0u, chunk_of_i, 0) != __shfl_sync(~0u, chunk_of_i, 31)) {
    if (i < n) atomicAdd(&sums[chunk_of_i], v);
    return;
  }
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(~0u, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(&sums[chunk_of_i], v);
}

}  // namespace

void ReductionBench::redraw(std::uint64_t seed) {
  harness::resampled(d_pristine_.get(), values_.size(), d_data_.get(), values_.size(), seed);
}

// The run's partial sums against the harness's own of the same redraw, drawn again
// (an in-place variant overwrote it).
std::string ReductionBench::compare_redraw(const Variant& v, Launch launch, std::uint64_t seed) {
  harness::synchronize_or_die();
  const bool per_block = v.per_block();
  const int count = per_block ? launch.blocks : 1;
  std::vector<int> got(count);
  LAB_CUDA_CHECK(
      cudaMemcpy(got.data(), d_partial_.get(), got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  redraw(seed);
  LAB_CUDA_CHECK(cudaMemset(d_truth_.get(), 0, count * sizeof(int)));
  const long long chunk = per_block ? chunk_of(v, launch) : n();
  chunk_sums<<<static_cast<unsigned>((n() + 255) / 256), 256>>>(d_data_.get(), n(), chunk,
                                                                d_truth_.get());
  LAB_CHECK_LAUNCH();
  std::vector<int> truth(count);
  LAB_CUDA_CHECK(
      cudaMemcpy(truth.data(), d_truth_.get(), truth.size() * sizeof(int), cudaMemcpyDeviceToHost));
  return harness::describe_mismatches(truth, got,
                                      per_block ? "partial sum of block" : "sum (partial[0])");
}

harness::TimingStats ReductionBench::time(const Variant& v, Launch launch,
                                          const harness::TimingOptions& options) {
  allow_child_launches(v, launch);
  harness::TimingOptions restoring = harness::doing_at_least(options, bytes_moved());
  restoring.prepare = [&] { restore(); };  // in-place kernels overwrite their input
  std::uint64_t seed = 0;
  return harness::time_fresh(
      [&] { v.run(d_data_.get(), static_cast<int>(n()), d_partial_.get(), launch); }, restoring,
      {{harness::output_of(d_partial_)},
       [&] { return compare_redraw(v, launch, seed); },
       [&](std::uint64_t fresh) { redraw(seed = fresh); },
       {},  // the input itself may be overwritten; the pristine copy is sealed
       {},
       {{d_data_.get(), values_.size() * sizeof(int)}}});
}

harness::TimingStats ReductionBench::time_cub(const harness::TimingOptions& options) {
  // CUB only reads its input: it runs on the pristine copy, nothing to restore.
  return harness::time_gpu(
      [&] {
        cub_sum(d_pristine_.get(), static_cast<int>(n()), d_partial_.get(), d_cub_temp_.get(),
                d_cub_temp_.bytes());
      },
      harness::doing_at_least(options, bytes_moved()));
}

}  // namespace lab3
