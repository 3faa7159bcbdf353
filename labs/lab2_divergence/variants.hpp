// The lab2 kernels as the harness sees them: name, launcher, which result they
// compute, and the block-size rules every launch must follow.
#pragma once
#include <string>
#include <vector>

#include "divergence.cuh"

namespace lab2 {

using Launcher = void (*)(const float*, int, float*, Launch);

enum class Family {
  Parity,  // out[i] = i even ? work_even(in[i]) : work_odd(in[i])
  Switch,  // out[i] = switch_work(i % 32, in[i])
};

struct Variant {
  const char* name;
  const char* letter;  // the exercise's item: (a), (b), ...
  Launcher run;
  Family family;
  const char* branch;  // what the branch is on, for the program's table
};

// (a) even_odd, (b) warp_aligned, (c) half_block, (d) switch_divergent, (e) switch_uniform.
const std::vector<Variant>& variants();
// The named variant; throws std::invalid_argument listing the known names.
const Variant& find_variant(const std::string& name);

inline constexpr int kDefaultThreads = 256;

// Throws std::invalid_argument unless threads is a multiple of 32 in 32..1024.
Launch check_launch(long long threads);
// Throws std::invalid_argument unless x, y >= 1 and x * y <= 1024.
Block2D check_block(long long x, long long y);

}  // namespace lab2
