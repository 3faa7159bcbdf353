// labN: the launcher, fixed by the lab: launch.blocks blocks of launch.threads
// threads, as the contract says. It is a definition, not a declaration: the
// student's file includes this once, at its end, after the kernel it launches
// (saxpy_kernel). The name sorts after the contract's: the object check reads the
// lab's first *.cuh as its contract.
#pragma once
#include "TOPIC.cuh"

namespace labN {

void saxpy(float a, const float* x, const float* y, float* out, int n, Launch launch) {
  saxpy_kernel<<<launch.blocks, launch.threads>>>(a, x, y, out, n);
}

}  // namespace labN
