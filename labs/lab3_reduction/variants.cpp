#include "variants.hpp"

#include <stdexcept>

#include "labs/named.hpp"

namespace lab3 {

const std::vector<Variant>& variants() {
  // Block 512, the seeds' configuration for 16M elements.
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
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
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
  l.blocks = static_cast<int>(needed);
  return l;
}

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.blocks << " blocks x " << l.threads << " threads";
}

}  // namespace lab3
