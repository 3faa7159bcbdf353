#include "labs/program.hpp"

#include <cstdio>
#include <stdexcept>

#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/dataset.hpp"
#include "labs/timing.hpp"

namespace harness {

int run_program(const char* name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const CudaError& e) {
    std::fprintf(stderr, "%s: CUDA error: %s\n", name, e.what());
    return 3;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  } catch (const DatasetError& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  } catch (const UntrustedTiming& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace harness
