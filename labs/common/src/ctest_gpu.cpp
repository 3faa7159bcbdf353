#include "labs/ctest_gpu.hpp"

#include <cstdlib>
#include <vector>

namespace harness {

namespace {

// Long enough for any GPU index, short enough that the value cannot overflow an int.
constexpr std::size_t kMaxDigits = 6;

// The number `text` spells in decimal digits only, or -1.
int parse_count(const std::string& text) {
  if (text.empty() || text.size() > kMaxDigits) return -1;
  int value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return -1;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string::npos;
       at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

std::string ctest_visible_devices(const std::string& allocation, const char* visible,
                                  std::string* error) {
  const std::string prefix = std::string(kCtestGpuEnv) + "='" + allocation + "': ";
  const std::vector<std::string> fields = split(allocation, ',');
  const bool shaped =
      fields.size() == 2 && fields[0].rfind("id:", 0) == 0 && fields[1].rfind("slots:", 0) == 0;
  const int id = shaped ? parse_count(fields[0].substr(3)) : -1;
  const int slots = shaped ? parse_count(fields[1].substr(6)) : -1;
  if (id < 0 || slots < 1) {
    *error = prefix +
             "expected one GPU as id:N,slots:N, N a number (ctest's resource allocation, "
             "RESOURCE_GROUPS \"gpus:1\"; scripts/gpu_resource_spec.py writes the spec file)";
    return "";
  }
  if (visible == nullptr) return std::to_string(id);
  for (const std::string& entry : split(visible, ',')) {
    if (parse_count(entry) == id) return std::to_string(id);
  }
  *error = prefix + "GPU " + std::to_string(id) + " is not one that CUDA_VISIBLE_DEVICES='" +
           visible + "' lets this process use (the spec's ids are nvidia-smi's indices)";
  return "";
}

bool use_ctest_gpu(std::string* error) {
  const char* allocation = std::getenv(kCtestGpuEnv);
  if (allocation == nullptr) return true;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string devices = ctest_visible_devices(allocation, visible, error);
  if (devices.empty()) return false;
  // Ids are nvidia-smi's, which counts GPUs in PCI bus order; CUDA's default order is
  // fastest first.
  setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1);
  setenv("CUDA_VISIBLE_DEVICES", devices.c_str(), 1);
  return true;
}

}  // namespace harness
