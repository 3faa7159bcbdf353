// Waiting for the GPU with a deadline: a kernel that never finishes (a barrier
// half a block never reaches) must fail its test with a reason, not hang it.
#pragma once

namespace harness {

// Default deadline for one kernel launch, in seconds (env LAB_KERNEL_TIMEOUT_S).
double kernel_timeout_seconds();

// Waits for all work on the device, every stream of it: first for the legacy
// default stream (which waits for every blocking stream), polled, then
// cudaDeviceSynchronize under a watchdog. Throws CudaError for a kernel error;
// after `timeout_s` prints "timed out after N s: possible deadlock" and ends the
// process with exit code 124 (a hung kernel cannot be cancelled from inside the
// process). Then runs check_integrity (integrity.hpp): throws IntegrityError for a
// guard zone overwritten or a sealed buffer changed.
void synchronize_or_die(double timeout_s = kernel_timeout_seconds(), const char* what = "kernel");

}  // namespace harness
