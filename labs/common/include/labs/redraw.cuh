// Inputs redrawn on the device before every timed run (fresh.hpp): each element drawn
// on its own from the seed and its index, either from a distribution (drawn) or from
// the values of a base input the lab keeps, picked with replacement (resampled: the
// distribution of a dataset, a contended bin too). Never a transformation of an
// earlier input (a permutation, a relabelling, a mirror): a memo that remembers one
// input and detects the transformation answers the next without the work.
// shuffled() is that transformation, kept only for what must stay a permutation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <numeric>

#include "labs/cuda_check.hpp"
#include "labs/device_buffer.hpp"
#include "labs/random.hpp"

namespace harness {

// A permutation of [0, n) drawn from a seed: i -> (a i + b) mod n, a coprime to n.
struct AffinePermutation {
  std::uint64_t a = 1, b = 0, n = 1;

  static AffinePermutation draw(std::size_t n, std::uint64_t seed) {
    AffinePermutation p;
    p.n = n > 0 ? n : 1;
    p.b = splitmix64_at(seed, 0) % p.n;
    p.a = splitmix64_at(seed, 1) % p.n | 1;
    while (std::gcd(p.a, p.n) != 1) p.a += 2;
    p.a %= p.n;
    if (p.a == 0) p.a = 1;
    return p;
  }
  __host__ __device__ std::uint64_t operator()(std::uint64_t i) const { return (a * i + b) % n; }
};

namespace detail {

inline int redraw_blocks(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<int>(blocks < 65535 * 8 ? (blocks > 0 ? blocks : 1) : 65535 * 8);
}

template <class T, class Map>
__global__ void shuffled_kernel(const T* base, T* out, std::size_t n, AffinePermutation where,
                                std::uint64_t seed, Map map) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = map(base[where(i)], splitmix64_at(seed, i));
  }
}

template <class T>
__global__ void resampled_kernel(const T* base, std::size_t base_n, T* out, std::size_t n,
                                 std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = base[splitmix64_at(seed, i) % base_n];
  }
}

template <class T, class Draw>
__global__ void drawn_kernel(T* out, std::size_t n, std::uint64_t seed, Draw draw) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = draw(splitmix64_at(seed, i));
  }
}

}  // namespace detail

// The identity map for shuffled(): positions move, values stay.
struct SameValue {
  template <class T>
  __device__ T operator()(T value, std::uint64_t) const {
    return value;
  }
};

// A map for shuffled() that flips each value's sign at random: for values whose
// distribution is symmetric about 0, or whose sign changes nothing of the work.
struct RandomSign {
  template <class T>
  __device__ T operator()(T value, std::uint64_t random) const {
    return random & 1 ? -value : value;
  }
};

// out[i] = map(base[p(i)], r_i) on the default stream, with p a permutation and
// r_i a random word, both drawn from `seed`. `map` is a functor with a __device__
// operator()(T value, std::uint64_t random) that keeps the distribution (a
// bijection of the value range, say). `base` and `out` must not overlap.
template <class T, class Map = SameValue>
void shuffled(const T* base, T* out, std::size_t n, std::uint64_t seed, Map map = {}) {
  if (n == 0) return;
  const AffinePermutation where = AffinePermutation::draw(n, splitmix64_mix(seed));
  detail::shuffled_kernel<<<detail::redraw_blocks(n), 256>>>(base, out, n, where, seed, map);
  LAB_CHECK_LAUNCH();
}

// out[i] = base[r_i mod base_n] on the default stream, r_i a random word drawn from
// `seed`: n values picked from the base's with replacement. Seal the base
// (DeviceBuffer::seal): a launcher that rewrote it would choose the next inputs.
template <class T>
void resampled(const T* base, std::size_t base_n, T* out, std::size_t n, std::uint64_t seed) {
  if (n == 0 || base_n == 0) return;
  detail::resampled_kernel<<<detail::redraw_blocks(n), 256>>>(base, base_n, out, n, seed);
  LAB_CHECK_LAUNCH();
}

// out[i] = draw(r_i) on the default stream, r_i a random word drawn from `seed`:
// `draw` is a functor with a __device__ operator()(std::uint64_t random).
template <class T, class Draw>
void drawn(T* out, std::size_t n, std::uint64_t seed, Draw draw) {
  if (n == 0) return;
  detail::drawn_kernel<<<detail::redraw_blocks(n), 256>>>(out, n, seed, draw);
  LAB_CHECK_LAUNCH();
}

// ---- Checking a run on the device ---------------------------------------------
// A check after every timed run that reads the inputs and the output where they are
// and downloads one count: a lab's functor recomputes element i's right answer there.

namespace detail {

template <class Wrong>
__global__ void count_kernel(std::size_t n, Wrong wrong, unsigned long long* count) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    mine += wrong(i) ? 1 : 0;
  }
  if (mine != 0) atomicAdd(count, mine);
}

}  // namespace detail

// How many i in [0, n) make wrong(i) true, counted on the default stream after what
// is already queued there: `wrong` is a functor with a __device__ bool
// operator()(std::size_t i).
template <class Wrong>
std::size_t count_where(std::size_t n, Wrong wrong) {
  DeviceBuffer<unsigned long long> count(1);
  count.fill_bytes(0);
  if (n > 0) {
    detail::count_kernel<<<detail::redraw_blocks(n), 256>>>(n, wrong, count.get());
    LAB_CHECK_LAUNCH();
  }
  return static_cast<std::size_t>(count.download()[0]);
}

}  // namespace harness
