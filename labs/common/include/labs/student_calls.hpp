// The CUDA calls student code may make, enforced while it runs. The object check
// (grader/trust) sees what a student's objects import; a call through an address
// computed from an allowed import (an offset into the CUDA runtime) it cannot see.
// CUPTI's callback API reports every runtime and driver API call however its
// address was obtained, so each test program watches them (test_main.cpp): a call
// made while student code runs that the lab's policy does not allow fails the test,
// named ("student code called cudaStreamCreateWithFlags, which lab3 does not allow").
//
// Student code runs inside StudentCall: every call from the harness to a function
// the student's objects define goes through a wrapper that holds one
// (cmake/student_wrappers.py writes them; the programs are linked with --wrap).
// Calls from any other thread than the one that started watching are the
// student's too: the harness makes CUDA calls from that thread alone.
//
// What it cannot stop: the call itself (CUPTI reports, it does not refuse: the
// verdict does), and code that rewrites the harness's or CUPTI's memory.
#pragma once
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace harness {

// A lab's policy: the runtime functions its student code may call (every lab's,
// labs/common/calls.json, and its own, lab.json's "runtime_calls"), and the driver
// functions it may call itself. A driver call made inside a runtime call is the
// runtime's, allowed with it. Names without CUPTI's suffixes (cudaLaunchKernel,
// not cudaLaunchKernel_v7000 or cudaLaunchKernel_ptsz).
struct CallPolicy {
  std::string lab;
  std::vector<std::string> runtime;
  std::vector<std::string> driver;
};

// This program's policy: each test program links the one CMake generates from its
// lab's files (cmake/LabCalls.cmake).
const CallPolicy& student_call_policy();

// A call the policy refuses was made while student code ran.
class RefusedCall : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Starts watching every runtime and driver API call of this process under
// `policy`. "" when watching, else why it could not (another CUPTI client, such as
// compute-sanitizer or Nsight, holds CUPTI; or CUPTI failed).
std::string watch_student_calls(const CallPolicy& policy);

// Whether `why` (from watch_student_calls) only says that another tool holds CUPTI.
bool held_by_another_tool(const std::string& why);

// Held while student code runs. The outermost one, ending, throws RefusedCall when
// a refused call was made, in its call or earlier in this process (a refusal stays:
// whatever the call left behind, a stream or a limit, stays too).
class StudentCall {
 public:
  StudentCall();
  StudentCall(const StudentCall&) = delete;
  StudentCall& operator=(const StudentCall&) = delete;
  ~StudentCall() noexcept(false);
};

// Whether student code may have run since the last call of this function: in a
// process that watches its student calls (the test programs), only when a
// StudentCall began since; elsewhere (the lab programs, under another CUPTI tool)
// always, as nothing marks where student code runs there.
bool student_code_ran_since_asked();

namespace detail {

enum class Api { Runtime, Driver };

// `name` without CUPTI's suffixes: "cudaLaunchKernel_ptsz_v7000" -> "cudaLaunchKernel".
std::string api_name(const char* name);

// The judgement, apart from CUPTI (tests feed it calls): which API functions, by
// CUPTI callback id, student code may call, and the first it called that it may not.
class CallJudge {
 public:
  // `runtime_names` and `driver_names`: each domain's API names by callback id.
  CallJudge(const CallPolicy& policy, const std::vector<std::string>& runtime_names,
            const std::vector<std::string>& driver_names);

  // An API call entering (enter) or returning on the calling thread. Judged when it
  // enters with no other API call in progress on this thread and `student` holds.
  void on_call(Api api, bool enter, std::uint32_t cbid, bool student);

  // "" while nothing was refused, else "student code called X, which labN does not allow ...".
  std::string refusal() const;

 private:
  std::string lab_;
  std::vector<std::string> runtime_names_, driver_names_;
  std::vector<bool> runtime_allowed_, driver_allowed_;
  // The first refused call: its domain and id, packed (0: none).
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace detail
}  // namespace harness
