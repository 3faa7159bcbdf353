#include "variants.hpp"

#include <stdexcept>

#include "labs/named.hpp"

namespace lab5 {

const std::vector<Variant>& variants() {
  static const std::vector<Variant> table = {
      {"naive", "a", matmul_naive, Block::Chosen, {16, 16}},
      {"fine", "b", matmul_fine, Block::Chosen, {16, 16}},
      {"tiled16",
       "c",
       [](const float* A, const float* B, float* C, int n, int k, int m, Launch) {
         matmul_tiled<16>(A, B, C, n, k, m);
       },
       Block::Fixed,
       {16, 16}},
      {"tiled32",
       "c",
       [](const float* A, const float* B, float* C, int n, int k, int m, Launch) {
         matmul_tiled<32>(A, B, C, n, k, m);
       },
       Block::Fixed,
       {32, 32}},
      {"regblock",
       "d",
       [](const float* A, const float* B, float* C, int n, int k, int m, Launch) {
         matmul_regblock(A, B, C, n, k, m);
       },
       Block::Fixed,
       {0, 0}},
      {"best",
       "e",
       [](const float* A, const float* B, float* C, int n, int k, int m, Launch) {
         matmul_best(A, B, C, n, k, m);
       },
       Block::Fixed,
       {0, 0}},
  };
  return table;
}

const Variant& find_variant(const std::string& name) {
  return harness::find_by_name(variants(), name);
}

namespace {

void check_block(Launch l) {
  if (l.block_x < 1 || l.block_y < 1 || static_cast<long long>(l.block_x) * l.block_y > 1024) {
    throw std::invalid_argument("a thread block of " + std::to_string(l.block_x) + " x " +
                                std::to_string(l.block_y) +
                                " threads: each side must be >= 1 and the product at most 1024");
  }
}

}  // namespace

void check_launch(const Variant& v, long long n, long long k, long long m, Launch launch) {
  if (n < 1 || k < 1 || m < 1 || n > 1000000 || k > 1000000 || m > 1000000) {
    throw std::invalid_argument("sizes n = " + std::to_string(n) + ", k = " + std::to_string(k) +
                                ", m = " + std::to_string(m) + ": each must be 1..1000000");
  }
  if (n * k > 0x7fffffffLL || k * m > 0x7fffffffLL || n * m > 0x7fffffffLL) {
    throw std::invalid_argument("each matrix must hold fewer than 2^31 elements");
  }
  if (v.block == Block::Fixed) return;
  check_block(launch);
  if ((n + launch.block_y - 1) / launch.block_y > 65535) {
    throw std::invalid_argument(
        "grid y = ceil(n / block_y) must be at most 65535: raise --block-y");
  }
  if (v.name == std::string("fine") && k > 65535) {
    throw std::invalid_argument("fine uses grid z = k, at most 65535, not " + std::to_string(k));
  }
}

void check_mqdb_launch(Launch launch) { check_block(launch); }

std::ostream& operator<<(std::ostream& o, const Launch& l) {
  return o << l.block_x << " x " << l.block_y << " threads";
}

}  // namespace lab5
