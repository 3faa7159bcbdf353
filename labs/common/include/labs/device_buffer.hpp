// An owning device array with explicit upload, download and poisoning, between two
// guard zones, and sealed while it must hold what the host recorded (integrity.hpp).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "labs/cuda_check.hpp"
#include "labs/integrity.hpp"

namespace harness {

// Byte pattern written over outputs before every run, so an element the student's
// code never wrote cannot pass. 0xBE.. is a large negative int; 0xFF.. is a NaN float.
inline constexpr unsigned char kPoisonIntByte = 0xBE;
inline constexpr unsigned char kPoisonFloatByte = 0xFF;
inline constexpr int kPoisonInt = static_cast<int>(0xBEBEBEBEu);

template <class T>
class DeviceBuffer {
 public:
  // `at`: where the buffer is made, named when its guard zones or seal break.
  explicit DeviceBuffer(std::size_t count, AllocatedAt at = AllocatedAt::here())
      : count_(count), ptr_(static_cast<T*>(detail::allocate_guarded(bytes(), at))) {}
  explicit DeviceBuffer(const std::vector<T>& host, AllocatedAt at = AllocatedAt::here())
      : DeviceBuffer(host.size(), at) {
    upload(host);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  // No throw: may run while unwinding a CUDA error.
  ~DeviceBuffer() { detail::free_guarded(ptr_); }

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
  // From now on every check_integrity verifies that the buffer holds `host` (what
  // it holds now), against a digest the host computes of it.
  void seal(const std::vector<T>& host) {
    if (host.size() != count_) throw std::invalid_argument("seal: not the buffer's size");
    detail::seal(ptr_, host.data(), bytes());
  }
  // Before the harness rewrites a sealed buffer; reseal() once it holds the sealed
  // values again (restored from another sealed buffer, say).
  void unseal() { detail::set_sealed(ptr_, false); }
  void reseal() { detail::set_sealed(ptr_, true); }
  void fill_bytes(unsigned char byte) { LAB_CUDA_CHECK(cudaMemset(ptr_, byte, bytes())); }
  void poison() {
    fill_bytes(std::is_floating_point<T>::value ? kPoisonFloatByte : kPoisonIntByte);
  }

 private:
  std::size_t count_;
  T* ptr_;
};

}  // namespace harness
