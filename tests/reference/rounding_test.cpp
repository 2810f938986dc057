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

TEST(Rounding, RoundToOnnxTypeHandValues) {
  // float16 (10): 1/3 -> 1365 * 2^-12 (0x3555); 65520 ties to Inf. bfloat16 (16), 8 significant bits:
  // 1/3 = 1.0101010...b * 2^-2 -> 1.0101011b * 2^-2 = 171 * 2^-9 (the bits past the 8th, 0101..., > half);
  // 3.5355339 -> 226 * 2^-6 = 3.53125; 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even, 1;
  // (2 - 2^-8) * 2^127 ties up to 2^128: Inf. float32 (1): 1/3 as float. double (11): unchanged.
  EXPECT_EQ(round_to_onnx_type(1.0 / 3.0, 10), 1365 * std::ldexp(1.0, -12));
  EXPECT_EQ(round_to_onnx_type(65520.0, 10), INFINITY);
  EXPECT_EQ(round_to_onnx_type(1.0 / 3.0, 16), 171 * std::ldexp(1.0, -9));
  EXPECT_EQ(round_to_onnx_type(3.5355339, 16), 3.53125);
  EXPECT_EQ(round_to_onnx_type(1.0 + std::ldexp(1.0, -8), 16), 1.0);
  EXPECT_EQ(round_to_onnx_type(-(2 - std::ldexp(1.0, -8)) * std::ldexp(1.0, 127), 16), -INFINITY);
  EXPECT_EQ(round_to_onnx_type(1.0 / 3.0, 1), static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(round_to_onnx_type(1.0 / 3.0, 11), 1.0 / 3.0);
  EXPECT_THROW(round_to_onnx_type(1.0, 2), Error);
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
