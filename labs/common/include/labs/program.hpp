// The exit codes every lab program shares, in one place: 2 for bad input (a usage
// error, a dataset that cannot be used, a launch configuration that cannot work),
// 3 for a CUDA error, 1 for a time that cannot be trusted (as for a wrong result),
// each with one line on stderr naming the program.
#pragma once
#include <functional>

namespace harness {

// Runs `body` (the program's main) and turns the harness's exceptions into
// "<name>: <reason>" and the exit codes above.
int run_program(const char* name, const std::function<int()>& body);

}  // namespace harness
