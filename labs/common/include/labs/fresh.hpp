// Freshness: every timed run works on inputs it has never seen, and its output is
// checked. Before each run (warm-ups too), outside the timed window, the variant's
// inputs are redrawn from a seed nobody can predict and its outputs poisoned;
// after each run the output is compared with the harness's own answer for those
// inputs, computed only then. A launcher that replays an answer it cached (keyed
// by the input's content or not), does its work on an earlier call, or writes
// nothing fails with UntrustedTiming naming the first mismatches.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "labs/device_buffer.hpp"
#include "labs/timing.hpp"

namespace harness {

// Device memory a variant writes, and the byte it is poisoned with.
struct Output {
  void* ptr;
  std::size_t bytes;
  unsigned char poison;
};

template <class T>
Output output_of(DeviceBuffer<T>& buffer) {
  return {buffer.get(), buffer.bytes(),
          std::is_floating_point<T>::value ? kPoisonFloatByte : kPoisonIntByte};
}

// Device memory a run may only read.
struct Region {
  const void* ptr;
  std::size_t bytes;
};

template <class T>
Region region_of(const DeviceBuffer<T>& buffer) {
  return {buffer.get(), buffer.bytes()};
}

struct FreshChecks {
  // Poisoned before every run, outside the timed region (an in-place variant
  // restores its input in TimingOptions::prepare, which runs before the redraw).
  std::vector<Output> outputs;
  // Waits for the device and compares the output with the right answer for the
  // inputs of the run just made: "" when right. The answer is computed here, after
  // the run, from the inputs on the device (a trusted implementation: CUB, cuBLAS,
  // the harness's own kernel or the CPU), so no expected output exists anywhere
  // while student code runs.
  std::function<std::string()> check;
  // Replaces the inputs on the device with new ones of the same size and
  // distribution, drawn from `seed`: every element may change, so no digest of a
  // part of them decides the answer. Runs before every run: keep it on the device
  // (redraw.cuh), a few passes over the inputs at most.
  std::function<void(std::uint64_t seed)> redraw;
  // What each run must leave as it found it: the inputs it only reads, and the
  // copies that redraws and checks draw from. Hashed with a new key before and
  // after every run; a run that wrote to them fails (it could have replaced its
  // input with one whose answer it knows, for the check to agree with).
  std::vector<Region> unchanged = {};
  // Puts the bench's own inputs back once timing ends, however it ends (its other
  // checks and tables expect them); none when the redraws leave nothing to undo.
  std::function<void()> restore = {};
  // The inputs each redraw writes. Two successive runs whose inputs hold the same
  // 4-byte words in any order fail: a redraw that only moved the values of the one
  // before would let a memo answer (inputs under kRepeatCheckBytes are not compared:
  // small ones repeat by chance).
  std::vector<Region> redrawn = {};
};

inline constexpr std::size_t kRepeatCheckBytes = std::size_t{64} << 10;

// Times `launch` with time_gpu, each run on freshly drawn inputs with poisoned
// outputs, and checks each run's output. A wrong one throws UntrustedTiming.
TimingStats time_fresh(const std::function<void()>& launch, TimingOptions options,
                       const FreshChecks& fresh);

// A seed that no launcher can know in advance, even from this process's memory:
// drawn from the operating system at each call.
std::uint64_t fresh_seed();

}  // namespace harness
