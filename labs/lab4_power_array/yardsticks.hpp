// What lab4's timings are measured against, and what the program shows beside
// them, shipped by the harness so that a student cannot move the bar.
#pragma once
#include <string>
#include <vector>

namespace lab4 {

// The window of Part 2 from global memory, one output per thread, blocks of 128:
// the baseline the shared-memory window is compared with.
void window_global_yardstick(const float* in, float* out, int n, int radius);

// The seed's loop with the compiler's hands tied: in[i] read through a volatile
// pointer, so the k loads really happen. Shows what keeping dA[i] in a register
// (which the compiler does by itself for the seed's kernel) saves.
void power_volatile_reads(const float* in, float* out, int n, int k);

// Load latencies measured with one thread chasing pointers (each load's address
// is the previous load's value), in SM clock cycles per load.
struct Latency {
  std::string level;  // "shared memory", "L1 hit", ...
  std::string how;    // what was chased
  double cycles;
};
std::vector<Latency> measure_latencies();

}  // namespace lab4
