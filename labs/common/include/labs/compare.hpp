// Failure messages that name the first mismatches (index, expected, got).
#pragma once
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "labs/device_buffer.hpp"

namespace harness {

// Empty when equal; otherwise how many differ and the first `shown` of them.
// `what` names an index ("bin", "element"). Poisoned values are called out: they
// mean the student's code never wrote that element.
template <class T>
std::string describe_mismatches(const std::vector<T>& expected, const std::vector<T>& got,
                                const char* what = "element", int shown = 5) {
  std::ostringstream o;
  if (expected.size() != got.size()) {
    o << "size differs: expected " << expected.size() << ", got " << got.size();
    return o.str();
  }
  std::size_t wrong = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] == got[i]) continue;
    if (wrong++ < static_cast<std::size_t>(shown)) {
      first << "\n  " << what << " " << i << ": expected " << expected[i] << ", got " << got[i];
      if constexpr (std::is_integral<T>::value) {
        if (got[i] == static_cast<T>(kPoisonInt)) first << " (never written)";
      }
    }
  }
  if (wrong == 0) return "";
  o << wrong << " of " << expected.size() << " " << what << "s differ; first:" << first.str();
  return o.str();
}

}  // namespace harness
