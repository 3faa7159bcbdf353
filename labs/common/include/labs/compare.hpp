// Failure messages that name the first mismatches (index, expected, got).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "labs/device_buffer.hpp"
#include "labs/parallel.hpp"

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
  if (!any_index(expected.size(), [&](std::size_t i) { return !(expected[i] == got[i]); })) {
    return "";
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

namespace harness {

// ||got - ref|| / ||ref|| in double precision (the grading model's float check).
// NaN or infinity anywhere in `got` gives +infinity: NaN never passes.
template <class T>
double relative_error(const std::vector<double>& ref, const std::vector<T>& got) {
  if (ref.size() != got.size()) return INFINITY;
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    if (!std::isfinite(g)) return INFINITY;
    diff += (g - ref[i]) * (g - ref[i]);
    norm += ref[i] * ref[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// The first `shown` elements whose relative error exceeds `tolerance`
// (|got - ref| > tolerance * max(|ref|, 1)), for failure messages.
template <class T>
std::string describe_float_mismatches(const std::vector<double>& ref, const std::vector<T>& got,
                                      double tolerance, const char* what = "element",
                                      int shown = 5) {
  const auto bad_at = [&](std::size_t i) {
    const double g = static_cast<double>(got[i]);
    return !std::isfinite(g) ||
           std::fabs(g - ref[i]) > tolerance * std::fmax(std::fabs(ref[i]), 1.0);
  };
  if (!any_index(std::min(ref.size(), got.size()), bad_at)) return "";
  std::ostringstream o;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < ref.size() && i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    if (bad_at(i) && wrong++ < static_cast<std::size_t>(shown)) {
      o << "\n  " << what << " " << i << ": expected " << ref[i] << ", got " << g
        << (std::isnan(g) ? " (NaN: never written?)" : "");
    }
  }
  if (wrong == 0) return "";
  return std::to_string(wrong) + " of " + std::to_string(ref.size()) + " " + what +
         "s off by more than " + std::to_string(tolerance) + " (relative); first:" + o.str();
}

}  // namespace harness
