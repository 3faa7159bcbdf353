// What lab5's timings are measured against, shipped by the harness so that a
// student cannot move the bar: the seed's matrix_prod kernel and cuBLAS SGEMM.
#pragma once
#include <cublas_v2.h>

namespace lab5 {

// The seed's matrix_prod (one thread per element of C, 16 x 16 blocks, row from y,
// column from x), made rectangular: the baseline of the tiled variants.
void seed_naive_product(const float* A, const float* B, float* C, int n, int k, int m);

// cuBLAS SGEMM on row-major A (n x k), B (k x m), C (n x m), in full FP32:
// math mode CUBLAS_PEDANTIC_MATH, so no TF32 tensor cores even if the environment
// (NVIDIA_TF32_OVERRIDE) asks for them.
class CublasSgemm {
 public:
  CublasSgemm();
  ~CublasSgemm();
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;
  void run(const float* A, const float* B, float* C, int n, int k, int m);

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace lab5
