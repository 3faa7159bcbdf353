// The judgement of student code's CUDA calls (labs/student_calls.hpp); CUPTI's
// side is cupti_trace.cpp.
#include "labs/student_calls.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "student_calls_state.hpp"

namespace harness {
namespace detail {
namespace {

// API calls in progress on this thread: a call made inside another is the runtime's
// (or the driver's) own, judged with the call it serves.
thread_local int api_depth = 0;

bool ends_with(const std::string& s, const char* tail) {
  const std::size_t n = std::strlen(tail);
  return s.size() > n && s.compare(s.size() - n, n, tail) == 0;
}

std::vector<bool> allowed_ids(const std::vector<std::string>& names,
                              const std::vector<std::string>& allowed) {
  std::vector<bool> ids(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    ids[i] = std::find(allowed.begin(), allowed.end(), names[i]) != allowed.end();
  }
  return ids;
}

constexpr std::uint64_t kDriverBit = 1ull << 32;

}  // namespace

std::string api_name(const char* name) {
  std::string s = name ? name : "";
  const std::size_t v = s.rfind("_v");
  if (v != std::string::npos && v + 2 < s.size() &&
      std::all_of(s.begin() + v + 2, s.end(), [](unsigned char c) { return std::isdigit(c); })) {
    s.erase(v);
  }
  for (const char* tail : {"_ptsz", "_ptds"}) {
    if (ends_with(s, tail)) s.erase(s.size() - std::strlen(tail));
  }
  return s;
}

CallJudge::CallJudge(const CallPolicy& policy, const std::vector<std::string>& runtime_names,
                     const std::vector<std::string>& driver_names)
    : lab_(policy.lab),
      runtime_names_(runtime_names),
      driver_names_(driver_names),
      runtime_allowed_(allowed_ids(runtime_names, policy.runtime)),
      driver_allowed_(allowed_ids(driver_names, policy.driver)) {}

void CallJudge::on_call(Api api, bool enter, std::uint32_t cbid, bool student) {
  if (!enter) {
    if (api_depth > 0) --api_depth;  // a call that entered before the watching began
    return;
  }
  if (api_depth++ > 0 || !student) return;
  const std::vector<bool>& allowed = api == Api::Runtime ? runtime_allowed_ : driver_allowed_;
  if (cbid < allowed.size() && allowed[cbid]) return;
  // The first refusal is the one reported; +1 keeps id 0 apart from "none".
  std::uint64_t none = 0;
  refused_.compare_exchange_strong(none, (api == Api::Driver ? kDriverBit : 0) | (cbid + 1ull));
}

std::string CallJudge::refusal() const {
  const std::uint64_t refused = refused_.load();
  if (refused == 0) return "";
  const bool driver = refused & kDriverBit;
  const std::uint32_t cbid = static_cast<std::uint32_t>(refused & 0xffffffffu) - 1;
  const std::vector<std::string>& names = driver ? driver_names_ : runtime_names_;
  const std::string name =
      cbid < names.size() && !names[cbid].empty()
          ? names[cbid]
          : std::string(driver ? "driver" : "runtime") + " function number " + std::to_string(cbid);
  return "student code called " + name + (driver ? " directly (not inside a runtime call)" : "") +
         ", which " + lab_ + " does not allow (" + lab_ +
         "'s lab.json \"runtime_calls\" and labs/common/calls.json list what it may call)";
}

}  // namespace detail

std::atomic<int> student_depth{0};
std::atomic<bool> calls_watched{false};

namespace {
std::atomic<bool> student_ran{true};
}  // namespace

StudentCall::StudentCall() {
  student_ran.store(true);
  student_depth.fetch_add(1, std::memory_order_relaxed);
}

bool student_code_ran_since_asked() { return !calls_watched.load() || student_ran.exchange(false); }

StudentCall::~StudentCall() noexcept(false) {
  if (student_depth.fetch_sub(1, std::memory_order_relaxed) != 1) return;
  const std::string why = student_call_refusal();
  if (!why.empty() && std::uncaught_exceptions() == 0) throw RefusedCall(why);
}

}  // namespace harness
