// CPU checks of large outputs split across the machine's cores: one pass over a
// 10000 x 10000 output on one core costs more than the kernels it judges, and a
// timed test runs alone on its GPU with the host's cores idle.
#pragma once
#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

namespace harness {

// How many ranges for_ranges splits [0, count) into: one per core at most, none
// shorter than `grain` (at least one range, even for count 0).
std::size_t range_count(std::size_t count, std::size_t grain);

// Runs body(index, begin, end) for each of the range_count ranges of [0, count),
// in order of index, each on its own thread; rethrows the first range's exception.
void for_ranges(std::size_t count, std::size_t grain,
                const std::function<void(std::size_t, std::size_t, std::size_t)>& body);

// body(begin, end) of each range, in the ranges' order.
template <class Result, class Body>
std::vector<Result> map_ranges(std::size_t count, std::size_t grain, Body body) {
  std::vector<Result> out(range_count(count, grain));
  for_ranges(count, grain, [&](std::size_t index, std::size_t begin, std::size_t end) {
    out[index] = body(begin, end);
  });
  return out;
}

// Whether pred(i) holds for some i in [0, count): the pass over a correct output
// that a check makes before it spends time describing mismatches.
template <class Pred>
bool any_index(std::size_t count, Pred pred) {
  const std::vector<char> found =
      map_ranges<char>(count, 1 << 16, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          if (pred(i)) return char{1};
        }
        return char{0};
      });
  return std::find(found.begin(), found.end(), char{1}) != found.end();
}

}  // namespace harness
