#include "labs/dataset.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

namespace harness {

template <class T>
std::vector<T> read_binary_file(const std::string& path, long long expected_count) {
  // An ifstream opens a directory on Linux, and its size then reads as 2^63 - 1.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw DatasetError(path + ": is a directory, not a dataset file: name one of its .bin files");
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    throw DatasetError(path + ": cannot open (" + std::strerror(errno) +
                       "); generate it with `python3 -m datasets.generate` (see the lab README)");
  }
  const long long bytes = static_cast<long long>(in.tellg());
  if (bytes < 0) throw DatasetError(path + ": not a regular file (its size cannot be read)");
  if (bytes % static_cast<long long>(sizeof(T)) != 0) {
    throw DatasetError(path + ": " + std::to_string(bytes) + " bytes is not a whole number of " +
                       std::to_string(sizeof(T)) + "-byte values: the file is truncated");
  }
  const long long count = bytes / static_cast<long long>(sizeof(T));
  if (expected_count >= 0 && count != expected_count) {
    throw DatasetError(path + ": holds " + std::to_string(count) + " values, expected " +
                       std::to_string(expected_count) +
                       (count < expected_count ? " (truncated?)" : "") +
                       "; regenerate it with `python3 -m datasets.generate`");
  }
  if (count == 0) throw DatasetError(path + ": the file is empty");
  std::vector<T> values(static_cast<std::size_t>(count));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(values.data()), bytes)) {
    throw DatasetError(path + ": read failed after " + std::to_string(in.gcount()) + " bytes");
  }
  return values;
}

template std::vector<std::int32_t> read_binary_file(const std::string&, long long);
template std::vector<float> read_binary_file(const std::string&, long long);

std::string dataset_path(const std::string& default_dir, const std::string& case_name) {
  const char* env = std::getenv("LAB_DATA_DIR");
  const std::string dir = env && *env ? env : default_dir;
  return dir + "/" + case_name + ".bin";
}

}  // namespace harness
