// The CPU reference for lab3 (the seeds' recursiveReduce), the per-block sums a
// per-block variant must produce, and the inputs: datasets checked for overflow,
// or large inputs generated in-process.
#pragma once
#include <string>
#include <vector>

namespace lab3 {

// The seeds' in-place interleaved-pairs reduction, fixed for sizes that are not a
// power of two (the element left over by an odd size is added to data[0]).
// Destroys `data`, like the seeds' version; size >= 1.
int recursiveReduce(int* data, int size);

// recursiveReduce on a copy of `values`.
int reduce_cpu(const std::vector<int>& values);

// Sum of values[b * chunk, min((b + 1) * chunk, n)) for every block b.
std::vector<int> block_sums_cpu(const std::vector<int>& values, long long chunk);

// Throws harness::DatasetError naming `path` when sum(|value|) exceeds 2^31 - 1:
// then an int partial sum could overflow and the exact check would be meaningless.
void check_no_overflow(const std::vector<int>& values, const std::string& path);

// Reads a lab3 dataset (raw int32) and checks it; expected_count < 0 accepts any size.
std::vector<int> load_values(const std::string& path, long long expected_count = -1);

// n values in [0, 8) from a fixed seed (splitmix64), for sizes too large to ship
// as files: 7 x 2^28 < 2^31, so even the 2^28 case cannot overflow.
std::vector<int> random_values(long long n, unsigned long long seed = 3);

}  // namespace lab3
