// Hand-derived RotaryEmbedding cases (each derivation in a comment) and input validation of the reference.
#include "reference/op.h"
#include "reference/rotary_embedding.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "wgk/error.h"

namespace wgk::reference {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

HostTensor f32(Shape shape, std::vector<float> v) { return HostTensor::from<float>(DType::kFloat32, std::move(shape), v); }
HostTensor i64(Shape shape, std::vector<std::int64_t> v) { return HostTensor::from<std::int64_t>(DType::kInt64, std::move(shape), v); }

RotaryAttributes attrs(bool interleaved = false, std::int64_t num_heads = 0, std::int64_t rotary_dim = 0) {
  RotaryAttributes a;
  a.interleaved = interleaved;
  a.num_heads = num_heads;
  a.rotary_embedding_dim = rotary_dim;
  return a;
}

// Caches for a 4-wide head: pair 0 turns by 90 degrees (cos 0, sin 1), pair 1 by 0 (cos 1, sin 0).
const HostTensor kCos4 = f32({1, 2}, {0.f, 1.f});
const HostTensor kSin4 = f32({1, 2}, {1.f, 0.f});

TEST(RotaryReference, HeadSizeTwoQuarterTurn) {
  // cos = 0, sin = 1: (a, b) -> (0*a - 1*b, 1*a + 0*b) = (-b, a); (3, 5) -> (-5, 3).
  const auto pos = i64({1, 1}, {0});
  EXPECT_THAT(rotary_embedding_onnx(f32({1, 1, 1, 2}, {3, 5}), f32({1, 1}, {0}), f32({1, 1}, {1}), &pos, attrs()),
              ElementsAre(-5.0, 3.0));
}

TEST(RotaryReference, GeneralAngle) {
  // cos = 0.6, sin = 0.8 (a 3-4-5 rotation), (a, b) = (1, 2): (0.6 - 1.6, 0.8 + 1.2) = (-1, 2).
  // The caches are float32, so 0.6f and 0.8f differ from 0.6 and 0.8 by < 3e-8: tolerance 1e-7.
  const auto pos = i64({1, 1}, {0});
  EXPECT_THAT(rotary_embedding_onnx(f32({1, 1, 1, 2}, {1, 2}), f32({1, 1}, {0.6f}), f32({1, 1}, {0.8f}), &pos, attrs()),
              ElementsAre(DoubleNear(-1.0, 1e-7), DoubleNear(2.0, 1e-7)));
}

TEST(RotaryReference, HeadFourHalvesVersusInterleaved) {
  const auto pos = i64({1, 1}, {0});
  const HostTensor x = f32({1, 1, 1, 4}, {1, 2, 3, 4});
  // Non-interleaved pairs (x0, x2) = (1, 3) with pair 0 (90 deg): (-3, 1); (x1, x3) = (2, 4) with pair 1 (0 deg):
  // unchanged. Written back to slots 0, 2 and 1, 3: [-3, 2, 1, 4].
  EXPECT_THAT(rotary_embedding_onnx(x, kCos4, kSin4, &pos, attrs(false)), ElementsAre(-3, 2, 1, 4));
  // Interleaved pairs (x0, x1) = (1, 2) with 90 deg: (-2, 1); (x2, x3) = (3, 4) with 0 deg: unchanged: [-2, 1, 3, 4].
  EXPECT_THAT(rotary_embedding_onnx(x, kCos4, kSin4, &pos, attrs(true)), ElementsAre(-2, 1, 3, 4));
}

TEST(RotaryReference, PartialRotationCopiesTheTail) {
  // Head 6, rotary_embedding_dim 4: the first 4 as in HeadFourHalvesVersusInterleaved, then 5, 6 copied.
  const auto pos = i64({1, 1}, {0});
  const HostTensor x = f32({1, 1, 1, 6}, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT(rotary_embedding_onnx(x, kCos4, kSin4, &pos, attrs(false, 0, 4)), ElementsAre(-3, 2, 1, 4, 5, 6));
  EXPECT_THAT(rotary_embedding_onnx(x, kCos4, kSin4, &pos, attrs(true, 0, 4)), ElementsAre(-2, 1, 3, 4, 5, 6));
}

// Head size 2; cache row 0 = identity (cos 1, sin 0), row 1 = quarter turn (cos 0, sin 1), row 2 = half turn.
const HostTensor kCos2 = f32({3, 1}, {1, 0, -1});
const HostTensor kSin2 = f32({3, 1}, {0, 1, 0});

TEST(RotaryReference, Rank3AndRank4LayoutsGatherByPosition) {
  const auto pos = i64({1, 2}, {1, 0});  // token 0 -> row 1 (quarter turn), token 1 -> row 0 (identity)
  // Rank 3 (batch 1, seq 2, hidden 4 = 2 heads of 2): token 0 = [(1,2), (3,4)] -> [(-2,1), (-4,3)]; token 1 kept.
  const HostTensor x3 = f32({1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_THAT(rotary_embedding_onnx(x3, kCos2, kSin2, &pos, attrs(false, 2)), ElementsAre(-2, 1, -4, 3, 5, 6, 7, 8));
  // Rank 4 (batch 1, heads 2, seq 2, head 2): head 0 = [s0 (1,2), s1 (3,4)], head 1 = [s0 (5,6), s1 (7,8)];
  // seq 0 turns: (1,2) -> (-2,1), (5,6) -> (-6,5): [-2, 1, 3, 4, -6, 5, 7, 8].
  const HostTensor x4 = f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_THAT(rotary_embedding_onnx(x4, kCos2, kSin2, &pos, attrs()), ElementsAre(-2, 1, 3, 4, -6, 5, 7, 8));
  // The contrib op reads the same (batch, seq) table and the same rank-4 (batch, heads, seq, head) layout.
  EXPECT_THAT(rotary_embedding_ms(x3, pos, kCos2, kSin2, attrs(false, 2)), ElementsAre(-2, 1, -4, 3, 5, 6, 7, 8));
  EXPECT_THAT(rotary_embedding_ms(x4, pos, kCos2, kSin2, attrs()), ElementsAre(-2, 1, 3, 4, -6, 5, 7, 8));
}

TEST(RotaryReference, OnnxWithoutPositionIdsReadsPerTokenCaches) {
  // cos/sin (batch 1, seq 2, 1): token 0 quarter turn, token 1 half turn; (1,2) -> (-2,1), (3,4) -> (-3,-4).
  EXPECT_THAT(rotary_embedding_onnx(f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 2, 1}, {0, -1}), f32({1, 2, 1}, {1, 0}), nullptr, attrs()),
              ElementsAre(-2, 1, -3, -4));
}

TEST(RotaryReference, ContribBaseOffset) {
  // position_ids = [1]: token s reads row 1 + s: token 0 quarter turn (1,2) -> (-2,1), token 1 half turn (3,4) -> (-3,-4).
  const HostTensor x = f32({1, 2, 2}, {1, 2, 3, 4});
  EXPECT_THAT(rotary_embedding_ms(x, i64({1}, {1}), kCos2, kSin2, attrs(false, 1)), ElementsAre(-2, 1, -3, -4));
  EXPECT_THAT(rotary_embedding_ms(x, i64({}, {1}), kCos2, kSin2, attrs(false, 1)), ElementsAre(-2, 1, -3, -4));
}

TEST(RotaryReference, ContribNumHeadsZeroTakesHeadSizeFromTheCache) {
  // cos width 1 -> head size 2, so hidden 4 is 2 heads: same answer as the num_heads = 2 rank-3 case above.
  const HostTensor x3 = f32({1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_THAT(rotary_embedding_ms(x3, i64({1, 2}, {1, 0}), kCos2, kSin2, attrs(false, 0)), ElementsAre(-2, 1, -4, 3, 5, 6, 7, 8));
}

TEST(RotaryReference, Float16InputsAreReadExactly) {
  // binary16 0x3c00 = 1, 0x4000 = 2, 0x3555 = 0.333251953125 (exact value of the half nearest 1/3);
  // a quarter turn: (1, 2) -> (-2, 1); head 2 of (0.333251953125, 1) -> (-1, 0.333251953125).
  const HostTensor x = HostTensor::from<std::uint16_t>(DType::kFloat16, {1, 1, 2, 2}, {0x3c00, 0x4000, 0x3555, 0x3c00});
  const HostTensor c = HostTensor::from<std::uint16_t>(DType::kFloat16, {1, 1}, {0x0000});
  const HostTensor s = HostTensor::from<std::uint16_t>(DType::kFloat16, {1, 1}, {0x3c00});
  const auto pos = i64({1, 2}, {0, 0});
  EXPECT_THAT(rotary_embedding_onnx(x, c, s, &pos, attrs()), ElementsAre(-2, 1, -1, 0.333251953125));
}

TEST(RotaryReference, NanAndInfPropagateAsIeeeArithmetic) {
  // Identity rotation (cos 1, sin 0). (NaN, 2): a' = 1*NaN - 0*2 = NaN, b' = 0*NaN + 1*2 = NaN.
  // (Inf, 2): a' = 1*Inf - 0*2 = Inf, b' = 0*Inf + 2 = NaN (0 * Inf is NaN in IEEE 754).
  const double inf = std::numeric_limits<double>::infinity();
  const auto pos = i64({1, 2}, {0, 0});
  const HostTensor x = f32({1, 1, 2, 2}, {std::nanf(""), 2, std::numeric_limits<float>::infinity(), 2});
  const auto y = rotary_embedding_onnx(x, f32({1, 1}, {1}), f32({1, 1}, {0}), &pos, attrs());
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], inf);
  EXPECT_TRUE(std::isnan(y[3]));
}

template <typename F>
void expect_invalid(F&& call, const std::vector<std::string>& fragments) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one containing " << ::testing::PrintToString(fragments);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument) << e.what();
    for (const auto& f : fragments) EXPECT_THAT(e.what(), HasSubstr(f));
  }
}

