// Freshness: what is judged is the output the timed runs wrote, and the variant
// runs once more on inputs drawn after timing. A launcher that does its work on
// an earlier call and skips it later, or replays a result cached between
// repetitions, fails with UntrustedTiming naming the first mismatches.
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

struct FreshChecks {
  // Poisoned before every repetition, outside the timed region (an in-place
  // variant restores its input in TimingOptions::prepare instead).
  std::vector<Output> outputs;
  // Waits for the device and compares the output with the reference: "" when right.
  std::function<std::string()> check;
  // Draws new inputs of the same size and distribution, with another seed, and
  // the reference output for them.
  std::function<void()> redraw;
};

// Times `launch` with time_gpu, the outputs poisoned before every repetition;
// then checks the last repetition's output, redraws the inputs, runs once more
// and checks again. Either check failing throws UntrustedTiming.
TimingStats time_fresh(const std::function<void()>& launch, TimingOptions options,
                       const FreshChecks& fresh);

// A seed for redrawn inputs that no earlier call returned and that no launcher
// can know in advance.
std::uint64_t fresh_seed();

}  // namespace harness
