// An owning device array with explicit upload, download and poisoning.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <vector>

#include "labs/cuda_check.hpp"

namespace harness {

// Byte pattern written over outputs before every run, so an element the student's
// code never wrote cannot pass. 0xBE.. is a large negative int; 0xFF.. is a NaN float.
inline constexpr unsigned char kPoisonIntByte = 0xBE;
inline constexpr unsigned char kPoisonFloatByte = 0xFF;
inline constexpr int kPoisonInt = static_cast<int>(0xBEBEBEBEu);

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    LAB_CUDA_CHECK(cudaMalloc(&ptr_, bytes() == 0 ? 1 : bytes()));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }  // no throw: may run while unwinding a CUDA error

  T* get() { return ptr_; }
  const T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    LAB_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host;
    download(host);
    return host;
  }
  // Into `host`, resized: a vector kept between checks of a large output is not
  // allocated and paged in again each time.
  void download(std::vector<T>& host) const {
    host.resize(count_);
    LAB_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
  }
  void fill_bytes(unsigned char byte) { LAB_CUDA_CHECK(cudaMemset(ptr_, byte, bytes())); }
  void poison() {
    fill_bytes(std::is_floating_point<T>::value ? kPoisonFloatByte : kPoisonIntByte);
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_;
};

}  // namespace harness
