// The data-level half of the boundary (src/plan/boundary.h) without a device: value ranges of host data
// and the device-resident check, whose read-back is a callback here. The signature-level half is tested
// through the Planner (plan_test.cpp) and the runtime (tests/runtime/bad_input_test.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "plan/boundary.h"
#include "wgk/error.h"

namespace wgk::plan {
namespace {

using ::testing::HasSubstr;

HostTensor int64s(Shape shape, std::vector<std::int64_t> values) {
  HostTensor t{DType::kInt64, std::move(shape), std::vector<std::byte>(values.size() * 8)};
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

ValueRange rows(std::int64_t max) {  // valueRange [0, dim(cos, 0) - 1] of a cache of max + 1 rows
  ValueRange r;
  r.input = "positionIds";
  r.min = 0;
  r.max = max;
  r.min_text = "0";
  r.max_text = "dim(shapes.cos, 0) - 1";
  return r;
}

ValueRange extent(std::int64_t min, std::int64_t max) {
  ValueRange e;
  e.min = min;
  e.max = max;
  return e;
}

TEST(ValueRangeType, ContainsAnExtentWithinItsBounds) {
  EXPECT_TRUE(rows(7).contains(extent(0, 7)));
  EXPECT_TRUE(rows(7).contains(extent(3, 3)));
  EXPECT_FALSE(rows(7).contains(extent(0, 8)));
  EXPECT_FALSE(rows(7).contains(extent(-1, 2)));
  EXPECT_TRUE(ValueRange{}.contains(extent(std::numeric_limits<std::int64_t>::min(), 0)));  // no bounds given
}

TEST(IntRange, TheExtentOfIntegerElements) {
  const auto e = int_range(int64s({2, 3}, {4, -1, 9, 0, 2, 3}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->min, -1);
  EXPECT_EQ(e->max, 9);
  EXPECT_TRUE(e->input.empty());
  EXPECT_FALSE(int_range(int64s({0}, {})));                            // no elements
  EXPECT_FALSE(int_range(HostTensor{DType::kFloat32, {1}, std::vector<std::byte>(4)}));  // not integers
}

TEST(HostValueRange, NamesTheFirstElementOutOfRange) {
  try {
    check_value_range("positionIds", int64s({2, 3}, {0, 1, 2, 3, 8, 9}), rows(7));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    // Flat index 4 of shape [2, 3] is element [1, 1].
    EXPECT_THAT(e.what(), HasSubstr("input positionIds[4] = 8 (element [1, 1] of shape [2, 3]) is out of range: above 7"));
    EXPECT_THAT(e.what(), HasSubstr("(valueRange: min 0 = 0, max dim(shapes.cos, 0) - 1 = 7)"));
  }
}

TEST(HostValueRange, AnEmptyRangeIsSaidToBeEmpty) {
  // A cache of 0 rows gives valueRange [0, -1]: no position is allowed, and the message says so rather than
  // "above -1; it must lie in [0, -1]" (a breaker's finding).
  try {
    check_value_range("positionIds", int64s({1}, {0}), rows(-1));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("input positionIds[0] = 0 is out of range: no value is allowed, the range [0, -1] is empty"));
    EXPECT_THAT(e.what(), HasSubstr("max dim(shapes.cos, 0) - 1 = -1)"));
  }
}

TEST(DeviceValueRange, AKnownExtentInsideNeedsNoReadBack) {
  int reads = 0, remembered = 0;
  check_device_value_range("positionIds", rows(7), extent(0, 7), true, [&] { ++reads; return HostTensor{}; },
                           [&](const std::optional<ValueRange>&) { ++remembered; });
  EXPECT_EQ(reads, 0);
  EXPECT_EQ(remembered, 0);
}

TEST(DeviceValueRange, AKnownExtentOutsideReadsToNameTheElement) {
  int reads = 0;
  try {
    check_device_value_range("positionIds", rows(7), extent(0, 8), true,
                             [&] { ++reads; return int64s({3}, {1, 8, 2}); },
                             [&](const std::optional<ValueRange>&) { ADD_FAILURE() << "an extent was known"; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("input positionIds[1] = 8 is out of range: above 7"));
  }
  EXPECT_EQ(reads, 1);
}

TEST(DeviceValueRange, AnUnknownExtentIsReadOnceAndRemembered) {
  int reads = 0;
  std::optional<ValueRange> kept;
  check_device_value_range("positionIds", rows(7), std::nullopt, true,
                           [&] { ++reads; return int64s({4}, {5, 0, 7, 2}); },
                           [&](const std::optional<ValueRange>& e) { kept = e; });
  EXPECT_EQ(reads, 1);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->min, 0);
  EXPECT_EQ(kept->max, 7);
}

TEST(DeviceValueRange, AnUnwrittenTensorIsNotRead) {
  try {
    check_device_value_range("positionIds", rows(7), std::nullopt, false,
                             [&] { ADD_FAILURE() << "read"; return HostTensor{}; },
                             [&](const std::optional<ValueRange>&) { ADD_FAILURE() << "remembered"; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("input positionIds: an output of an earlier call of this Batch, not yet flushed, "
                                    "cannot be checked against its value range [0, 7] before it is computed; flush() first"));
  }
}

}  // namespace
}  // namespace wgk::plan
