// compare(): error statistics and NaN/Inf placement on hand-made vectors.
#include "reference/compare.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "wgk/error.h"

namespace wgk::reference {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(Compare, RelativeErrorOnlyWhereTheAbsoluteBoundDoesNotCover) {
  // Issue 15: a correct f32 Gelu(-6) = -5.9e-9 computed as 0 showed "max rel 1". Under abs 2e-6 that element
  // is covered by the absolute bound; the relative error is taken over |expected| > 2e-6 only:
  // |1.0000001 - 1| / 1 = 1e-7 (to double rounding).
  const std::vector<double> actual = {0, 1.0000001}, expected = {-5.9e-9, 1};
  const Comparison c = compare(actual, expected, {2e-6, 0});
  EXPECT_TRUE(c.ok());
  EXPECT_NEAR(c.max_rel_error, 1e-7, 1e-15);
  EXPECT_DOUBLE_EQ(compare(actual, expected, {0, 0}).max_rel_error, 1.0);  // exact bound: every nonzero counts
}

TEST(Compare, ReportsTheWorstElement) {
  // |2.5 - 2| = 0.5 at index 1 is the worst; relative 0.5 / 2 = 0.25; |3.1 - 3| = 0.1 is the second.
  const std::vector<double> actual = {1, 2.5, 3.1}, expected = {1, 2, 3};
  const Comparison c = compare(actual, expected, {0.2, 0});
  EXPECT_EQ(c.count, 3);
  EXPECT_DOUBLE_EQ(c.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(c.max_rel_error, 0.25);
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_EQ(c.worst_actual, 2.5);
  EXPECT_EQ(c.violations, 1);
  EXPECT_EQ(c.first_violation, 1);
  EXPECT_FALSE(c.ok());
  EXPECT_TRUE(compare(actual, expected, {0.5, 0}).ok());
}

TEST(Compare, RelativeTolerance) {
  // 0.5 off 1000 passes rel 1e-3 (bound 1.0); 0.5 off 1 does not (bound 0.001).
  EXPECT_TRUE(compare(std::vector<double>{1000.5}, std::vector<double>{1000}, {0, 1e-3}).ok());
  EXPECT_FALSE(compare(std::vector<double>{1.5}, std::vector<double>{1}, {0, 1e-3}).ok());
}

TEST(Compare, NanAndInfPlacement) {
  EXPECT_TRUE(compare(std::vector<double>{kNan, kInf, -kInf}, std::vector<double>{kNan, kInf, -kInf}, {}).ok());
  const Comparison nan = compare(std::vector<double>{1, kNan}, std::vector<double>{1, 2}, {1e9, 0});
  EXPECT_EQ(nan.nan_mismatches, 1);
  EXPECT_EQ(nan.first_nonfinite_mismatch, 1);
  EXPECT_FALSE(nan.ok());
  const Comparison inf = compare(std::vector<double>{kInf, 1e308, kNan}, std::vector<double>{-kInf, kInf, 0}, {1e9, 0});
  EXPECT_EQ(inf.inf_mismatches, 2);
  EXPECT_EQ(inf.nan_mismatches, 1);
  EXPECT_EQ(inf.first_nonfinite_mismatch, 0);
}

TEST(Compare, TensorOverloadAndSizeMismatch) {
  const HostTensor t = HostTensor::from<float>(DType::kFloat32, {2}, {0.5f, 1.f});
  EXPECT_TRUE(compare(t, std::vector<double>{0.5, 1.0}, {}).ok());
  EXPECT_THROW(compare(t, std::vector<double>{0.5}, {}), Error);
}

}  // namespace
}  // namespace wgk::reference
