// labN contract: every function the harness calls, defined in
// skeletons/labN_TOPIC/TOPIC_kernels.cu (reference: solutions/...). The student
// writes the kernel, which that file launches through TOPIC_launchers.cuh.
//
// SAXPY, out of place: out[i] = a * x[i] + y[i] for every i < n. x, y and out are
// three distinct device arrays of n floats; out arrives poisoned with NaN, so
// write every element.
//
// The launcher launches on the default stream and returns without synchronizing
// or allocating. Any n >= 1 must work: the grid may hold more threads than n.
#pragma once

namespace labN {

// Launch configuration, chosen on the lab program's command line.
struct Launch {
  int blocks;   // grid size: at least enough blocks of `threads` to cover n
  int threads;  // threads per block, 1 to 1024
};

// out[i] = a * x[i] + y[i], one thread per element.
void saxpy(float a, const float* x, const float* y, float* out, int n, Launch launch);

}  // namespace labN
