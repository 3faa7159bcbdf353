// lab6's yardstick (lab6.hpp): CUB's DeviceScan::InclusiveSum, a unit of its own
// because CUB takes long to compile.
#include <cub/device/device_scan.cuh>

#include "lab6.hpp"
#include "labs/cuda_check.hpp"

namespace lab6 {

std::size_t cub_scan_temp_bytes(int n) {
  std::size_t bytes = 0;
  LAB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const int*>(nullptr),
                                               static_cast<int*>(nullptr), n));
  return bytes;
}

void cub_inclusive_scan(const int* in, int* out, int n, void* temp, std::size_t temp_bytes) {
  LAB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n));
}

}  // namespace lab6

// ---- The sort's yardstick: CUB's DeviceRadixSort::SortKeys, all 32 bits --------------

#include <cub/device/device_radix_sort.cuh>

namespace lab6 {

std::size_t cub_sort_temp_bytes(int n) {
  std::size_t bytes = 0;
  LAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
      nullptr, bytes, static_cast<const unsigned*>(nullptr), static_cast<unsigned*>(nullptr), n));
  return bytes;
}

void cub_sort_keys(const unsigned* in, unsigned* out, int n, void* temp, std::size_t temp_bytes) {
  LAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, n));
}

}  // namespace lab6
