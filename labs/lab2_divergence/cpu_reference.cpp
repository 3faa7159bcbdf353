#include "cpu_reference.hpp"

#include "labs/parallel.hpp"
#include "labs/random.hpp"

namespace lab2 {

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  return harness::random_values<float>(n, seed, [&](std::uint64_t r) {
    return lo + (hi - lo) * (static_cast<float>(r >> 40) * (1.0f / 16777216.0f));
  });
}

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(static_cast<long long>(hi) - lo + 1);
  return harness::random_values<int>(n, seed, [&](std::uint64_t r) {
    return static_cast<int>(lo + static_cast<long long>(r % span));
  });
}

std::vector<float> expected_cpu(Family family, const std::vector<float>& in) {
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (family == Family::Parity) {
      out[i] = i % 2 == 0 ? work_even(in[i]) : work_odd(in[i]);
    } else {
      out[i] = switch_work(static_cast<int>(i % kWarp), in[i]);
    }
  }
  return out;
}

std::vector<int> simple_divergence_cpu(std::vector<int> data) {
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i % kWarp < 16) {
      data[i] *= 2;
    } else {
      data[i] += 1;
    }
  }
  return data;
}

std::vector<float> sum_matrix_cpu(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(a.size());
  harness::for_ranges(a.size(), 1 << 16, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
  });
  return c;
}

}  // namespace lab2
