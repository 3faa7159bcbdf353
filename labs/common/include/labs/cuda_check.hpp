// CUDA error checks that throw instead of exiting, so a test reports the error
// (with its name, e.g. cudaErrorIllegalAddress) and the other tests still run.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace harness {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& where)
      : std::runtime_error(where + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) +
                           ")"),
        code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline void cuda_check(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) {
    throw CudaError(code, std::string(file) + ":" + std::to_string(line) + " " + expr);
  }
}

}  // namespace harness

#define LAB_CUDA_CHECK(expr) ::harness::cuda_check((expr), #expr, __FILE__, __LINE__)
// After a kernel launch: reports a bad launch configuration at once.
#define LAB_CHECK_LAUNCH() \
  ::harness::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
