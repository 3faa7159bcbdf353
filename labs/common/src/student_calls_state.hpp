// What student_calls.cpp (the guard) and cupti_trace.cpp (the watching) share.
#pragma once
#include <atomic>
#include <string>

namespace harness {

// StudentCalls in progress, on any thread.
extern std::atomic<int> student_depth;

// Set once this process watches its student calls (watch_student_calls succeeded).
extern std::atomic<bool> calls_watched;

// "" while no refused call was made, else the refusal (the CallJudge's).
std::string student_call_refusal();

}  // namespace harness
