#include "reference/compare.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "reference/rounding.h"
#include "wgk/error.h"

namespace wgk::reference {

std::string Comparison::summary() const {
  std::ostringstream s;
  s.precision(9);
  s << count << " elements: max abs error " << max_abs_error << ", max rel error " << max_rel_error;
  if (worst_index >= 0) s << ", worst at [" << worst_index << "] actual " << worst_actual << " expected " << worst_expected;
  s << ", " << violations << " outside tolerance";
  if (first_violation >= 0) s << " (first at [" << first_violation << "])";
  s << ", " << nan_mismatches << " NaN mismatches, " << inf_mismatches << " Inf mismatches";
  if (first_nonfinite_mismatch >= 0) s << " (first at [" << first_nonfinite_mismatch << "])";
  return s.str();
}

Comparison compare(std::span<const double> actual, std::span<const double> expected, Tolerance tolerance) {
  if (actual.size() != expected.size())
    throw Error(ErrorKind::kInvalidArgument, "compare: actual has " + std::to_string(actual.size()) + " elements, expected has " +
                                                 std::to_string(expected.size()));
  Comparison c;
  c.count = static_cast<std::int64_t>(actual.size());
  for (std::int64_t i = 0; i < c.count; ++i) {
    const double a = actual[i], e = expected[i];
    if (std::isnan(a) || std::isnan(e)) {
      if (std::isnan(a) != std::isnan(e)) {
        ++c.nan_mismatches;
        if (c.first_nonfinite_mismatch < 0) c.first_nonfinite_mismatch = i;
      }
      continue;
    }
    if (std::isinf(a) || std::isinf(e)) {
      if (a != e) {
        ++c.inf_mismatches;
        if (c.first_nonfinite_mismatch < 0) c.first_nonfinite_mismatch = i;
      }
      continue;
    }
    const double error = std::fabs(a - e);
    if (error > c.max_abs_error || c.worst_index < 0) {
      c.worst_index = i;
      c.max_abs_error = error;
      c.worst_actual = a;
      c.worst_expected = e;
    }
    // Relative error where the absolute bound does not already cover the element: near 0 it says nothing
    // (expected 6e-9, actual 0 is "rel 1" yet within any f32 tolerance).
    if (e != 0.0 && std::fabs(e) > tolerance.abs) c.max_rel_error = std::max(c.max_rel_error, error / std::fabs(e));
    if (error > tolerance.abs + tolerance.rel * std::fabs(e)) {
      ++c.violations;
      if (c.first_violation < 0) c.first_violation = i;
    }
  }
  return c;
}

Comparison compare(const HostTensor& actual, std::span<const double> expected, Tolerance tolerance) {
  const std::vector<double> values = to_doubles(actual);
  return compare(values, expected, tolerance);
}

}  // namespace wgk::reference
