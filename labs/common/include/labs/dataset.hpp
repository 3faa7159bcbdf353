// Reading the raw little-endian binary files the dataset generators write, with
// errors that name the file: missing, unreadable, not a regular file, truncated,
// wrongly sized.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

class DatasetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The most values a dataset file holds: datasets/schema.py's MAX_N.
inline constexpr long long kMaxDatasetValues = 1LL << 28;

// Reads every element of `path`, a regular file. With expected_count >= 0 the file
// must hold exactly that many, else at most kMaxDatasetValues; its size is checked
// before anything is read. Throws DatasetError with the path and the fix.
template <class T>
std::vector<T> read_binary_file(const std::string& path, long long expected_count = -1);

// Where a test finds a generated case: $LAB_DATA_DIR/<name>.bin, else the build
// tree's datasets folder compiled in as `default_dir`.
std::string dataset_path(const std::string& default_dir, const std::string& case_name);

}  // namespace harness
