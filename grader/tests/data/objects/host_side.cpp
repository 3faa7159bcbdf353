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
// The linker also runs these before main: priority-suffixed arrays, .ctors, .init code.
__attribute__((constructor(101))) void earlier() { std::puts("before main"); }
__attribute__((section(".ctors.00300"), used)) void (*listed)() = early;
__attribute__((used)) void in_init() __asm__("in_init");
void in_init() { std::puts("before main"); }
asm(".section .init,\"ax\",@progbits\n\tcall in_init\n\t.previous");
long raw_getpid() {
  long r;
  asm volatile("syscall" : "=a"(r) : "a"(39L) : "rcx", "r11", "memory");
  return r;
}
__attribute__((used)) long prefixed_getpid() {
  long r;
  asm volatile(".byte 0x3e, 0x0f, 0x05"
               : "=a"(r)
               : "a"(39L)
               : "rcx", "r11", "memory");  // ds syscall
  return r;
}
// mov's immediate holds 0f 05, `syscall`, and the jump lands inside it.
__attribute__((used)) long hidden_getpid() {
  long r;
  asm volatile("mov $39, %%eax\n\tjmp 1f+1\n1:\tmov $0x9090050f, %%ecx"
               : "=a"(r)
               :
               : "rcx", "r11", "memory");
  return r;
}
// The same bytes reached through a pointer into the middle of the function.
__attribute__((naked, used)) long hidden_by_pointer() {
  asm("mov $39, %eax\n\tmov $0x9090050f, %ecx\n\tret");
}
__attribute__((used)) long (*volatile into_mov)() =
    reinterpret_cast<long (*)()>(reinterpret_cast<char*>(&hidden_by_pointer) + 6);
}  // namespace
// An indirect function: the loader runs its resolver before main.
static void* pick() __asm__("pick");
static void* pick() { return reinterpret_cast<void*>(&raw_getpid); }
long power_register() __attribute__((ifunc("pick")));
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
