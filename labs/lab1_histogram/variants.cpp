#include "variants.hpp"

#include <stdexcept>

#include "labs/named.hpp"

namespace lab1 {

const std::vector<Variant>& variants() {
  // Defaults reproduce rows of the seed's tables for 2^25 samples.
  static const std::vector<Variant> table = {
      {"global", "a", histogram_global, Work::SlicePerThread, {0, 512, 1024}},
      {"global_unroll", "b", histogram_global_unroll, Work::SlicePerThread, {0, 512, 1024}},
      {"global_ilp4", "c", histogram_global_ilp4, Work::SlicePerThread, {0, 512, 512}},
      {"one_per_thread", "d", histogram_one_per_thread, Work::SlicePerThread, {0, 512, 1}},
      {"shared", "e", histogram_shared, Work::SlicePerThread, {0, 256, 32}},
      {"inverse", "f", histogram_inverse, Work::ChunkPerBlock, {0, 1024, 8192}},
      {"banks", "g", histogram_banks, Work::ChunkPerBlock, {0, 1024, 1024}},
      {"best", "h", histogram_best, Work::Free, {0, 512, 0}},
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
}

Launch resolve_launch(const Variant& v, long long n, Launch requested) {
  Launch l = requested;
  if (l.threads < 1 || l.threads > 1024) {
    throw std::invalid_argument("threads per block must be 1..1024, not " +
                                std::to_string(l.threads));
  }
  if (v.work == Work::Free) return l;  // blocks 0: the variant picks its grid
  if (v.name == std::string("one_per_thread")) l.slice = 1;
  if (l.slice < 1) throw std::invalid_argument("slice must be at least 1");
  if (v.work == Work::ChunkPerBlock && l.slice > 10240) {
    throw std::invalid_argument(
        "slice (samples per block) must be at most 10240 to fit in "
        "40 KiB of shared memory, not " +
        std::to_string(l.slice));
  }
  const long long per_block =
      v.work == Work::SlicePerThread ? static_cast<long long>(l.threads) * l.slice : l.slice;
  const long long needed = (n + per_block - 1) / per_block;
  if (l.blocks == 0) {
    if (needed > 0x7fffffffLL) throw std::invalid_argument("grid too large: raise slice");
    l.blocks = static_cast<int>(needed);
  } else if (l.blocks < needed) {
    throw std::invalid_argument(
        std::to_string(l.blocks) + " blocks x " + std::to_string(per_block) +
        " samples per block cover " + std::to_string(l.blocks * per_block) +
        " samples, fewer than n = " + std::to_string(n) + ": use at least " +
        std::to_string(needed) + " blocks, or leave --blocks out");
  }
  return l;
}

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.blocks << " blocks x " << l.threads << " threads, slice " << l.slice;
}

}  // namespace lab1
