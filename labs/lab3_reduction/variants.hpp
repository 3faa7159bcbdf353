// The lab3 variants as the harness sees them: name, launcher, how many data
// blocks one thread block reduces, and the seed's default block size.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "reduction.cuh"

namespace lab3 {

using Launcher = void (*)(int*, int, int*, Launch);

struct Variant {
  const char* name;
  const char* seed_name;  // the kernel's name in the seeds (reduceInteger.cu)
  Launcher run;
  int unroll;   // data blocks per thread block; 0: the whole sum on the device
  int threads;  // the seeds' block size
  bool per_block() const { return unroll > 0; }
};

const std::vector<Variant>& variants();
// The named variant; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

// The configuration to launch `v` with on n elements. Per-block variants get
// exactly ceil(n / (threads x unroll)) blocks; `requested.blocks` must be 0 or
// that number. reduce_shuffle keeps requested.blocks (0: it picks its grid),
// which may not exceed the partial buffer. Throws std::invalid_argument with the
// reason for a configuration that cannot work.
Launch resolve_launch(const Variant& v, long long n, Launch requested);

// Elements of data that block b of `v` reduces (per-block variants).
inline long long chunk_of(const Variant& v, const Launch& l) {
  return static_cast<long long>(l.threads) * v.unroll;
}

std::ostream& operator<<(std::ostream& o, const Launch& l);

}  // namespace lab3
