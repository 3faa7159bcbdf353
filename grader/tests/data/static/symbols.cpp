// Compiled by grader/tests/test_static_check.py with the host compiler: an object
// defining functions outside lab1's contract.
struct Launch { int blocks, threads, slice; };
typedef int cudaError_t;
typedef struct CUevent_st* cudaEvent_t;
namespace lab1 {
void histogram_global(const int*, int, int*, Launch) {}
void helper_visible() {}
namespace {
void helper_hidden() {}
}
static void helper_static() {}
void use() { helper_hidden(); helper_static(); }
}  // namespace lab1
namespace harness {
double time_gpu() { return 1.0; }
}
extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.001f;
  return 0;
}
