// Edge values that are valid input: zero-sized dimensions (ONNX Runtime returns an empty output of
// the right shape, no error) and NaN / Inf in x and in the caches (propagated as IEEE float32
// arithmetic gives, as ORT does). Expected values were derived by hand (comments) and agree with
// onnxruntime-node 1.30.0's CPU provider (tests/oracles/ort_run.mjs, run on the same inputs) and with
// the CPU reference (src/reference, double precision).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "call_helpers.h"
#include "reference/op.h"

namespace wgk::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

struct EmptyCase {
  const char* name;
  bool ms;
  Shape x, cos, pos;
  std::vector<std::int64_t> pos_values;
  Attributes attrs;
};

// Each ran on ORT 1.30.0 CPU: ok, output of x's shape with no elements.
const EmptyCase kEmpty[] = {
    {"onnx batch 0", false, {0, 2, 3, 8}, {4, 4}, {0, 3}, {}, {}},
    {"onnx sequence 0", false, {1, 2, 0, 8}, {4, 4}, {1, 0}, {}, {}},
    {"onnx heads 0", false, {1, 0, 3, 8}, {4, 4}, {1, 3}, {0, 1, 2}, {}},
    {"onnx rank 3 sequence 0", false, {1, 0, 16}, {4, 4}, {1, 0}, {}, {{"num_heads", std::int64_t{2}}}},
    {"onnx head size 0", false, {1, 2, 3, 0}, {4, 0}, {1, 3}, {0, 1, 2}, {}},
    {"ms sequence 0", true, {1, 0, 16}, {4, 4}, {1, 0}, {}, {{"num_heads", std::int64_t{2}}}},
    {"ms batch 0", true, {0, 3, 16}, {4, 4}, {0, 3}, {}, {{"num_heads", std::int64_t{2}}}},
    {"ms offset, sequence 0", true, {1, 0, 16}, {4, 4}, {1}, {0}, {{"num_heads", std::int64_t{2}}}},
    {"ms rank 4 heads 0", true, {1, 0, 3, 8}, {4, 4}, {1, 3}, {0, 1, 2}, {}},
};

TEST(EmptyTensors, EmptyOutputOfTheRightShapeLikeOrt) {
  for (const EmptyCase& c : kEmpty) {
    SCOPED_TRACE(c.name);
    HostTensor x = f32(c.x), cos = f32(c.cos), sin = f32(c.cos), pos = i64(c.pos, c.pos_values);
    const Kernel& k = c.ms ? ms_kernel() : onnx_kernel();
    try {
      Outputs out = k({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}, c.attrs);
      HostTensor y = out.at("y").read();
      EXPECT_EQ(y.shape, c.x);
      EXPECT_EQ(y.dtype, DType::kFloat32);
      EXPECT_TRUE(y.data.empty());
    } catch (const Error& e) {
      ADD_FAILURE() << "ORT returns an empty output here; got: " << e.what();
    }
  }
}

/// Expects `got` (float32 bits read back) to equal `want` exactly, NaN matching NaN.
void expect_ieee_equal(const HostTensor& got, const std::vector<float>& want) {
  ASSERT_EQ(static_cast<std::size_t>(got.numel()), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double g = got.element(static_cast<std::int64_t>(i));
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(g)) << "y[" << i << "] = " << g << ", want NaN";
    else EXPECT_EQ(g, static_cast<double>(want[i])) << "y[" << i << "]";
  }
}

/// The CPU reference (double) agrees on which elements are NaN, +Inf, -Inf, and on finite values.
void expect_reference_agrees(std::string_view domain, const HostTensor& x, const HostTensor& cos, const HostTensor& sin,
                             const HostTensor& pos, const std::vector<float>& want) {
  const std::vector<double> ref =
      reference::run_reference(domain, "RotaryEmbedding", {{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}, {})
          .at("y")
          .values;
  ASSERT_EQ(ref.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(ref[i])) << "reference y[" << i << "] = " << ref[i];
    else EXPECT_EQ(ref[i], static_cast<double>(want[i])) << "reference y[" << i << "]";
  }
}

