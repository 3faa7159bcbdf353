// Device code for the device check's tests: a tensor-core product written as inline
// PTX, one through WMMA, and a CUB-named device function that is not inlined.
#include <mma.h>

namespace cub {
__device__ __noinline__ int triple(int x) { return 3 * x; }
}  // namespace cub

__global__ void library_kernel(int* p) { p[0] = cub::triple(p[1]); }

__global__ void inline_mma(const unsigned* a, const unsigned* b, float* c) {
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
      "{%0,%1,%2,%3};"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  c[threadIdx.x] = d0 + d1 + d2 + d3;
}

__global__ void fma_only(const float* a, const float* b, float* c) {
  c[threadIdx.x] = fmaf(a[threadIdx.x], b[threadIdx.x], c[threadIdx.x]);
}
