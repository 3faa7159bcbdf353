#include "cpu_reference.hpp"

#include "labs/dataset.hpp"

namespace lab1 {

std::vector<int> histogram_cpu(const std::vector<int>& samples) {
  std::vector<int> hist(kBins, 0);
  for (int v : samples) ++hist[v];
  return hist;
}

void check_samples_in_range(const std::vector<int>& samples, const std::string& path) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i] < 0 || samples[i] >= kBins) {
      throw harness::DatasetError(path + ": sample " + std::to_string(i) + " is " +
                                  std::to_string(samples[i]) + ", outside 0.." +
                                  std::to_string(kBins - 1) + ": not a 10-bit dataset");
    }
  }
}

std::vector<int> load_samples(const std::string& path, long long expected_count) {
  std::vector<int> samples = harness::read_binary_file<int>(path, expected_count);
  check_samples_in_range(samples, path);
  return samples;
}

}  // namespace lab1
