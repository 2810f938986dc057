#include "wgk/tensor.h"

#include <gtest/gtest.h>

#include <cmath>

#include "wgk/error.h"

namespace wgk {
namespace {

// Bit patterns from IEEE 754 binary16: 0x3c00 = 1.0, 0xc000 = -2.0, 0x7bff = 65504 (largest normal),
// 0x0001 = 2^-24 (smallest subnormal), 0x0400 = 2^-14 (smallest normal), 0x3555 = 0.333251953125.
TEST(Half, DecodesKnownBitPatterns) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_to_float(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::isinf(half_to_float(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
}

TEST(Half, EncodesWithRoundToNearestEven) {
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // halfway to 2^16 rounds to even: Inf
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
  // 1 + 2^-11 is exactly halfway between 0x3c00 and 0x3c01: ties to even gives 0x3c00.
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3*2^-11 is halfway between 0x3c01 and 0x3c02: ties to even gives 0x3c02.
  EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(1.0f, -26)), 0x0000);  // below half the smallest subnormal
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(NAN) & 0x7c00, 0x7c00);
}

TEST(Shape, NumelRejectsNegativeAndOverflow) {
  EXPECT_EQ(numel({}), 1);
  EXPECT_EQ(numel({2, 0, 3}), 0);
  EXPECT_THROW(numel({2, -1}), Error);
  EXPECT_THROW(numel({1 << 30, 1 << 30, 1 << 30}), Error);
}

}  // namespace
}  // namespace wgk
