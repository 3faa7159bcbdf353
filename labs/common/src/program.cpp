#include "labs/program.hpp"

#include <cstdio>
#include <exception>
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

namespace {

std::string usable_gpu() {
  std::string why;
  if (!cuda_device_available(&why)) throw NoGpu(why);
  return one_line(query_gpu_info());
}

}  // namespace

void require_gpu() { std::printf("device: %s\n", usable_gpu().c_str()); }

void require_gpu(ResultWriter& out) { out.device(usable_gpu()); }

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

int run_program(const char* name, int argc, char** argv, std::vector<Option> options,
                const std::function<int(const Args&, ResultWriter&)>& body) {
  options.push_back(format_option());
  return run_program(name, [&] {
    const Args args(argc, argv, std::move(options), kExitStatuses);
    const Format format = parse_format(args.get_choice("format", "table"));
    if (args.has("help")) {
      const std::string help = format == Format::Json ? args.usage_json(name) : args.usage();
      std::printf("%s", help.c_str());
      return static_cast<int>(kExitOk);
    }
    ResultWriter out(name, format);
    try {
      const int status = body(args, out);
      out.finish();
      return status;
    } catch (const std::exception& e) {
      out.fail(e.what());
      throw;
    }
  });
}

}  // namespace harness
