// The lab1 variants as the harness sees them: name, launcher, how a launch
// configuration maps to samples, and the seed's default configuration.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "histogram.cuh"

namespace lab1 {

using Launcher = void (*)(const int*, int, int*, Launch);

enum class Work {
  SlicePerThread,  // a thread handles `slice` samples: blocks * threads * slice >= n
  ChunkPerBlock,   // a block handles `slice` samples: blocks * slice >= n
  Free,            // the variant picks its grid (blocks = 0)
};

struct Variant {
  const char* name;
  const char* letter;  // the exercise's item: (a), (b), ...
  Launcher run;
  Work work;
  Launch defaults;  // the seed's configuration for 2^25 samples
};

const std::vector<Variant>& variants();
// The named variant; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

// The configuration to launch `v` with on n samples: `requested.blocks == 0`
// means "just enough blocks to cover n". Throws std::invalid_argument with the
// reason for a configuration that cannot work (too few blocks, too many threads,
// a chunk larger than shared memory).
Launch resolve_launch(const Variant& v, long long n, Launch requested);

std::ostream& operator<<(std::ostream& o, const Launch& l);

}  // namespace lab1
