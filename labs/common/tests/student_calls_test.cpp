// The judgement of student code's CUDA calls, fed calls as CUPTI reports them,
// without a GPU (label `harness`).
#include "labs/student_calls.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using harness::detail::Api;
using harness::detail::CallJudge;

// Callback ids as CUPTI's tables might number them.
enum : std::uint32_t { kLaunch = 1, kStreamCreate = 2, kUnnamed = 3, kBeyond = 99 };
const std::vector<std::string> kRuntime = {"", "cudaLaunchKernel", "cudaStreamCreateWithFlags", ""};
const std::vector<std::string> kDriver = {"", "cuLaunchKernel", "cuStreamCreate"};

CallJudge lab3_judge() { return CallJudge({"lab3", {"cudaLaunchKernel"}, {}}, kRuntime, kDriver); }

// A call entering and returning, with `inside` made while it is in progress.
void call(CallJudge& judge, Api api, std::uint32_t cbid, bool student,
          const std::vector<std::pair<Api, std::uint32_t>>& inside = {}) {
  judge.on_call(api, true, cbid, student);
  for (const auto& [nested_api, nested] : inside) {
    judge.on_call(nested_api, true, nested, student);
    judge.on_call(nested_api, false, nested, student);
  }
  judge.on_call(api, false, cbid, student);
}

TEST(StudentCalls, NamesLoseCuptisSuffixes) {
  EXPECT_EQ(harness::detail::api_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(harness::detail::api_name("cudaLaunchKernel_ptsz_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(harness::detail::api_name("cudaMemcpy_ptds_v7000"), "cudaMemcpy");
  EXPECT_EQ(harness::detail::api_name("cuMemAlloc_v2"), "cuMemAlloc");
  EXPECT_EQ(harness::detail::api_name("cudaMalloc"), "cudaMalloc");
  EXPECT_EQ(harness::detail::api_name("cudaFunc_vx"), "cudaFunc_vx");
  EXPECT_EQ(harness::detail::api_name(nullptr), "");
}

TEST(StudentCalls, AnAllowedCallAndTheDriverCallsInsideItPass) {
  CallJudge judge = lab3_judge();
  call(judge, Api::Runtime, kLaunch, true, {{Api::Driver, 1}, {Api::Runtime, kStreamCreate}});
  EXPECT_EQ(judge.refusal(), "");
}

TEST(StudentCalls, TheHarnessMayCallAnything) {
  CallJudge judge = lab3_judge();
  call(judge, Api::Runtime, kStreamCreate, false);
  call(judge, Api::Driver, 2, false);
  EXPECT_EQ(judge.refusal(), "");
}

TEST(StudentCalls, ARefusedRuntimeCallIsNamed) {
  CallJudge judge = lab3_judge();
  call(judge, Api::Runtime, kStreamCreate, true);
  EXPECT_EQ(judge.refusal().rfind(
                "student code called cudaStreamCreateWithFlags, which lab3 does not allow", 0),
            0u)
      << judge.refusal();
}

TEST(StudentCalls, ADriverCallMadeDirectlyIsRefused) {
  CallJudge judge = lab3_judge();
  call(judge, Api::Driver, 1, true);  // cuLaunchKernel: allowed only inside cudaLaunchKernel
  EXPECT_EQ(judge.refusal().rfind("student code called cuLaunchKernel directly", 0), 0u)
      << judge.refusal();
}

TEST(StudentCalls, TheFirstRefusalIsTheOneReported) {
  CallJudge judge = lab3_judge();
  call(judge, Api::Runtime, kStreamCreate, true);
  call(judge, Api::Driver, 2, true);
  EXPECT_NE(judge.refusal().find("cudaStreamCreateWithFlags"), std::string::npos);
  EXPECT_EQ(judge.refusal().find("cuStreamCreate "), std::string::npos) << judge.refusal();
}

TEST(StudentCalls, CallsWithoutANameOrPastTheTableAreRefused) {
  CallJudge unnamed = lab3_judge();
  call(unnamed, Api::Runtime, kUnnamed, true);
  EXPECT_NE(unnamed.refusal().find("runtime function number 3"), std::string::npos);
  CallJudge beyond = lab3_judge();
  call(beyond, Api::Runtime, kBeyond, true);
  EXPECT_NE(beyond.refusal().find("runtime function number 99"), std::string::npos);
}

TEST(StudentCalls, ALabsOwnCallsAreAllowed) {
  CallJudge judge({"lab6", {"cudaLaunchKernel", "cudaStreamCreateWithFlags"}, {"cuStreamCreate"}},
                  kRuntime, kDriver);
  call(judge, Api::Runtime, kStreamCreate, true);
  call(judge, Api::Driver, 2, true);
  EXPECT_EQ(judge.refusal(), "");
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