TEST(RotaryReference, RejectsInvalidOnnxInputs) {
  const HostTensor x4 = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const auto pos = i64({1, 2}, {0, 3});
  expect_invalid([&] { rotary_embedding_onnx(x4, kCos2, kSin2, &pos, attrs()); }, {"position_ids[1] = 3", "[0, 3)"});
  const auto negative = i64({1, 2}, {0, -1});
  expect_invalid([&] { rotary_embedding_onnx(x4, kCos2, kSin2, &negative, attrs()); }, {"position_ids[1] = -1"});
  const auto wrong_shape = i64({2, 1}, {0, 0});
  expect_invalid([&] { rotary_embedding_onnx(x4, kCos2, kSin2, &wrong_shape, attrs()); }, {"position_ids shape [2, 1]", "[1, 2]"});
  const auto ok_pos = i64({1, 2}, {0, 0});
  expect_invalid([&] { rotary_embedding_onnx(f32({1, 2, 4}, std::vector<float>(8)), kCos2, kSin2, &ok_pos, attrs()); },
                 {"num_heads must be positive", "[1, 2, 4]"});
  expect_invalid([&] { rotary_embedding_onnx(f32({1, 2, 6}, std::vector<float>(12)), kCos2, kSin2, &ok_pos, attrs(false, 4)); },
                 {"hidden size 6", "num_heads 4"});
  expect_invalid([&] { rotary_embedding_onnx(f32({1, 1, 2, 3}, std::vector<float>(6)), kCos2, kSin2, &ok_pos, attrs()); },
                 {"head_size", "3 must be even"});
  expect_invalid([&] { rotary_embedding_onnx(f32({1, 1, 2, 4}, std::vector<float>(8)), kCos2, kSin2, &ok_pos, attrs(false, 0, 3)); },
                 {"rotary_embedding_dim 3 must be even"});
  expect_invalid([&] { rotary_embedding_onnx(x4, kCos2, kSin2, &ok_pos, attrs(false, 0, 6)); }, {"rotary_embedding_dim 6", "head_size 2"});
  expect_invalid([&] { rotary_embedding_onnx(f32({1, 1, 2, 4}, std::vector<float>(8)), kCos2, kSin2, &ok_pos, attrs()); },
                 {"last dimension 1", "rotary_dim / 2 = 2"});
  expect_invalid([&] { rotary_embedding_onnx(x4, kCos2, kSin2, nullptr, attrs()); }, {"without position_ids", "rank 3"});
  expect_invalid([&] { rotary_embedding_onnx(x4, f32({1, 3, 1}, {1, 1, 1}), f32({1, 3, 1}, {0, 0, 0}), nullptr, attrs()); },
                 {"must start with (batch, seq) = [1, 2]"});
  const HostTensor c16 = HostTensor::from<std::uint16_t>(DType::kFloat16, {3, 1}, {0, 0, 0});
  expect_invalid([&] { rotary_embedding_onnx(x4, c16, kSin2, &ok_pos, attrs()); }, {"cos_cache (float16)", "T = float32"});
  expect_invalid([&] { rotary_embedding_onnx(f32({4}, {1, 2, 3, 4}), kCos2, kSin2, &ok_pos, attrs()); }, {"rank 3", "[4]"});
  HostTensor short_x = x4;
  short_x.data.resize(4);
  expect_invalid([&] { rotary_embedding_onnx(short_x, kCos2, kSin2, &ok_pos, attrs()); }, {"x of shape [1, 1, 2, 2]", "must hold 16 bytes, holds 4"});
}

