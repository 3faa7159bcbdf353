// Watching every CUDA runtime and driver API call through CUPTI's callback API
// (labs/student_calls.hpp). Only the two API domains, no activity tracing: a
// callback per call's entry and exit, each a few loads and a compare.
#include <cupti.h>

#include <thread>

#include "labs/student_calls.hpp"
#include "student_calls_state.hpp"

namespace harness {
namespace {

constexpr const char* kHeld = "another tool holds CUPTI: ";

struct Watch {
  detail::CallJudge judge;
  std::thread::id harness_thread;
};
// Made once and never freed: callbacks may come until the process ends.
Watch* watch = nullptr;

std::vector<std::string> names_of(CUpti_CallbackDomain domain, std::uint32_t count) {
  std::vector<std::string> names(count);
  for (std::uint32_t id = 0; id < count; ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, id, &name) == CUPTI_SUCCESS)
      names[id] = detail::api_name(name);
  }
  return names;
}

void CUPTIAPI on_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  const bool student = student_depth.load(std::memory_order_relaxed) > 0 ||
                       std::this_thread::get_id() != watch->harness_thread;
  watch->judge.on_call(
      domain == CUPTI_CB_DOMAIN_RUNTIME_API ? detail::Api::Runtime : detail::Api::Driver,
      call->callbackSite == CUPTI_API_ENTER, cbid, student);
}

std::string failed(const char* what, CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return std::string("CUPTI's ") + what + " failed: " + (text ? text : "unknown error");
}

}  // namespace

std::string student_call_refusal() { return watch ? watch->judge.refusal() : ""; }

bool held_by_another_tool(const std::string& why) { return why.rfind(kHeld, 0) == 0; }

std::string watch_student_calls(const CallPolicy& policy) {
  if (watch) return "";
  watch =
      new Watch{detail::CallJudge(
                    policy, names_of(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE),
                    names_of(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE)),
                std::this_thread::get_id()};
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "";
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "cuda-labs";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof holder;
  CUpti_SubscriberHandle subscriber = nullptr;
  const CUptiResult subscribed = cuptiSubscribe_v2(&subscriber, on_api, nullptr, &params);
  if (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    return std::string(kHeld) + (holder[0] ? holder : "compute-sanitizer, Nsight or cuda-gdb");
  }
  if (subscribed != CUPTI_SUCCESS) return failed("cuptiSubscribe", subscribed);
  for (const CUpti_CallbackDomain domain :
       {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
    const CUptiResult enabled = cuptiEnableDomain(1, subscriber, domain);
    if (enabled != CUPTI_SUCCESS) return failed("cuptiEnableDomain", enabled);
  }
  calls_watched.store(true);
  return "";
}

}  // namespace harness
