#include "cpu_reference.hpp"

namespace lab2 {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  std::uint64_t state = seed;
  for (float& x : v) {
    const float unit = static_cast<float>(splitmix64(state) >> 40) * (1.0f / 16777216.0f);
    x = lo + (hi - lo) * unit;
  }
  return v;
}

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
  std::vector<int> v(n);
  std::uint64_t state = seed;
  const std::uint64_t span = static_cast<std::uint64_t>(static_cast<long long>(hi) - lo + 1);
  for (int& x : v) x = static_cast<int>(lo + static_cast<long long>(splitmix64(state) % span));
  return v;
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
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}

}  // namespace lab2
