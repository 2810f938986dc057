#pragma once
// Element-wise comparison of an output against reference values, with NaN/Inf placement checks.
#include <cstdint>
#include <span>
#include <string>

#include "wgk/tensor.h"

namespace wgk::reference {

/// An element passes when |actual - expected| <= abs + rel * |expected|.
struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};

/// What compare() found. Errors are over elements finite in both; NaN at the same index in both is equal,
/// and an infinity equal in sign at the same index is equal.
struct Comparison {
  std::int64_t count = 0;            ///< elements compared
  double max_abs_error = 0.0;        ///< max |actual - expected|
  double max_rel_error = 0.0;        ///< max |actual - expected| / |expected| over |expected| > tolerance.abs (and != 0)
  std::int64_t worst_index = -1;     ///< flat index of max_abs_error (-1 when none finite)
  double worst_actual = 0.0, worst_expected = 0.0;
  std::int64_t violations = 0;       ///< finite elements outside the tolerance
  std::int64_t first_violation = -1;
  std::int64_t nan_mismatches = 0;   ///< NaN in exactly one of the two
  std::int64_t inf_mismatches = 0;   ///< an infinity in one and not the same infinity in the other
  std::int64_t first_nonfinite_mismatch = -1;

  /// No violations and no NaN/Inf mismatches.
  bool ok() const { return violations == 0 && nan_mismatches == 0 && inf_mismatches == 0; }
  /// One line for a test failure message: the counts, the worst element and its values.
  std::string summary() const;
};

/// Compares `actual` to `expected` element by element. Throws wgk::Error (kInvalidArgument) when the sizes differ.
Comparison compare(std::span<const double> actual, std::span<const double> expected, Tolerance tolerance);
/// Same, reading `actual` from a float tensor (its numel must equal expected.size()).
Comparison compare(const HostTensor& actual, std::span<const double> expected, Tolerance tolerance);

}  // namespace wgk::reference
