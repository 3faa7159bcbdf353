// The GPU that ctest's resource allocation gives a test (ctest --resource-spec-file).
// Every GPU test asks for one slot of one GPU (RESOURCE_GROUPS "gpus:1",
// cmake/LabTesting.cmake), and ctest names it in CTEST_RESOURCE_GROUP_0_GPUS as
// "id:N,slots:1". Id N is nvidia-smi's GPU N (scripts/gpu_resource_spec.py writes the spec
// from `nvidia-smi -L`); where CUDA_VISIBLE_DEVICES is set, it must be one of the GPUs that
// lists. Without a resource spec ctest sets nothing and every GPU stays visible.
#pragma once
#include <string>

namespace harness {

inline constexpr const char* kCtestGpuEnv = "CTEST_RESOURCE_GROUP_0_GPUS";

// The CUDA_VISIBLE_DEVICES value that shows only the GPU `allocation` (ctest's value)
// names, given the current value `visible` (nullptr when unset); an empty string, with
// `error` saying why, when `allocation` is malformed or names a GPU `visible` leaves out.
std::string ctest_visible_devices(const std::string& allocation, const char* visible,
                                  std::string* error);

// Makes the GPU ctest allocated the only one CUDA sees, so device 0 everywhere in the
// harness is that GPU. Call before the first CUDA call: the runtime reads
// CUDA_VISIBLE_DEVICES once, when it starts. Without CTEST_RESOURCE_GROUP_0_GPUS it does
// nothing. False, with `error`, when the value cannot be used.
bool use_ctest_gpu(std::string* error);

}  // namespace harness
