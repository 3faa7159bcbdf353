#include <cstdio>
#include <sstream>

#include "labs/cuda_check.hpp"
#include "labs/gpu_info.hpp"

namespace harness {

static std::string version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

bool cuda_device_available(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return true;
  if (!why) return false;
  // Without any driver the runtime says "CUDA driver version is insufficient";
  // cudaDriverGetVersion tells that case apart: it gives 0 when none is installed.
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
  if (driver == 0) {
    *why = "no NVIDIA driver or GPU found";
  } else if (status == cudaSuccess || status == cudaErrorNoDevice) {
    *why = "no NVIDIA driver or GPU found: the driver (CUDA " + version(driver) + ") sees no GPU";
  } else if (status == cudaErrorInsufficientDriver) {
    *why = "the NVIDIA driver supports CUDA " + version(driver) + ", older than the CUDA " +
           version(CUDART_VERSION) + " runtime this program was built with: update the driver";
  } else {
    *why = std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  }
  return false;
}

GpuInfo query_gpu_info(int device) {
  cudaDeviceProp p{};
  LAB_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  GpuInfo info;
  info.name = p.name;
  LAB_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  LAB_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  info.major = p.major;
  info.minor = p.minor;
  info.sm_count = p.multiProcessorCount;
  info.memory_gb = p.totalGlobalMem / 1e9;
  info.l2_bytes = p.l2CacheSize;
  // Clock rates left cudaDeviceProp in CUDA 13: ask the attributes instead.
  int khz = 0;
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  info.sm_clock_mhz = khz / 1000;
  LAB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device));
  info.mem_clock_mhz = khz / 1000;
  info.memory_bus_bits = p.memoryBusWidth;
  info.shared_per_block = static_cast<int>(p.sharedMemPerBlock);
  info.shared_per_sm = static_cast<int>(p.sharedMemPerMultiprocessor);
  info.registers_per_sm = p.regsPerMultiprocessor;
  info.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  return info;
}

std::string to_json(const GpuInfo& i) {
  std::ostringstream o;
  o << "{\"name\": \"" << i.name << "\", \"driver_version\": \"" << version(i.driver_version)
    << "\", \"runtime_version\": \"" << version(i.runtime_version)
    << "\", \"compute_capability\": \"" << i.major << "." << i.minor
    << "\", \"sm_count\": " << i.sm_count << ", \"memory_gb\": " << i.memory_gb
    << ", \"l2_bytes\": " << i.l2_bytes << ", \"sm_clock_mhz\": " << i.sm_clock_mhz
    << ", \"mem_clock_mhz\": " << i.mem_clock_mhz << ", \"memory_bus_bits\": " << i.memory_bus_bits
    << ", \"shared_per_block\": " << i.shared_per_block
    << ", \"shared_per_sm\": " << i.shared_per_sm
    << ", \"registers_per_sm\": " << i.registers_per_sm
    << ", \"max_threads_per_sm\": " << i.max_threads_per_sm << "}";
  return o.str();
}

std::string one_line(const GpuInfo& i) {
  std::ostringstream o;
  o << i.name << ", sm_" << i.major << i.minor << ", " << i.sm_count << " SMs, "
    << i.l2_bytes / (1 << 20) << " MiB L2, driver " << version(i.driver_version) << ", runtime "
    << version(i.runtime_version);
  return o.str();
}

}  // namespace harness
