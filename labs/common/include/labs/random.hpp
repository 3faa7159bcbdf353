// Inputs drawn by the harness: SplitMix64 of a counter, so that value i of a
// stream depends only on (seed, i). The same seed gives the same values on any
// machine, however many threads fill it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "labs/parallel.hpp"

// The same functions on the device, where nvcc compiles them (redraw.cuh).
#ifdef __CUDACC__
#define LAB_HOST_DEVICE __host__ __device__
#else
#define LAB_HOST_DEVICE
#endif

namespace harness {

inline constexpr std::uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;

// The SplitMix64 output for the state `state` (already advanced by the gamma).
LAB_HOST_DEVICE inline std::uint64_t splitmix64_mix(std::uint64_t state) {
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Value i of the stream that a SplitMix64 generator seeded with `seed` draws.
LAB_HOST_DEVICE inline std::uint64_t splitmix64_at(std::uint64_t seed, std::uint64_t i) {
  return splitmix64_mix(seed + (i + 1) * kSplitMixGamma);
}

// n values map(splitmix64_at(seed, i)), filled across the cores.
template <class T, class Map>
std::vector<T> random_values(std::size_t n, std::uint64_t seed, Map map) {
  std::vector<T> v(n);
  for_ranges(n, 1 << 16, [&](std::size_t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) v[i] = map(splitmix64_at(seed, i));
  });
  return v;
}

}  // namespace harness
