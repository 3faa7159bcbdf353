// Compiled by grader/tests/test_object_check.py with the host compiler: host code
// doing what a submission may not, behind contract functions of lab4.
#include <cstdio>
#include <cstdlib>
typedef int cudaError_t;
extern "C" cudaError_t cudaMemcpyFromSymbol(void*, const void*, unsigned long, unsigned long, int);
extern "C" cudaError_t cudaGetDevice(int*);
namespace lab4 {
namespace {
float d_symbol[16];
__attribute__((constructor)) void early() { std::puts("before main"); }
long raw_getpid() {
  long r;
  asm volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory");
  return r;
}
}  // namespace
cudaError_t symbol_download(float* host, int n) {
  return cudaMemcpyFromSymbol(host, d_symbol, n * sizeof(float), 0, 2);
}
void power_best(const float*, float* out, int n, int, int) {
  int device = 0;
  cudaGetDevice(&device);
  cudaMemcpyFromSymbol(out, d_symbol, n, 0, 2);
  if (std::getenv("LAB_SECRET_SEED")) out[0] = static_cast<float>(raw_getpid());
}
}  // namespace lab4
