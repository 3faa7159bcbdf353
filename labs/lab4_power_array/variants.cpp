#include "variants.hpp"

#include <stdexcept>

#include "labs/named.hpp"

namespace lab4 {

const std::vector<PowerVariant>& power_variants() {
  // The seed launches blocks of 128 threads (BLOCKSIZE), one element per thread.
  static const std::vector<PowerVariant> table = {
      {"global", "a", Storage::Pointer, power_global, nullptr, Grid::Cover, {0, kBlockSize}},
      {"register", "b", Storage::Pointer, power_register, nullptr, Grid::Cover, {0, kBlockSize}},
      {"shared", "c", Storage::Pointer, power_shared, nullptr, Grid::FixedBlock, {0, kBlockSize}},
      {"symbol_global",
       "d",
       Storage::Symbol,
       nullptr,
       power_symbol_global,
       Grid::Cover,
       {0, kBlockSize}},
      {"symbol_register",
       "e",
       Storage::Symbol,
       nullptr,
       power_symbol_register,
       Grid::Cover,
       {0, kBlockSize}},
      {"symbol_shared",
       "f",
       Storage::Symbol,
       nullptr,
       power_symbol_shared,
       Grid::FixedBlock,
       {0, kBlockSize}},
      {"best", "g", Storage::Pointer, power_best, nullptr, Grid::Free, {0, 256}},
  };
  return table;
}

const std::vector<WindowVariant>& window_variants() {
  static const std::vector<WindowVariant> table = {
      {"window_global", "h", window_global, Grid::Cover, {0, kBlockSize}},
      {"window_shared", "i", window_shared, Grid::FixedBlock, {0, kBlockSize}},
  };
  return table;
}

const PowerVariant& find_power_variant(const std::string& name) {
  return harness::find_by_name(power_variants(), name);
}

const WindowVariant& find_window_variant(const std::string& name) {
  return harness::find_by_name(window_variants(), name);
}

bool is_window_variant(const std::string& name) {
  for (const WindowVariant& v : window_variants()) {
    if (name == v.name) return true;
  }
  return false;
}

Launch resolve_launch(Grid grid, long long n, Launch requested) {
  Launch l = requested;
  if (l.threads < 1 || l.threads > 1024) {
    throw std::invalid_argument("threads per block must be 1..1024, not " +
                                std::to_string(l.threads));
  }
  if (grid == Grid::FixedBlock && l.threads != kBlockSize) {
    throw std::invalid_argument("the shared variants use blocks of kBlockSize = " +
                                std::to_string(kBlockSize) + " threads (their __shared__ array " +
                                "is sized at compile time), not " + std::to_string(l.threads));
  }
  if (l.blocks < 0) throw std::invalid_argument("blocks must be at least 0 (0: automatic)");
  if (grid == Grid::Free) return l;
  const long long needed = (n + l.threads - 1) / l.threads;
  if (l.blocks == 0) {
    if (needed > 0x7fffffffLL) throw std::invalid_argument("grid too large: raise threads");
    l.blocks = static_cast<int>(needed);
  } else if (l.blocks < needed) {
    throw std::invalid_argument(
        std::to_string(l.blocks) + " blocks x " + std::to_string(l.threads) + " threads cover " +
        std::to_string(static_cast<long long>(l.blocks) * l.threads) +
        " elements, fewer than n = " + std::to_string(n) + ": use at least " +
        std::to_string(needed) + " blocks, or leave --blocks out");
  }
  return l;
}

void check_fits_symbol(const PowerVariant& v, long long n) {
  if (v.storage == Storage::Symbol && n > kSymbolCapacity) {
    throw std::invalid_argument(std::string(v.name) + " works on the __device__ array dA of " +
                                std::to_string(kSymbolCapacity) + " floats (its size is fixed " +
                                "at compile time); n = " + std::to_string(n) + " does not fit");
  }
}

void check_power_k(long long k) {
  if (k < 0) throw std::invalid_argument("k must be at least 0, not " + std::to_string(k));
}

void check_radius(long long radius) {
  if (radius < 0 || radius > kMaxRadius) {
    throw std::invalid_argument("radius must be 0.." + std::to_string(kMaxRadius) + ", not " +
                                std::to_string(radius));
  }
}

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.blocks << " blocks x " << l.threads << " threads";
}

}  // namespace lab4
