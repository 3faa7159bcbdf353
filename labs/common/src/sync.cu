#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "labs/cuda_check.hpp"
#include "labs/integrity.hpp"
#include "labs/sync.hpp"

namespace harness {
namespace {

[[noreturn]] void deadlock(const char* what, double timeout_s) {
  std::fprintf(stderr,
               "cuda-labs: %s timed out after %.0f s: possible deadlock "
               "(e.g. __syncthreads() in a branch that not every thread takes)\n",
               what, timeout_s);
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(124);
}

// Polls `done` until it completes or the deadline passes.
void wait_or_die(cudaEvent_t done, double timeout_s, const char* what) {
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(20);
  for (;;) {
    const cudaError_t state = cudaEventQuery(done);
    if (state == cudaSuccess) return;
    if (state != cudaErrorNotReady) {
      cudaEventDestroy(done);
      cuda_check(state, what, __FILE__, __LINE__);
    }
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > timeout_s) deadlock(what, timeout_s);
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(5)) pause *= 2;
  }
}

// cudaDeviceSynchronize cannot be polled: a second thread ends the process if it
// has not returned by the deadline.
cudaError_t device_synchronize_or_die(double timeout_s, const char* what) {
  std::mutex mutex;
  std::condition_variable returned;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mutex);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    if (!returned.wait_until(lock, deadline, [&] { return done; })) deadlock(what, timeout_s);
  });
  const cudaError_t status = cudaDeviceSynchronize();
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  returned.notify_one();
  watchdog.join();
  return status;
}

}  // namespace

double kernel_timeout_seconds() {
  if (const char* env = std::getenv("LAB_KERNEL_TIMEOUT_S")) {
    const double v = std::atof(env);
    if (v > 0) return v;
  }
  return 10.0;
}

void synchronize_or_die(double timeout_s, const char* what) {
  // On the legacy default stream, which waits for every blocking stream (the
  // per-thread default streams included), whatever this file is compiled with.
  cudaEvent_t done;
  LAB_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  LAB_CUDA_CHECK(cudaEventRecord(done, cudaStreamLegacy));
  wait_or_die(done, timeout_s, what);
  cudaEventDestroy(done);
  // Then the rest of the device: non-blocking streams wait for no one.
  cuda_check(device_synchronize_or_die(timeout_s, what), what, __FILE__, __LINE__);
  LAB_CUDA_CHECK(cudaGetLastError());
  // What the work just finished may have broken, before anything reads what it left.
  check_integrity();
}

}  // namespace harness
