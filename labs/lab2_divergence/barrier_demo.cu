// lab2_barrier_demo: why __syncthreads() inside a branch that not every thread of
// the block takes is wrong. Harness-owned: nothing here is the student's.
//
//   (default)  runs the course's example (block of one warp, barrier in the
//              `threadIdx.x < 16` branch) and the fixed version (barrier after the
//              branch), and prints what each returned.
//   --hang     half of a block of 64 waits at a barrier that the other half never
//              reaches, because that half spins on a flag the first half sets only
//              after the barrier: a real deadlock. The harness's deadline
//              (LAB_KERNEL_TIMEOUT_S, default 10 s) ends the process with
//              "timed out after N s: possible deadlock" and exit code 124.
#include <cstdio>
#include <vector>

#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device_buffer.hpp"
#include "labs/program.hpp"
#include "labs/sync.hpp"

namespace {

__device__ int f1(int t) { return 100 + t; }
__device__ int f2(int t) { return 200 + t; }

// The course's example: undefined behaviour. Barriers must be reached by every
// non-exited thread of the block; here lanes 16..31 never arrive.
__global__ void barrier_in_branch(int* out) {
  const int t = threadIdx.x;
  __shared__ int s[64];
  if (t < 16) {
    s[t] = f1(t);
    __syncthreads();
  } else if (t >= 16) {
    s[t] = f2(t);
  }
  out[t] = s[t];
}

// The fix: every thread reaches the same barrier, after the branch.
__global__ void barrier_after_branch(int* out) {
  const int t = threadIdx.x;
  __shared__ int s[64];
  if (t < 16) {
    s[t] = f1(t);
  } else {
    s[t] = f2(t);
  }
  __syncthreads();
  out[t] = s[(t + 1) % blockDim.x];  // reads a neighbour's value: needs the barrier
}

// A guaranteed deadlock: warp 0 waits at the barrier for warp 1, which waits for a
// flag that warp 0 writes only after the barrier.
__global__ void barrier_vs_spin(volatile int* flag, int* out) {
  const int t = threadIdx.x;
  if (t < blockDim.x / 2) {
    __syncthreads();
    if (t == 0) *flag = 1;
  } else {
    while (*flag == 0) {
    }
  }
  out[t] = t;
}

void print_result(const char* what, const std::vector<int>& v) {
  std::printf("%s:", what);
  for (int x : v) std::printf(" %d", x);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program(
      "lab2_barrier_demo", argc, argv,
      {{"hang", "",
        "run the kernel that deadlocks (killed after LAB_KERNEL_TIMEOUT_S seconds, default 10)",
        ""}},
      [&](const harness::Args& args) {
        harness::require_gpu();
        harness::DeviceBuffer<int> out(64);
        if (args.has("hang")) {
          harness::DeviceBuffer<int> flag(1);
          flag.fill_bytes(0);
          std::printf(
              "barrier_vs_spin <<<1, 64>>>: warp 0 waits at __syncthreads(), warp 1 spins "
              "on a flag warp 0 sets after the barrier; waiting %.0f s...\n",
              harness::kernel_timeout_seconds());
          std::fflush(stdout);
          barrier_vs_spin<<<1, 64>>>(flag.get(), out.get());
          LAB_CHECK_LAUNCH();
          harness::synchronize_or_die(harness::kernel_timeout_seconds(), "barrier_vs_spin");
          std::printf("barrier_vs_spin returned: this GPU did not deadlock (unexpected)\n");
          return 1;
        }
        out.poison();
        barrier_in_branch<<<1, 32>>>(out.get());
        LAB_CHECK_LAUNCH();
        harness::synchronize_or_die(harness::kernel_timeout_seconds(), "barrier_in_branch");
        const std::vector<int> got = out.download();
        print_result(
            "barrier_in_branch <<<1, 32>>> (course's example, undefined behaviour) returned",
            std::vector<int>(got.begin(), got.begin() + 32));
        std::printf(
            "  It returned on this GPU, but a barrier in a branch that not every thread of\n"
            "  the block takes is undefined behaviour: another GPU, compiler or block size\n"
            "  may hang or compute garbage. With two warps, one waiting at the barrier and\n"
            "  one waiting for it, it does hang: run with --hang.\n");
        out.poison();
        barrier_after_branch<<<1, 64>>>(out.get());
        LAB_CHECK_LAUNCH();
        harness::synchronize_or_die(harness::kernel_timeout_seconds(), "barrier_after_branch");
        print_result("barrier_after_branch <<<1, 64>>> (the fix) returned", out.download());
        return 0;
      });
}