TEST(RotaryReference, RejectsInvalidContribInputs) {
  const HostTensor x3 = f32({1, 2, 2}, {1, 2, 3, 4});
  // Base offset 2 with seq 2 reads rows 2 and 3; the cache has 3 rows.
  expect_invalid([&] { rotary_embedding_ms(x3, i64({1}, {2}), kCos2, kSin2, attrs(false, 1)); }, {"position_ids[0] = 2 + token 1", "[0, 3)"});
  expect_invalid([&] { rotary_embedding_ms(x3, i64({1}, {-1}), kCos2, kSin2, attrs(false, 1)); }, {"position_ids[0] = -1"});
  expect_invalid([&] { rotary_embedding_ms(x3, i64({1, 2}, {0, 9}), kCos2, kSin2, attrs(false, 1)); }, {"position_ids[1] = 9"});
  expect_invalid([&] { rotary_embedding_ms(x3, i64({2}, {0, 0}), kCos2, kSin2, attrs(false, 1)); }, {"position_ids shape [2]"});
  RotaryAttributes scaled = attrs(false, 1);
  scaled.scale = 0.5;
  expect_invalid([&] { rotary_embedding_ms(x3, i64({1}, {0}), kCos2, kSin2, scaled); }, {"scale must be 1.0", "0.5"});
  expect_invalid([&] { rotary_embedding_ms(x3, i64({1}, {0}), kCos2, kSin2, attrs(false, 0, 2)); },
                 {"num_heads must be provided", "rotary_embedding_dim is nonzero (2)"});
  // At rank 4 too (ORT 1.30's constructor: "num_heads must be provided if rotary_embedding_dim is specified").
  expect_invalid([&] { rotary_embedding_ms(f32({1, 1, 2, 4}, std::vector<float>(8)), i64({1}, {0}), f32({3, 1}, {1, 1, 1}),
                                           f32({3, 1}, {0, 0, 0}), attrs(false, 0, 2)); },
                 {"num_heads must be provided", "rotary_embedding_dim is nonzero (2)"});
  expect_invalid([&] { rotary_embedding_ms(f32({1, 2, 3}, std::vector<float>(6)), i64({1}, {0}), kCos2, kSin2, attrs()); },
                 {"2 * cos_cache.shape[1] = 2", "hidden size 3"});
  const HostTensor f_pos = f32({1}, {0});
  expect_invalid([&] { rotary_embedding_ms(x3, f_pos, kCos2, kSin2, attrs(false, 1)); }, {"position_ids has dtype float32", "int64"});
  expect_invalid([&] { rotary_embedding_ms(x3, i64({1}, {0}), f32({1, 3, 1}, {1, 1, 1}), f32({1, 3, 1}, {0, 0, 0}), attrs(false, 1)); },
                 {"cos_cache must be rank 2"});
}