TEST(NonFinite, InfAndNaNInX) {
  // x (1, 1, 1, 8) = [Inf, 1, -Inf, NaN, 2, Inf, 3, 0], cos = 1, sin = 0, whole-head, non-interleaved:
  // pairs (a, b) = (x[i], x[i + 4]); a' = a*c - b*s, b' = b*c + a*s.
  //   i=0: a=Inf, b=2:   a' = Inf*1 - 2*0 = Inf;    b' = 2*1 + Inf*0 = 2 + NaN = NaN
  //   i=1: a=1, b=Inf:   a' = 1*1 - Inf*0 = NaN;    b' = Inf*1 + 1*0 = Inf
  //   i=2: a=-Inf, b=3:  a' = -Inf;                 b' = 3 + (-Inf*0) = NaN
  //   i=3: a=NaN, b=0:   a' = NaN;                  b' = NaN
  // ORT 1.30.0 CPU: [inf nan -inf nan nan inf nan nan].
  HostTensor x = f32({1, 1, 1, 8}, {kInf, 1, -kInf, kNaN, 2, kInf, 3, 0});
  HostTensor cos = f32({1, 4}, {1, 1, 1, 1}), sin = f32({1, 4}, {0, 0, 0, 0}), pos = i64({1, 1}, {0});
  const std::vector<float> want = {kInf, kNaN, -kInf, kNaN, kNaN, kInf, kNaN, kNaN};
  expect_ieee_equal(onnx_kernel()({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}).at("y").read(), want);
  expect_ieee_equal(ms_kernel()({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}).at("y").read(), want);
  expect_reference_agrees("ai.onnx", x, cos, sin, pos, want);
}

TEST(NonFinite, InfAndNaNInCaches) {
  // x = [1, 2, 3, 4, 0.5, 0, 1, 1], cos = [Inf, 1, NaN, 0], sin = [0, Inf, 0, -Inf]:
  //   i=0: a=1, b=0.5, c=Inf, s=0:   a' = Inf - 0.5*0 = Inf;   b' = 0.5*Inf + 1*0 = Inf
  //   i=1: a=2, b=0, c=1, s=Inf:     a' = 2 - 0*Inf = NaN;     b' = 0*1 + 2*Inf = Inf
  //   i=2: a=3, b=1, c=NaN:          a' = NaN;                 b' = NaN
  //   i=3: a=4, b=1, c=0, s=-Inf:    a' = 0 - 1*(-Inf) = Inf;  b' = 1*0 + 4*(-Inf) = -Inf
  // ORT 1.30.0 CPU (both ops): [inf nan nan inf inf inf nan -inf].
  HostTensor x = f32({1, 1, 1, 8}, {1, 2, 3, 4, 0.5f, 0, 1, 1});
  HostTensor cos = f32({1, 4}, {kInf, 1, kNaN, 0}), sin = f32({1, 4}, {0, kInf, 0, -kInf}), pos = i64({1, 1}, {0});
  const std::vector<float> want = {kInf, kNaN, kNaN, kInf, kInf, kInf, kNaN, -kInf};
  expect_ieee_equal(onnx_kernel()({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}).at("y").read(), want);
  expect_ieee_equal(ms_kernel()({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}).at("y").read(), want);
  expect_reference_agrees("ai.onnx", x, cos, sin, pos, want);
}

TEST(NonFinite, NaNPassesThroughTheUnrotatedTail) {
  // rotary_embedding_dim 4 of head 8: elements 4..7 are copied unchanged, NaN and Inf included.
  // Rotated: pairs (x0, x2), (x1, x3) with cos = 1, sin = 0: a' = a, b' = b for finite values.
  HostTensor x = f32({1, 1, 1, 8}, {1, 2, 3, 4, kNaN, kInf, -kInf, -0.0f});
  HostTensor cos = f32({1, 2}, {1, 1}), sin = f32({1, 2}, {0, 0}), pos = i64({1, 1}, {0});
  const std::vector<float> want = {1, 2, 3, 4, kNaN, kInf, -kInf, -0.0f};
  HostTensor y = onnx_kernel()({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}},
                               {{"rotary_embedding_dim", std::int64_t{4}}})
                     .at("y")
                     .read();
  expect_ieee_equal(y, want);
  EXPECT_TRUE(std::signbit(y.element(7))) << "-0.0 in the tail must stay -0.0 (a copy, not arithmetic)";
}

}  // namespace
}  // namespace wgk::testing
