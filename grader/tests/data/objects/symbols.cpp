// Compiled by grader/tests/test_object_check.py with the host compiler: an object
// defining functions outside lab1's contract, and replacing the runtime's and the
// harness's.
struct Launch {
  int blocks, threads, slice;
};
typedef int cudaError_t;
typedef struct CUevent_st* cudaEvent_t;
namespace lab1 {
void histogram_global(const int*, int, int*, Launch) {}
void helper_visible() {}
namespace {
void helper_hidden() {}
}  // namespace
static void helper_static() {}
inline int lab_inline(int x) { return x + 1; }
__attribute__((used)) static int (*keep_lab_inline)(int) = lab_inline;
void histogram_best(const int*, int n, int*, Launch) {
  helper_hidden();
  helper_static();
  (void)lab_inline(n);
}
}  // namespace lab1
inline int header_inline(int x) { return 2 * x; }
__attribute__((used)) static int (*keep_header_inline)(int) = header_inline;
namespace harness {
double time_gpu() { return 1.0; }
}  // namespace harness
extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.001f;
  return 0;
}
