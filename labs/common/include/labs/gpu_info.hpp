// What GPU a result was measured on: recorded beside every timing.
#pragma once
#include <string>

namespace harness {

struct GpuInfo {
  std::string name;
  int driver_version = 0;  // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;
  int major = 0, minor = 0;  // compute capability
  int sm_count = 0;
  double memory_gb = 0;
  int l2_bytes = 0;
  int sm_clock_mhz = 0;  // maximum clocks as reported by the driver
  int mem_clock_mhz = 0;
  int memory_bus_bits = 0;
  int shared_per_block = 0;
  int shared_per_sm = 0;
  int registers_per_sm = 0;
  int max_threads_per_sm = 0;
};

// True when a CUDA device can be used; otherwise `why` says what went wrong,
// "no NVIDIA driver or GPU found" when there is none.
bool cuda_device_available(std::string* why);
GpuInfo query_gpu_info(int device = 0);
std::string to_json(const GpuInfo& info);
std::string one_line(const GpuInfo& info);  // "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, driver 13.0"

}  // namespace harness
