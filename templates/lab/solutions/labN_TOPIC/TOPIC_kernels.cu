#if LAB_SKELETON  // the skeleton: bash scripts/make_skeletons.sh writes skeletons/ from this master
// labN: your kernel. Read labs/labN_TOPIC/README.md and the contract
// labs/labN_TOPIC/TOPIC.cuh first.
//
// The launcher is written, in labs/labN_TOPIC/TOPIC_launchers.cuh: launch.blocks
// blocks of launch.threads threads, on the default stream. The kernel must work for
// any n >= 1: the grid may hold more threads than n, so check bounds.
#else
// labN reference solution: SAXPY, one thread per element.
#endif
#include "TOPIC.cuh"

namespace labN {
namespace {

#if LAB_SKELETON
// out[i] = a * x[i] + y[i] for this thread's i = blockIdx.x * blockDim.x + threadIdx.x,
// when i < n.
#else
// One element per thread; the bounds check leaves the grid's spare threads idle.
#endif
__global__ void saxpy_kernel(float a, const float* x, const float* y, float* out, int n) {
#if LAB_SKELETON
  // TODO
#else
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
#endif
}

}  // namespace

}  // namespace labN

// The launcher, fixed by the lab: it launches the kernel above by name.
#include "TOPIC_launchers.cuh"