TEST(RotaryReference, EmptyMicrosoftCallOnEmptyCacheIsValid) {
  // Issue 15: zero tokens, an empty cache (0 rows) and base offset 0 read no row; the runtime accepts the
  // call and returns an empty y, so the reference must too. A negative offset is still refused.
  RotaryAttributes a;
  a.num_heads = 2;
  const HostTensor x = f32({1, 0, 16}, {});
  const HostTensor cache = f32({0, 4}, {});
  EXPECT_TRUE(rotary_embedding_ms(x, i64({1}, {0}), cache, cache, a).empty());
  EXPECT_TRUE(rotary_embedding_ms(x, i64({}, {0}), cache, cache, a).empty());
  EXPECT_THROW(rotary_embedding_ms(x, i64({1}, {-1}), cache, cache, a), Error);
}

TEST(RotaryReference, MicrosoftRankThreeEmptyHiddenWithoutNumHeadsIsValid) {
  // ORT contrib spec: num_heads = 0 takes head_size = 2 * cos_cache.shape[1] = 8 here, so a hidden size of 0
  // is 0 / 8 = 0 heads: x (2, 3, 0) gives an empty y (the contract and the kernel accept it; a breaker found
  // the reference refusing it as "num_heads must be positive"). A hidden size of 4 is still refused.
  const HostTensor x = f32({2, 3, 0}, {});
  const HostTensor cache = f32({50, 4}, std::vector<float>(200));
  EXPECT_TRUE(rotary_embedding_ms(x, i64({1}, {0}), cache, cache, attrs()).empty());
  expect_invalid([&] { rotary_embedding_ms(f32({2, 3, 4}, std::vector<float>(24)), i64({1}, {0}), cache, cache, attrs()); },
                 {"2 * cos_cache.shape[1] = 8", "hidden size 4"});
}

