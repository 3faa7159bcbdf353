// (h) frees what it allocates: a program of its own, because the test
// reads the whole device's free memory and must have the GPU alone (SERIAL in
// CMakeLists.txt), where the correctness tests run side by side.
#include <gtest/gtest.h>

#include "lab5.hpp"

namespace lab5 {
namespace {

// What mqdb_from_host allocates mqdb_free frees. A leak can hide in memory the process
// freed before (earlier tests' buffers, kept for reuse), so rounds of 32 calls of (h),
// each leaking 256 MB at n = 1000 if the two element arrays are kept, go on until that
// is used up.
// The count is the whole device's: the test has the GPU alone (its own program, run
// serially), and a drop is taken as a leak only when the next round repeats it.
TEST(MqdbFromHost, FreesWhatItAllocates) {
  MqdbBench bench(1000, 3, 0);
  const std::string wrong = bench.check_from_host();
  ASSERT_TRUE(wrong.empty()) << "(h) is wrong on seed 0, n = 1000, k = 3; fix that first:\n"
                             << wrong;
  constexpr int kCalls = 32, kRounds = 8;
  const long long per_round = 2LL * bench.n() * bench.n() * sizeof(float) * kCalls;
  long long previous = 0;
  for (int round = 1; round <= kRounds; ++round) {
    const long long kept = bench.from_host_leak(kCalls);
    ASSERT_FALSE(previous >= per_round / 2 && kept >= per_round / 2)
        << "two rounds of " << kCalls << " calls of (h) (n = 1000) left " << previous / 1000000
        << " MB and " << kept / 1000000
        << " MB of device memory allocated: mqdb_free must cudaFree every array and struct "
           "that mqdb_from_host cudaMallocs";
    previous = kept;
  }
}

}  // namespace
}  // namespace lab5
