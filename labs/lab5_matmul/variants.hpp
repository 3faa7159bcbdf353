// The lab5 variants as the harness sees them: name, launcher, whether the lab
// program chooses the thread block, and the seed's default block.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "matmul.cuh"

namespace lab5 {

using Launcher = void (*)(const float*, const float*, float*, int, int, int, Launch);

enum class Block {
  Chosen,  // launch.block_x x launch.block_y threads (naive, fine)
  Fixed,   // the variant fixes its block (tiled, register-blocked, best)
};

struct Variant {
  const char* name;
  const char* letter;  // the exercise's item: (a), (b), ...
  Launcher run;
  Block block;
  Launch defaults;  // the seed's 16 x 16 block where it applies
};

const std::vector<Variant>& variants();
// The named variant; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

// Checks a product n x k times k x m launched with `launch` can run: sizes >= 1,
// 1..1024 threads per block, a grid within CUDA's limits, and for `fine` k <= 65535
// (grid z). Throws std::invalid_argument with the reason.
void check_launch(const Variant& v, long long n, long long k, long long m, Launch launch);

// The MQDB variants: mqdb_naive (block chosen) and mqdb_best (its own).
void check_mqdb_launch(Launch launch);

std::ostream& operator<<(std::ostream& o, const Launch& l);

}  // namespace lab5
