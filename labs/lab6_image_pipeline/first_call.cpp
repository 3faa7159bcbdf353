// lab6_image_pipeline --first-call CALL: the report's section 4. The first CUDA call
// of a process creates the device's context (and loads the driver); cudaSetDevice
// or cudaFree(0) made first only moves that cost ahead of the first cudaMalloc. One
// process measures one order, so the table is one row per run (ctest runs each).
#include "first_call.hpp"

#include <chrono>
#include <string>

#include "labs/cli.hpp"
#include "labs/cuda_check.hpp"
#include "labs/program.hpp"

namespace lab6 {

namespace {

constexpr std::size_t kMallocBytes = 1 << 20;

template <class Call>
double ms_of(const Call& call) {
  const auto start = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

int first_call_table(const std::string& call, harness::ResultWriter& out) {
  if (call != "malloc" && call != "set_device" && call != "free0") {
    throw harness::UsageError("--first-call takes malloc, set_device or free0, not '" + call + "'");
  }
  // Before any other CUDA call of this process, the device query included.
  double first_ms = 0;
  if (call == "set_device") first_ms = ms_of([] { LAB_CUDA_CHECK(cudaSetDevice(0)); });
  if (call == "free0") first_ms = ms_of([] { LAB_CUDA_CHECK(cudaFree(nullptr)); });
  void* p = nullptr;
  void* q = nullptr;
  const double malloc_ms = ms_of([&] { LAB_CUDA_CHECK(cudaMalloc(&p, kMallocBytes)); });
  const double again_ms = ms_of([&] { LAB_CUDA_CHECK(cudaMalloc(&q, kMallocBytes)); });
  LAB_CUDA_CHECK(cudaFree(p));
  LAB_CUDA_CHECK(cudaFree(q));
  harness::require_gpu(out);
  out.context("the first CUDA calls of a new process (host clock)", {{"first_call", call}});
  out.table({harness::Column("first", -10), harness::Column("first_ms", 9).fixed(3),
             harness::Column("malloc_ms", 10).fixed(3), harness::Column("again_ms", 9).fixed(3),
             harness::Column("total_ms", 9).fixed(3)});
  out.row({call == "malloc" ? "-" : call, call == "malloc" ? harness::Cell() : first_ms, malloc_ms,
           again_ms, first_ms + malloc_ms});
  out.note(
      "first: the call made before the first cudaMalloc (of 1 MiB); again: a second cudaMalloc; "
      "total: first + malloc, the cost of the process's first allocation");
  return 0;
}

}  // namespace lab6
