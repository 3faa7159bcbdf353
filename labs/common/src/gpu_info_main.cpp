// lab_gpu_info: prints the GPU as one JSON object, or exits 77 when there is none.
// `lab_gpu_info --context MIB` also creates a context and allocates and clears MIB
// MiB (0: the context alone), what every test process pays at least, so scripts
// can time a test's start-up and tell the context's share from the memory's.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <exception>
#include <string>

#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/device_buffer.hpp"
#include "labs/gpu_info.hpp"
#include "labs/program.hpp"

namespace {

constexpr long long kMaxMib = 1 << 20;  // 1 TiB: more than any GPU holds

// 77, not the lab programs' 4, for no GPU: the grader and scripts/check_skips.py
// read the probe's 77 as "skipped", as ctest does.
constexpr const char* kProbeStatuses =
    "exit status:\n"
    "  0   a GPU: its description printed as JSON\n"
    "  1   the GPU failed the probe\n"
    "  2   bad options\n"
    "  77  no usable GPU (\"cuda-labs: skipped: no CUDA device (why)\" printed)\n";

int probe(int argc, char** argv) {
  const harness::Args args(argc, argv,
                           {{"context", "MIB",
                             "also create a context and allocate and clear MIB MiB (0: the "
                             "context alone)",
                             ""}},
                           kProbeStatuses);
  if (args.has("help")) {
    std::printf("%s", args.usage().c_str());
    return 0;
  }
  const long long mib = args.get_int("context", 0);
  if (mib < 0 || mib > kMaxMib) {
    throw harness::UsageError("--context takes 0 to " + std::to_string(kMaxMib) + " MiB, not " +
                              std::to_string(mib));
  }
  std::string why;
  if (!harness::cuda_device_available(&why)) {
    std::printf("cuda-labs: skipped: no CUDA device (%s)\n", why.c_str());
    return 77;
  }
  try {
    std::printf("%s\n", harness::to_json(harness::query_gpu_info()).c_str());
    if (args.has("context") && mib == 0) LAB_CUDA_CHECK(cudaFree(nullptr));  // the context
    if (mib > 0) {
      harness::DeviceBuffer<unsigned char> buffer(static_cast<std::size_t>(mib) << 20);
      buffer.fill_bytes(0);
      LAB_CUDA_CHECK(cudaDeviceSynchronize());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab_gpu_info: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return harness::run_program("lab_gpu_info", [&] { return probe(argc, argv); });
}
