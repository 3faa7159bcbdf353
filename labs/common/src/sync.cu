#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "labs/cuda_check.hpp"
#include "labs/sync.hpp"

namespace harness {

double kernel_timeout_seconds() {
  if (const char* env = std::getenv("LAB_KERNEL_TIMEOUT_S")) {
    const double v = std::atof(env);
    if (v > 0) return v;
  }
  return 10.0;
}

void synchronize_or_die(double timeout_s, const char* what) {
  cudaEvent_t done;
  LAB_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  LAB_CUDA_CHECK(cudaEventRecord(done));
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    const cudaError_t state = cudaEventQuery(done);
    if (state == cudaSuccess) break;
    if (state != cudaErrorNotReady) {
      cudaEventDestroy(done);
      cuda_check(state, what, __FILE__, __LINE__);
    }
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > timeout_s) {
      std::fprintf(stderr,
                   "cuda-labs: %s timed out after %.0f s: possible deadlock "
                   "(e.g. __syncthreads() in a branch that not every thread takes)\n",
                   what, timeout_s);
      std::fflush(stderr);
      std::fflush(stdout);
      std::_Exit(124);
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(5)) pause *= 2;
  }
  cudaEventDestroy(done);
  LAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace harness
