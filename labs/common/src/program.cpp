#include "labs/program.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/gpu_info.hpp"
#include "labs/timing.hpp"

namespace harness {

const char* const kExitStatuses =
    "exit status:\n"
    "  0    every result right\n"
    "  1    a result wrong, or a time that cannot be trusted\n"
    "  2    bad options, or input (a dataset, a launch configuration) that cannot be used\n"
    "  3    a CUDA error\n"
    "  4    no usable GPU: no NVIDIA driver or GPU found, or a driver too old\n"
    "  124  a kernel still running after LAB_KERNEL_TIMEOUT_S seconds (default 10)\n";

void require_gpu() {
  std::string why;
  if (!cuda_device_available(&why)) throw NoGpu(why);
  std::printf("device: %s\n", one_line(query_gpu_info()).c_str());
}

int run_program(const char* name, const std::function<int()>& body) {
  auto fail = [name](const std::exception& e, int status) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return status;
  };
  try {
    return body();
  } catch (const NoGpu& e) {
    std::fprintf(stderr, "%s: needs an NVIDIA GPU: %s\n", name, e.what());
    return kExitNoGpu;
  } catch (const CudaError& e) {
    // A CUDA call that fails because there is no GPU says so, as require_gpu would.
    std::string why;
    if (!cuda_device_available(&why)) return fail(NoGpu("needs an NVIDIA GPU: " + why), kExitNoGpu);
    std::fprintf(stderr, "%s: CUDA error: %s\n", name, e.what());
    return kExitCuda;
  } catch (const UsageError& e) {
    return fail(e, kExitUsage);
  } catch (const DatasetError& e) {
    return fail(e, kExitUsage);
  } catch (const std::invalid_argument& e) {
    return fail(e, kExitUsage);
  } catch (const UntrustedTiming& e) {
    return fail(e, kExitWrong);
  }
}

int run_program(const char* name, int argc, char** argv, std::vector<Option> options,
                const std::function<int(const Args&)>& body) {
  return run_program(name, [&] {
    const Args args(argc, argv, std::move(options), kExitStatuses);
    if (args.has("help")) {
      std::printf("%s", args.usage().c_str());
      return static_cast<int>(kExitOk);
    }
    return body(args);
  });
}

}  // namespace harness
