#include "variants.hpp"

#include <stdexcept>

#include "labs/named.hpp"

namespace lab2 {

const std::vector<Variant>& variants() {
  static const std::vector<Variant> table = {
      {"even_odd", "a", even_odd, Family::Parity, "i % 2"},
      {"warp_aligned", "b", warp_aligned, Family::Parity, "(i / warpSize) % 2"},
      {"half_block", "c", half_block, Family::Parity, "threadIdx.x < blockDim.x / 2"},
      {"switch_divergent", "d", switch_divergent, Family::Switch, "switch (i % 32)"},
      {"switch_uniform", "e", switch_uniform, Family::Switch, "switch (warp % 32)"},
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
}

Launch check_launch(long long threads) {
  if (threads < kWarp || threads > 1024 || threads % kWarp != 0) {
    throw std::invalid_argument(
        "threads per block must be a multiple of 32 (warpSize) from 32 "
        "to 1024, not " +
        std::to_string(threads));
  }
  return Launch{static_cast<int>(threads)};
}

Block2D check_block(long long x, long long y) {
  if (x < 1 || y < 1 || x * y > 1024) {
    throw std::invalid_argument("block (" + std::to_string(x) + "," + std::to_string(y) +
                                ") is not a valid block: each side at least 1, at most 1024 "
                                "threads in all");
  }
  return Block2D{static_cast<int>(x), static_cast<int>(y)};
}

}  // namespace lab2
