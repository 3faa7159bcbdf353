#include "cpu_reference.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "labs/dataset.hpp"
#include "labs/parallel.hpp"
#include "labs/random.hpp"

namespace lab3 {

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

}  // namespace lab3
