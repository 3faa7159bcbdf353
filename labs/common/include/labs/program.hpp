// How every lab program starts and ends: its options read before any CUDA call,
// --help, and one exit status per outcome, each with one line on stderr naming the
// program. The exit statuses are listed once, in kExitStatuses below, which --help
// prints.
#pragma once
#include <functional>
#include <stdexcept>
#include <vector>

#include "labs/cli.hpp"
#include "labs/result_writer.hpp"

namespace harness {

enum ExitStatus : int {
  kExitOk = 0,
  kExitWrong = 1,  // a result was wrong, or a time cannot be trusted
  kExitUsage = 2,  // bad options, an unusable dataset or launch configuration
  kExitCuda = 3,   // a CUDA call failed
  kExitNoGpu = 4,  // no NVIDIA driver or GPU (not 77: that is ctest's "skipped")
  kExitHung = 124  // a kernel ran past LAB_KERNEL_TIMEOUT_S (sync.hpp's watchdog)
};

// The help's account of the statuses above.
extern const char* const kExitStatuses;

// Thrown by require_gpu; run_program turns it into kExitNoGpu.
class NoGpu : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Call once the options and the input have been checked, before the first CUDA call;
// prints the `device: ...` line every program's output starts with (through `out`,
// for a program that prints result rows).
void require_gpu();
void require_gpu(ResultWriter& out);

// Runs `body` (the program's main) and turns the harness's exceptions into
// "<name>: <reason>" and the exit statuses above.
int run_program(const char* name, const std::function<int()>& body);

// Reads `options` (usage errors exit kExitUsage), prints the help and the exit
// statuses for --help, else runs `body` with the options as run_program does.
int run_program(const char* name, int argc, char** argv, std::vector<Option> options,
                const std::function<int(const Args&)>& body);

// The same for a program that prints result rows: adds --format (table, csv or json;
// `--help --format json` prints the options as JSON) and hands `body` the writer that
// prints every line of its output. A run that throws still ends its JSON document,
// with the reason as its "error".
int run_program(const char* name, int argc, char** argv, std::vector<Option> options,
                const std::function<int(const Args&, ResultWriter&)>& body);

}  // namespace harness
