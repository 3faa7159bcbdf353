// lab6_image_pipeline --first-call (first_call.cpp): the report's section 4.
#pragma once
#include <string>

#include "labs/result_writer.hpp"

namespace lab6 {

// Times `call` (malloc: none; set_device: cudaSetDevice(0); free0: cudaFree(0)) as
// the process's first CUDA call, then two cudaMalloc; one row. Returns the status.
int first_call_table(const std::string& call, harness::ResultWriter& out);

}  // namespace lab6
