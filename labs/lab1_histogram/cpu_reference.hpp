// The CPU reference for lab1, and the check that a dataset holds 10-bit samples.
#pragma once
#include <string>
#include <vector>

#include "histogram.cuh"

namespace lab1 {

std::vector<int> histogram_cpu(const std::vector<int>& samples);

// Throws harness::DatasetError naming the file and the first value outside [0, kBins).
void check_samples_in_range(const std::vector<int>& samples, const std::string& path);

// Reads a lab1 dataset (raw int32) and checks it; expected_count < 0 accepts any size.
std::vector<int> load_samples(const std::string& path, long long expected_count = -1);

}  // namespace lab1
