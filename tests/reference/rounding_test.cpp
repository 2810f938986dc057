// Rounding the reference's doubles to float32/float16 tensors: values from IEEE 754 binary16/binary32 by hand.
#include "reference/rounding.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "wgk/error.h"

namespace wgk::reference {
namespace {

TEST(Rounding, DoubleToHalfHandValues) {
  EXPECT_EQ(double_to_half(1.0), 0x3c00);
  EXPECT_EQ(double_to_half(-2.0), 0xc000);
  EXPECT_EQ(double_to_half(65504.0), 0x7bff);        // largest finite half
  EXPECT_EQ(double_to_half(65519.99), 0x7bff);       // below the 65504/65536 midpoint
  EXPECT_EQ(double_to_half(65520.0), 0x7c00);        // the midpoint ties to even: the Inf pattern
  EXPECT_EQ(double_to_half(-1e300), 0xfc00);
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -25)), 0x0000);  // half of it: tie to even (zero)
  EXPECT_EQ(double_to_half(std::ldexp(1.0, -25) * 1.001), 0x0001);
  EXPECT_EQ(double_to_half(std::numeric_limits<double>::quiet_NaN()) & 0x7e00, 0x7e00);
  EXPECT_EQ(double_to_half(-0.0), 0x8000);
}

TEST(Rounding, DoubleToHalfRoundsOnceNotThroughFloat32) {
  // v = 1 + 2^-11 + 2^-40 lies just above the midpoint of halves 1 (0x3c00) and 1 + 2^-10 (0x3c01), so the
  // nearest half is 0x3c01. Through float32, v first becomes 1 + 2^-11 (2^-40 is below float's ulp 2^-23),
  // an exact tie that rounds to even 0x3c00: the double rounding this function must avoid.
  const double v = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(float_to_half(static_cast<float>(v)), 0x3c00);
  EXPECT_EQ(double_to_half(v), 0x3c01);
}

TEST(Rounding, RoundToTensorFloat32AndFloat16) {
  const std::vector<double> values = {1.0 / 3.0, -0.1};
  const HostTensor f = round_to_tensor(values, DType::kFloat32, {2});
  std::uint32_t bits[2];
  std::memcpy(bits, f.data.data(), 8);
  EXPECT_EQ(bits[0], 0x3eaaaaabu);  // 1/3 in binary32: 0x3eaaaaab (rounded up)
  EXPECT_EQ(bits[1], 0xbdcccccdu);  // -0.1 in binary32
  const HostTensor h = round_to_tensor(values, DType::kFloat16, {1, 2});
  EXPECT_EQ(h.shape, (Shape{1, 2}));
  std::uint16_t halves[2];
  std::memcpy(halves, h.data.data(), 4);
  EXPECT_EQ(halves[0], 0x3555);  // 1/3 in binary16: 0x3555
  EXPECT_EQ(halves[1], 0xae66);  // -0.1 in binary16: 0xae66
}

TEST(Rounding, RoundToTensorRejectsBadArguments) {
  const std::vector<double> values = {1, 2, 3};
  EXPECT_THROW(round_to_tensor(values, DType::kFloat32, {2, 2}), Error);
  EXPECT_THROW(round_to_tensor(values, DType::kInt64, {3}), Error);
}

}  // namespace
}  // namespace wgk::reference