// The plug-ins of both ops are registered without any tool naming them (src/reference/op.h), and an op
// without one is kNotFound.
TEST(OpPlugins, BothRotaryOpsRegisteredUnknownOpIsNotFound) {
  for (const char* domain : {"ai.onnx", "com.microsoft"}) {
    const OpPlugin* p = find_op(domain, "RotaryEmbedding");
    ASSERT_NE(p, nullptr) << domain;
    EXPECT_TRUE(p->reference && p->generate && p->moved_bytes) << domain;
    EXPECT_EQ(p->node.outputs, std::vector<std::string>{"y"});
  }
  EXPECT_EQ(find_op("ai.onnx", "Gelu"), nullptr);
  try {
    run_reference("ai.onnx", "Gelu", {}, {});
    ADD_FAILURE() << "no reference expected";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
  }
  // Through the registry, the ai.onnx reference with x = [1, 0] (head 2), cos = 0, sin = 1 at position 0:
  // a quarter turn, (a, b) -> (a c - b s, a s + b c) = (0, 1).
  const Results r = run_reference("ai.onnx", "RotaryEmbedding",
                                  {{"x", f32({1, 1, 1, 2}, {1, 0})}, {"cos", f32({1, 1}, {0})}, {"sin", f32({1, 1}, {1})},
                                   {"positionIds", i64({1, 1}, {0})}},
                                  {});
  EXPECT_EQ(r.at("y").shape, (Shape{1, 1, 1, 2}));
  EXPECT_EQ(r.at("y").values, (std::vector<double>{0, 1}));
}

}  // namespace
}  // namespace wgk::reference
