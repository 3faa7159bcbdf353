#include "cpu_reference.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "labs/dataset.hpp"
#include "labs/parallel.hpp"

namespace lab4 {
namespace {

template <class Bad>
std::string describe(std::size_t size, const char* tolerance_text, Bad bad, int shown = 5) {
  if (!harness::any_index(size, [&](std::size_t i) { return bad(i, nullptr); })) return "";
  std::size_t wrong = 0;
  std::ostringstream first;
  first.precision(9);
  for (std::size_t i = 0; i < size; ++i) {
    if (bad(i, wrong < static_cast<std::size_t>(shown) ? &first : nullptr)) ++wrong;
  }
  if (wrong == 0) return "";
  std::ostringstream o;
  o << wrong << " of " << size << " elements off by more than " << tolerance_text
    << "; first:" << first.str();
  return o.str();
}

const char* never_written(double g) { return std::isnan(g) ? " (NaN: never written?)" : ""; }

}  // namespace

std::vector<double> power_cpu(const std::vector<float>& x, int k) {
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double c = 1.0;
    for (int j = 0; j < k; ++j) c *= x[i];
    out[i] = c;
  }
  return out;
}

double power_tolerance(int k) { return (k + 2) * std::ldexp(1.0, -23); }

std::string describe_power_mismatches(const std::vector<float>& x, const std::vector<double>& ref,
                                      const std::vector<float>& got, int k) {
  if (got.size() != ref.size()) {
    return "size differs: expected " + std::to_string(ref.size()) + ", got " +
           std::to_string(got.size());
  }
  const double tol = power_tolerance(k);
  char text[96];
  std::snprintf(text, sizeof text, "%.3g relative (k = %d)", tol, k);
  return describe(ref.size(), text, [&](std::size_t i, std::ostringstream* o) {
    const double g = got[i];
    const bool bad = !std::isfinite(g) || std::fabs(g - ref[i]) > tol * std::fabs(ref[i]);
    if (bad && o) {
      *o << "\n  element " << i << ": " << x[i] << "^" << k << " expected " << ref[i] << ", got "
         << g << never_written(g);
    }
    return bad;
  });
}

WindowReference window_cpu(const std::vector<float>& x, int radius) {
  const long long n = static_cast<long long>(x.size());
  WindowReference r{std::vector<double>(x.size()), std::vector<double>(x.size())};
  const double m = 2.0 * radius + 1;
  // Running sums in double, summed afresh every 256 elements so that rounding drift
  // stays far below the float tolerance.
  double sum = 0, abs_sum = 0;
  for (long long i = 0; i < n; ++i) {
    if (i % 256 == 0) {
      sum = abs_sum = 0;
      for (long long j = i - radius; j <= i + radius; ++j) {
        if (j >= 0 && j < n) sum += x[j], abs_sum += std::fabs(x[j]);
      }
    }
    r.mean[i] = sum / m;
    r.scale[i] = abs_sum / m;
    const long long in = i + radius + 1, out = i - radius;
    if (in < n) sum += x[in], abs_sum += std::fabs(x[in]);
    if (out >= 0) sum -= x[out], abs_sum -= std::fabs(x[out]);
  }
  return r;
}

double window_tolerance(int radius) { return (2 * radius + 3) * std::ldexp(1.0, -23); }

std::string describe_window_mismatches(const WindowReference& ref, const std::vector<float>& got,
                                       int radius) {
  if (got.size() != ref.mean.size()) {
    return "size differs: expected " + std::to_string(ref.mean.size()) + ", got " +
           std::to_string(got.size());
  }
  const double tol = window_tolerance(radius);
  char text[128];
  std::snprintf(text, sizeof text, "%.3g x the mean |neighbour| (radius %d)", tol, radius);
  return describe(got.size(), text, [&](std::size_t i, std::ostringstream* o) {
    const double g = got[i];
    const double allowed = tol * ref.scale[i] + 1e-12;  // + the reference's own drift
    const bool bad = !std::isfinite(g) || std::fabs(g - ref.mean[i]) > allowed;
    if (bad && o) {
      *o << "\n  element " << i << ": expected " << ref.mean[i] << ", got " << g
         << never_written(g);
    }
    return bad;
  });
}

std::vector<float> load_values(const std::string& path, long long expected_count) {
  std::vector<float> x = harness::read_binary_file<float>(path, expected_count);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw harness::DatasetError(path + ": value " + std::to_string(i) +
                                  " is not a finite number: not a lab4 dataset");
    }
  }
  return x;
}

}  // namespace lab4
