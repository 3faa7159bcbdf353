// lab5's yardsticks (lab5.hpp): the course's naive kernel and cuBLAS SGEMM, the one unit
// that includes cuBLAS.
#include <cublas_v2.h>

#include <stdexcept>
#include <string>

#include "lab5.hpp"
#include "labs/cuda_check.hpp"

namespace lab5 {
namespace {

__global__ void course_matrix_prod(const float* A, const float* B, float* C, int n, int k, int m) {
  const int Row = blockIdx.y * blockDim.y + threadIdx.y;
  const int Col = blockIdx.x * blockDim.x + threadIdx.x;
  if (Row < n && Col < m) {
    float val = 0;
    for (int l = 0; l < k; l++) val += A[(size_t)Row * k + l] * B[(size_t)l * m + Col];
    C[(size_t)Row * m + Col] = val;
  }
}

void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLAS: ") + what + " failed with status " +
                             std::to_string(static_cast<int>(s)));
  }
}

}  // namespace

void course_naive_product(const float* A, const float* B, float* C, int n, int k, int m) {
  const dim3 block(16, 16);
  const dim3 grid((m + 15) / 16, (n + 15) / 16);
  course_matrix_prod<<<grid, block>>>(A, B, C, n, k, m);
  LAB_CHECK_LAUNCH();
}

CublasSgemm::CublasSgemm() {
  cublas_check(cublasCreate(&handle_), "cublasCreate");
  cublas_check(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
}

CublasSgemm::~CublasSgemm() {
  if (handle_) cublasDestroy(handle_);
}

void CublasSgemm::run(const float* A, const float* B, float* C, int n, int k, int m) {
  // Row-major C = A B is column-major C^T = B^T A^T.
  const float one = 1.0f, zero = 0.0f;
  cublas_check(
      cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, B, m, A, k, &zero, C, m),
      "cublasSgemm");
}

}  // namespace lab5
