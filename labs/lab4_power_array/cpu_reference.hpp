// The CPU references for lab4 (float64), the tolerances the checks use, and the
// checks themselves.
#pragma once
#include <string>
#include <vector>

namespace lab4 {

// x^k for every x, in double precision (exact up to double rounding).
std::vector<double> power_cpu(const std::vector<float>& x, int k);

// Part 1 tolerance, per element, relative: |got - ref| <= power_tolerance(k) * |ref|.
// k multiplications in float round k - 1 times (relative error <= (k - 1) * 2^-24);
// (k + 2) * 2^-23 leaves twice that plus room for powf or repeated squaring.
// The datasets keep 0.5 <= |x| < 1.5, so ref is never 0, denormal or inf.
double power_tolerance(int k);

// Empty when every element is within tolerance (NaN and inf never are); otherwise
// how many are not and the first ones (index, input, expected, got).
std::string describe_power_mismatches(const std::vector<float>& x, const std::vector<double>& ref,
                                      const std::vector<float>& got, int k);

// Part 2: the mean of the 2r+1 neighbours (0 outside [0, n)), and for each element
// the mean of their absolute values, which bounds the rounding error of any
// summation order: |got - ref| <= window_tolerance(r) * scale[i].
struct WindowReference {
  std::vector<double> mean;
  std::vector<double> scale;
};
WindowReference window_cpu(const std::vector<float>& x, int radius);
// A float sum of m = 2r+1 terms is off by at most (m - 1) * 2^-24 * sum|x|; the
// division adds 2^-24 relative. (2r + 3) * 2^-23 is twice that.
double window_tolerance(int radius);
std::string describe_window_mismatches(const WindowReference& ref, const std::vector<float>& got,
                                       int radius);

// Reads a lab4 dataset (raw float32); expected_count < 0 accepts any size. Throws
// harness::DatasetError naming the file and the first value that is not finite.
std::vector<float> load_values(const std::string& path, long long expected_count = -1);

}  // namespace lab4
