// The bad-input catalog: every rule of the ONNX RotaryEmbedding-23 spec, the ORT com.microsoft
// RotaryEmbedding contrib spec and the seed card (the original model card of com.microsoft.RotaryEmbedding,
// whose structure kernels/*/README.md follow) broken once, through
// the public API (get_kernel on the bundled packages). Each must be a wgk::Error of kind
// kInvalidArgument whose message names the input or attribute, the rule and the offending values;
// none may crash. Baselines first: the same calls unbroken succeed, so each error below is caused by
// the one thing the test changes.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "call_helpers.h"
#include "reference/op.h"
#include "wgk/introspect.h"

namespace wgk::testing {
namespace {

/// One call: the three required tensors, optional positions, attributes, extra (unknown) inputs.
struct Call {
  HostTensor x, cos, sin;
  std::optional<HostTensor> pos;
  Attributes attrs;
  std::optional<HostTensor> extra;  ///< passed as input "bias", which neither op has
  bool drop_cos = false;
};

Inputs inputs_of(const Call& c) {
  Inputs in;
  in.emplace("x", c.x);
  if (!c.drop_cos) in.emplace("cos", c.cos);
  in.emplace("sin", c.sin);
  if (c.pos) in.emplace("positionIds", *c.pos);
  if (c.extra) in.emplace("bias", *c.extra);
  return in;
}

/// Runs the call to completion (outputs read back), so that a late failure cannot hide.
void run(const Kernel& k, const Call& c) {
  Outputs out = k(inputs_of(c), c.attrs);
  for (const auto& [name, t] : out) (void)t.read();
}

// ai.onnx, rank 4 x (batch 1, heads 2, seq 3, head 8), 2-D caches of 4 rows, positions (1, 3).
Call onnx_rank4() { return {f32({1, 2, 3, 8}), f32({4, 4}), f32({4, 4}), positions({1, 3}, 4), {}, {}}; }
// ai.onnx, rank 3 x (batch 1, seq 3, hidden 16), num_heads 2 -> head 8.
Call onnx_rank3() {
  return {f32({1, 3, 16}), f32({4, 4}), f32({4, 4}), positions({1, 3}, 4), {{"num_heads", std::int64_t{2}}}, {}};
}
// ai.onnx without position_ids: 3-D caches (batch 1, seq 3, 4).
Call onnx_cache3() { return {f32({1, 2, 3, 8}), f32({1, 3, 4}), f32({1, 3, 4}), std::nullopt, {}, {}}; }
// com.microsoft, rank 3 x (1, 3, 16), num_heads 2, position table (1, 3).
Call ms_table() {
  return {f32({1, 3, 16}), f32({4, 4}), f32({4, 4}), positions({1, 3}, 4), {{"num_heads", std::int64_t{2}}}, {}};
}
// com.microsoft, base offset 1 (scalar): token s reads row 1 + s, rows 1..3 of 4.
Call ms_offset() {
  return {f32({1, 3, 16}), f32({4, 4}), f32({4, 4}), i64({}, {1}), {{"num_heads", std::int64_t{2}}}, {}};
}

// ---- baselines ----------------------------------------------------------------------------------

// The unbroken calls succeed and agree with the CPU reference (written from the specs) to f32
// rounding: the catalog below breaks a call that works.
void expect_matches_reference(const Kernel& k, std::string_view domain, const Call& c) {
  Outputs out = k(inputs_of(c), c.attrs);
  HostTensor y = out.at("y").read();
  std::map<std::string, HostTensor, std::less<>> in{{"x", c.x}, {"cos", c.cos}, {"sin", c.sin}};
  if (c.pos) in.emplace("positionIds", *c.pos);
  const std::vector<double> want = reference::run_reference(domain, "RotaryEmbedding", in, c.attrs).at("y").values;
  ASSERT_EQ(y.shape, c.x.shape);
  ASSERT_EQ(static_cast<std::size_t>(y.numel()), want.size());
  for (std::int64_t i = 0; i < y.numel(); ++i) EXPECT_NEAR(y.element(i), want[i], 1e-5) << "element " << i;
}

TEST(BadInputBaseline, UnbrokenCallsMatchReference) {
  expect_matches_reference(onnx_kernel(), "ai.onnx", onnx_rank4());
  expect_matches_reference(onnx_kernel(), "ai.onnx", onnx_rank3());
  expect_matches_reference(onnx_kernel(), "ai.onnx", onnx_cache3());
  expect_matches_reference(ms_kernel(), "com.microsoft", ms_table());
  expect_matches_reference(ms_kernel(), "com.microsoft", ms_offset());
}

// ---- dtypes (type constraints T: float32 | float16, M: int64) -----------------------------------

TEST(BadInputDtype, XInt64NotInT) {
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.x = i64(c.x.shape, std::vector<std::int64_t>(static_cast<std::size_t>(c.x.numel()), 1));
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"'x'", "dtype int64", "T", "float32"});
  }
}

TEST(BadInputDtype, CosUInt32NotInT) {
  Call c = onnx_rank4();
  c.cos = HostTensor::from(DType::kUInt32, {4, 4}, std::vector<std::uint32_t>(16, 1));
  expect_error([&] { run(onnx_kernel(), c); }, {"'cos'", "dtype uint32", "T", "float32"});
}

TEST(BadInputDtype, MixedTFloat32XFloat16Cos) {
  // T binds x, cos and sin to one dtype: x float32 with cos float16 breaks it.
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.cos = f16(c.cos.shape);
    c.sin = f16(c.sin.shape);
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"'x'", "'cos'", "same type T", "float32", "float16"});
  }
}

TEST(BadInputDtype, PositionIdsFloatNotInM) {
  Call c = ms_table();
  c.pos = f32({1, 3}, {0, 1, 2});
  expect_error([&] { run(ms_kernel(), c); }, {"'positionIds'", "dtype float32", "M", "int64"});
}

// ---- ranks --------------------------------------------------------------------------------------

TEST(BadInputRank, XRank2) {
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.x = f32({3, 16});
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"'x'", "rank 2", "[3, 16]", "expected rank 3 or 4"});
  }
}

TEST(BadInputRank, XRank5) {
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.x = f32({1, 1, 2, 3, 8});
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"'x'", "rank 5", "expected rank 3 or 4"});
  }
}

TEST(BadInputRank, CosRank1) {
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.cos = f32({16});
    c.sin = f32({16});
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"'cos'", "rank 1", "expected rank 2"});
  }
}

TEST(BadInputRank, OnnxThreeDCachesWithPositionIds) {
  // ONNX-23: with position_ids the caches are (max_position_id_plus_1, rotary_dim / 2).
  Call c = onnx_rank4();
  c.cos = f32({1, 3, 4});
  c.sin = f32({1, 3, 4});
  expect_error([&] { run(onnx_kernel(), c); }, {"position_ids", "2-D", "ranks.cos = 3", "cos: float32[1, 3, 4]"});
}

TEST(BadInputRank, MsPositionIdsRank3) {
  Call c = ms_table();
  c.pos = positions({1, 3, 1}, 4);
  expect_error([&] { run(ms_kernel(), c); }, {"'positionIds'", "rank 3", "expected rank 0 or 1 or 2"});
}

// ---- head size and rotary dim -------------------------------------------------------------------

TEST(BadInputHead, OddHeadSize) {
  // x (1, 2, 3, 7): head 7 is odd. ai.onnx refuses it whatever rotary_embedding_dim is (ONNX RotaryEmbedding-23 and
  // the seed manifest: head_size must be even); com.microsoft refuses it with rotary_embedding_dim 0, which would
  // rotate the whole head in pairs (ORT 1.30 runs that and never writes the head's last element).
  Call c = onnx_rank4();
  c.x = f32({1, 2, 3, 7});
  expect_error([&] { run(onnx_kernel(), c); }, {"head_size must be even", "headElements % 2 = 1 (headElements = 7)", "[1, 2, 3, 7]"});
  Call r = c;  // caches of width 2: rotary 4 of head 7
  r.cos = f32({4, 2});
  r.sin = f32({4, 2});
  r.attrs["rotary_embedding_dim"] = std::int64_t{4};
  expect_error([&] { run(onnx_kernel(), r); }, {"head_size must be even", "headElements = 7", "rotary_embedding_dim=4"});
  Call m = ms_table();
  m.x = f32({1, 2, 3, 7});
  expect_error([&] { run(ms_kernel(), m); },
               {"head_size must be even when rotary_embedding_dim is 0", "headElements % 2 = 1 (headElements = 7)", "[1, 2, 3, 7]"});
}

// com.microsoft: an odd head with an even rotary_embedding_dim below it is what the seed card allows (an even head
// only when rotary_embedding_dim is 0) and ORT 1.30 runs (the tail copied); before, it was refused. The CPU
// reference (written from the specs) is the oracle.
TEST(BadInputHead, MsOddHeadSizeWithAnEvenRotaryDimRuns) {
  Call c = onnx_rank4();  // x (1, 2, 3, 7), caches of width 2: rotary 4 of head 7
  c.x = f32({1, 2, 3, 7});
  c.cos = f32({4, 2});
  c.sin = f32({4, 2});
  c.attrs["rotary_embedding_dim"] = std::int64_t{4};
  c.attrs["num_heads"] = std::int64_t{2};
  expect_matches_reference(ms_kernel(), "com.microsoft", c);
}

TEST(BadInputHead, RotaryDimOdd) {
  Call c = onnx_rank4();
  c.attrs["rotary_embedding_dim"] = std::int64_t{3};
  expect_error([&] { run(onnx_kernel(), c); }, {"rotary_embedding_dim", "even", "rotary_embedding_dim=3"});
  Call m = ms_table();
  m.attrs["rotary_embedding_dim"] = std::int64_t{3};
  expect_error([&] { run(ms_kernel(), m); }, {"rotary_embedding_dim", "even", "rotary_embedding_dim=3"});
}

TEST(BadInputHead, RotaryDimLargerThanHead) {
  // head 8, rotary_embedding_dim 10 (caches widened to 5 so only this rule breaks).
  Call c = onnx_rank4();
  c.attrs["rotary_embedding_dim"] = std::int64_t{10};
  c.cos = f32({4, 5});
  c.sin = f32({4, 5});
  expect_error([&] { run(onnx_kernel(), c); }, {"rotary_embedding_dim", "head_size", "attrs.rotary_embedding_dim = 10", "headElements = 8"});
  Call m = ms_table();
  m.attrs["rotary_embedding_dim"] = std::int64_t{10};
  m.cos = f32({4, 5});
  m.sin = f32({4, 5});
  expect_error([&] { run(ms_kernel(), m); }, {"rotary_embedding_dim", "head_size", "attrs.rotary_embedding_dim = 10", "headElements = 8"});
}

TEST(BadInputHead, RotaryDimNegative) {
  Call c = onnx_rank4();
  c.attrs["rotary_embedding_dim"] = std::int64_t{-2};
  expect_error([&] { run(onnx_kernel(), c); }, {"rotary_embedding_dim", "attrs.rotary_embedding_dim = -2"});
}

// ---- num_heads ----------------------------------------------------------------------------------

TEST(BadInputNumHeads, MissingAtRank3Onnx) {
  Call c = onnx_rank3();
  c.attrs.erase("num_heads");
  expect_error([&] { run(onnx_kernel(), c); }, {"num_heads", "rank 3", "num_heads=undefined"});
}

TEST(BadInputNumHeads, ZeroAtRank3Onnx) {
  Call c = onnx_rank3();
  c.attrs["num_heads"] = std::int64_t{0};
  expect_error([&] { run(onnx_kernel(), c); }, {"num_heads", ">= 1", "num_heads=0"});
}

TEST(BadInputNumHeads, NegativeMs) {
  Call c = ms_table();
  c.attrs["num_heads"] = std::int64_t{-1};
  expect_error([&] { run(ms_kernel(), c); }, {"num_heads must be in range [0, 2147483647]", "attrs.num_heads = -1"});
}

// ONNX Runtime 1.30 refuses num_heads outside [0, INT32_MAX] when the session is created, at every rank and in both
// domains ("num_heads must be in range [0, 2147483647]. Actual value: ...", both kernels' constructors), though rank
// 4 reads the head count from the shape (before: ai.onnx ran -5 and 2^31 at rank 4, com.microsoft ran 2^31).
TEST(BadInputNumHeads, OutsideInt32RangeAtRank4) {
  for (const std::int64_t bad : {std::int64_t{-5}, std::int64_t{2147483648}, std::int64_t{-2147483649}}) {
    const std::string value = "attrs.num_heads = " + std::to_string(bad);
    for (const Kernel* k : {&onnx_kernel(), &ms_kernel()}) {
      Call c = onnx_rank4();
      c.attrs["num_heads"] = bad;
      expect_error([&] { run(*k, c); }, {"num_heads must be in range [0, 2147483647]", value});
    }
  }
  // The range's ends run: at rank 4 the attribute is not otherwise consulted.
  for (const std::int64_t ok : {std::int64_t{0}, std::int64_t{2147483647}}) {
    Call c = onnx_rank4();
    c.attrs["num_heads"] = ok;
    EXPECT_NO_THROW(run(onnx_kernel(), c)) << "num_heads " << ok;
    EXPECT_NO_THROW(run(ms_kernel(), c)) << "num_heads " << ok;
  }
}

TEST(BadInputNumHeads, NotDividingHidden) {
  // hidden 16, num_heads 3: 16 % 3 = 1.
  Call c = onnx_rank3();
  c.attrs["num_heads"] = std::int64_t{3};
  expect_error([&] { run(onnx_kernel(), c); }, {"num_heads", "divisible", "[1, 3, 16]", "num_heads=3"});
  Call m = ms_table();
  m.attrs["num_heads"] = std::int64_t{3};
  expect_error([&] { run(ms_kernel(), m); }, {"num_heads", "divisible", "[1, 3, 16]", "num_heads=3"});
}

TEST(BadInputNumHeads, MsRotaryDimWithoutNumHeads) {
  // ORT 1.30's constructor: "num_heads must be provided if rotary_embedding_dim is specified", at any rank (before,
  // the contract exempted rank 4 and ran it; a breaker's finding, checked against ORT).
  Call m = ms_table();
  m.attrs.erase("num_heads");
  m.attrs["rotary_embedding_dim"] = std::int64_t{8};
  expect_error([&] { run(ms_kernel(), m); }, {"num_heads", "rotary_embedding_dim", "rotary_embedding_dim=8", "num_heads=0"});
  Call r4 = onnx_rank4();  // x (1, 2, 3, 8), head 8: rotary 4 needs caches of width 2
  r4.attrs["rotary_embedding_dim"] = std::int64_t{4};
  r4.cos = f32({4, 2});
  r4.sin = f32({4, 2});
  expect_error([&] { run(ms_kernel(), r4); }, {"num_heads must be provided", "x: float32[1, 2, 3, 8]", "num_heads=0"});
}

TEST(BadInputNumHeads, MsZeroNumHeadsCacheWidthNotDividingHidden) {
  // num_heads 0 at rank 3: head = 2 * cos.shape[1] = 6, which does not divide hidden 16.
  Call m = ms_table();
  m.attrs.erase("num_heads");
  m.cos = f32({4, 3});
  m.sin = f32({4, 3});
  expect_error([&] { run(ms_kernel(), m); }, {"num_heads", "cos_cache", "[1, 3, 16]", "cos: float32[4, 3]"});
}

// ---- cache shapes -------------------------------------------------------------------------------

TEST(BadInputCache, CosSinDisagree) {
  Call c = onnx_rank4();
  c.sin = f32({5, 4});
  expect_error([&] { run(onnx_kernel(), c); }, {"cos_cache and sin_cache", "same shape", "shapes.cos = [4, 4]", "shapes.sin = [5, 4]"});
  Call m = ms_table();
  m.sin = f32({5, 4});
  expect_error([&] { run(ms_kernel(), m); }, {"cos_cache and sin_cache", "same shape", "shapes.cos = [4, 4]", "shapes.sin = [5, 4]"});
}

TEST(BadInputCache, ThreeDCacheBatchDisagrees) {
  // Without position_ids the caches are (batch 1, seq 3, 4): batch 2 breaks it.
  Call c = onnx_cache3();
  c.cos = f32({2, 3, 4});
  c.sin = f32({2, 3, 4});
  expect_error([&] { run(onnx_kernel(), c); }, {"cos_cache", "batch_size", "cos: float32[2, 3, 4]"});
}

TEST(BadInputCache, ThreeDCacheSequenceDisagrees) {
  Call c = onnx_cache3();
  c.cos = f32({1, 2, 4});
  c.sin = f32({1, 2, 4});
  expect_error([&] { run(onnx_kernel(), c); }, {"cos_cache", "sequence_length", "cos: float32[1, 2, 4]"});
}

TEST(BadInputCache, WidthNotHalfRotaryDim) {
  // head 8, whole-head rotation: caches must be 4 wide; 3 breaks it.
  Call c = onnx_rank4();
  c.cos = f32({4, 3});
  c.sin = f32({4, 3});
  expect_error([&] { run(onnx_kernel(), c); }, {"cos_cache", "rotary_dim / 2", "dim(shapes.cos, -1) * 2 = 6", "rotaryDim = 8"});
  Call m = ms_table();
  m.attrs["rotary_embedding_dim"] = std::int64_t{4};  // rotary 4 -> width 2 expected; 4 given
  expect_error([&] { run(ms_kernel(), m); }, {"cos_cache", "rotary_dim / 2", "dim(shapes.cos, 1) * 2 = 8", "rotaryDim = 4"});
}

TEST(BadInputCache, PositionIdsShapeDisagrees) {
  Call c = onnx_rank4();
  c.pos = positions({1, 2}, 4);  // x has sequence 3
  expect_error([&] { run(onnx_kernel(), c); }, {"position_ids", "(batch_size, sequence_length)", "[1, 2]"});
  Call m = ms_table();
  m.pos = positions({2, 3}, 4);  // x has batch 1
  expect_error([&] { run(ms_kernel(), m); }, {"position_ids", "(batch_size, sequence_length)", "[2, 3]"});
}

TEST(BadInputCache, MsOffsetWithTwoElements) {
  Call m = ms_table();
  m.pos = i64({2}, {0, 1});
  expect_error([&] { run(ms_kernel(), m); }, {"position_ids", "one element", "[2]"});
}

// ---- position values ----------------------------------------------------------------------------

TEST(BadInputPositions, Negative) {
  // Seed card: negative positions are rejected at the host boundary (uint32 storage).
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.pos = i64({1, 3}, {0, -1, 2});
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"positionIds[1]", "-1"});
  }
}

TEST(BadInputPositions, AtLeastTwoToThe32) {
  // 2^32 = 4294967296 and 2^40 = 1099511627776 do not fit the uint32 storage either, but the contract's rule is
  // reported: the manifest's valueRange [0, dim(cos, 0) - 1] = [0, 3] for caches of 4 rows (before: the narrowing
  // rule "0 <= value < 2^32", which names no cache).
  for (auto make : {onnx_rank4, ms_table}) {
    for (const auto& [value, text] : {std::pair{std::int64_t{1} << 32, "4294967296"}, std::pair{std::int64_t{1} << 40, "1099511627776"}}) {
      Call c = make();
      c.pos = i64({1, 3}, {0, 1, value});
      const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
      expect_error([&] { run(k, c); }, {"positionIds[2]", text, "is out of range: above 3", "must lie in [0, 3]", "valueRange"});
    }
  }
}

TEST(BadInputPositions, PastCacheRows) {
  // Caches have 4 rows (0..3); position 4 is past them.
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.pos = i64({1, 3}, {0, 4, 2});
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"positionIds[1]", "4", "[0, 3]"});
  }
}

TEST(BadInputPositions, MsBaseOffsetRunsOffCache) {
  // Base offset 2 with sequence 3 reads rows 2, 3, 4; the caches have rows 0..3, so the largest
  // valid offset is 4 - 3 = 1.
  Call m = ms_offset();
  m.pos = i64({}, {2});
  expect_error([&] { run(ms_kernel(), m); }, {"positionIds[0]", "2", "[0, 1]"});
  m.pos = i64({1}, {2});  // the one-element vector form
  expect_error([&] { run(ms_kernel(), m); }, {"positionIds[0]", "2", "[0, 1]"});
}

TEST(BadInputPositions, MsBaseOffsetSequenceLongerThanCache) {
  // Sequence 5 with 4 cache rows: no offset is valid (max = 4 - 5 = -1).
  Call m = ms_offset();
  m.x = f32({1, 5, 16});
  m.pos = i64({}, {0});
  expect_error([&] { run(ms_kernel(), m); }, {"positionIds[0]", "0", "-1"});
}

// ---- attributes ---------------------------------------------------------------------------------

TEST(BadInputAttributes, MsScaleOtherThanOne) {
  Call m = ms_table();
  m.attrs["scale"] = 0.5;
  expect_error([&] { run(ms_kernel(), m); }, {"scale must be 1.0", "attrs.scale = 0.5"});
}

// scale is an ONNX FLOAT (a float32 in the model; ORT reads it with GetAttrOrDefault<float>): a double passes the
// check when it rounds to 1.0f, the compiler's float conversion being the oracle here (before: the check compared
// the double, so 1.00000001, which is 1.0f, was refused). The values straddle both rounding ties, 1 - 2^-25 and
// 1 + 2^-24, which round to even (1.0f), and their neighbours one double away, which do not.
TEST(BadInputAttributes, MsScaleIsCheckedAsAFloat32) {
  const double below = 1.0 - std::ldexp(1.0, -25), above = 1.0 + std::ldexp(1.0, -24);
  for (const double v : {1.0, 1.00000001, 0.99999999, below, above, std::nextafter(below, 0.0),
                         std::nextafter(above, 2.0), 1.0000001, 0.9999999}) {
    Call m = ms_table();
    m.attrs["scale"] = v;
    if (static_cast<float>(v) == 1.0f) {
      EXPECT_NO_THROW(run(ms_kernel(), m)) << "scale " << v;
    } else {
      expect_error([&] { run(ms_kernel(), m); }, {"scale must be 1.0 as a float32", "attrs.scale = "});
    }
  }
}

TEST(BadInputAttributes, InterleavedNotZeroOrOne) {
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.attrs["interleaved"] = std::int64_t{2};
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"'interleaved' = 2", "allowed values 0, 1"});
  }
}

TEST(BadInputAttributes, InterleavedAsFloat) {
  Call c = onnx_rank4();
  c.attrs["interleaved"] = 0.5;
  expect_error([&] { run(onnx_kernel(), c); }, {"'interleaved'", "0.5", "not an integer"});
}

// onnx.proto: an INT attribute's value is AttributeProto.i, an int64: 4.0 through the C++ API is refused naming
// the attribute, the value and the rule (before: taken as 4); a FLOAT attribute (com.microsoft's scale) takes
// the integer 1.
TEST(BadInputAttributes, IntegralFloatForAnIntAttribute) {
  Call c = onnx_rank4();
  c.attrs["num_heads"] = 4.0;
  expect_error([&] { run(onnx_kernel(), c); },
               {"attribute 'num_heads': value 4.0 (float) is not an integer (ONNX INT attribute: AttributeProto.i, an "
                "int64; a float is refused even when integral)"});
  Call m = ms_table();
  m.attrs["scale"] = std::int64_t{1};
  EXPECT_NO_THROW(run(ms_kernel(), m));
}

// An integer tunable takes no float, as an ONNX INT attribute (contract::tunable_value): WORKGROUP_SIZE 64.0 through
// the C++ API is refused naming the tunable, the value, its default and the rule (before: run as 64); 64 runs.
TEST(BadInputAttributes, IntegralFloatForAnIntegerTunable) {
  const Call c = onnx_rank4();
  expect_error([&] { (void)onnx_kernel().call(inputs_of(c), c.attrs, {{"WORKGROUP_SIZE", 64.0}}, nullptr); },
               {"tunable 'WORKGROUP_SIZE' = 64.0 (float) is not an integer (its default is 256; a tunable takes its "
                "default's type, by the rule of an ONNX INT attribute: AttributeProto.i, an int64; a float is refused "
                "even when integral)"});
  Outputs out = onnx_kernel().call(inputs_of(c), c.attrs, {{"WORKGROUP_SIZE", std::int64_t{64}}}, nullptr);
  EXPECT_EQ(out.at("y").read().shape, c.x.shape);
}

TEST(BadInputAttributes, UnknownAttribute) {
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.attrs["rotary_base"] = std::int64_t{10000};
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"unknown attribute 'rotary_base'", "declared attributes"});
  }
}

TEST(BadInputAttributes, OnnxHasNoScale) {
  // scale is a com.microsoft attribute only.
  Call c = onnx_rank4();
  c.attrs["scale"] = 1.0;
  expect_error([&] { run(onnx_kernel(), c); }, {"unknown attribute 'scale'"});
}

// ---- inputs -------------------------------------------------------------------------------------

TEST(BadInputInputs, UnknownInput) {
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.extra = f32({8});
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"unknown input 'bias'", "expected inputs"});
  }
}

TEST(BadInputInputs, MissingRequiredCos) {
  for (auto make : {onnx_rank4, ms_table}) {
    Call c = make();
    c.drop_cos = true;
    const Kernel& k = make == onnx_rank4 ? onnx_kernel() : ms_kernel();
    expect_error([&] { run(k, c); }, {"missing required input 'cos'"});
  }
}

TEST(BadInputInputs, MsMissingPositionIds) {
  // position_ids is required by com.microsoft (optional only in ai.onnx).
  Call m = ms_table();
  m.pos.reset();
  expect_error([&] { run(ms_kernel(), m); }, {"missing required input 'positionIds'"});
}

TEST(BadInputInputs, OnnxNoPositionIdsWithTwoDCaches) {
  Call c = onnx_rank4();
  c.pos.reset();
  expect_error([&] { run(onnx_kernel(), c); }, {"without position_ids", "3-D", "ranks.cos = 2", "cos: float32[4, 4]"});
}

TEST(BadInputInputs, DataShorterThanShape) {
  // x (1, 2, 3, 8) float32 needs 48 * 4 = 192 bytes; give 47 elements (188 bytes).
  Call c = onnx_rank4();
  c.x.data.resize(188);
  expect_error([&] { run(onnx_kernel(), c); }, {"input x", "[1, 2, 3, 8]", "192", "188"});
  Call m = ms_table();
  m.pos->data.resize(16);  // (1, 3) int64 needs 24 bytes
  expect_error([&] { run(ms_kernel(), m); }, {"positionIds", "[1, 3]", "24", "16"});
}

TEST(BadInputInputs, DataLongerThanShape) {
  Call c = onnx_rank4();
  c.cos.data.resize(c.cos.data.size() + 4);  // (4, 4) float32 = 64 bytes; 68 given
  expect_error([&] { run(onnx_kernel(), c); }, {"input cos", "[4, 4]", "64", "68"});
}

TEST(BadInputInputs, UploadDataShorterThanShape) {
  // DeviceTensor::upload checks its own bytes: (4, 4) float32 = 64 bytes; 60 given. The message names the upload,
  // not an input of a call (before: "input upload: ...").
  HostTensor cos = f32({4, 4});
  cos.data.resize(60);
  try {
    (void)DeviceTensor::upload(cos, onnx_kernel().device());
    FAIL() << "a short upload was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()), "DeviceTensor::upload: float32 shape [4, 4] needs 64 bytes of data, got 60");
  }
}

TEST(BadInputInputs, UploadToNullDevice) {
  // A null device is refused naming the upload (before: a null dereference, a crash; an outside user's finding).
  HostTensor cos = f32({4, 4});
  try {
    (void)DeviceTensor::upload(cos, nullptr);
    FAIL() << "an upload to a null device was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()), "DeviceTensor::upload: no device (a null std::shared_ptr<Device>)");
  }
}

TEST(BadInputInputs, NegativeDimension) {
  Call c = onnx_rank4();
  c.x.shape = {1, 2, -3, 8};
  expect_error([&] { run(onnx_kernel(), c); }, {"'x'", "negative", "[1, 2, -3, 8]"});
}

TEST(BadInputInputs, DeviceTensorWithWrongDtypeForT) {
  // A DeviceTensor input goes through the same signature checks as a host one.
  Call c = onnx_rank4();
  Inputs in = inputs_of(c);
  HostTensor cos16 = f16({4, 4});
  in.erase("cos");
  in.emplace("cos", DeviceTensor::upload(cos16, onnx_kernel().device()));
  expect_error([&] { (void)onnx_kernel()(in, {}).at("y").read(); }, {"cos", "float16", "float32"});
}

TEST(BadInputInputs, DevicePositionsPastCacheAreRefused) {
  // Device-resident positions are read back and range-checked like host ones (docs/kernel-conventions.md):
  // position 1,000,000 in a uint32 DeviceTensor is an error naming the input, the index and the bound,
  // never a gather from a cache row that does not exist. (GPU-side bounds safety on hostile WGSL is
  // tests/runtime/hostile_package_test.cpp's.)
  Call c = onnx_rank4();
  const Kernel& k = onnx_kernel();
  HostTensor pos_u32 = HostTensor::from(DType::kUInt32, {1, 3}, std::vector<std::uint32_t>{0, 1000000, 2});
  Inputs in = inputs_of(c);
  in.erase("positionIds");
  in.emplace("positionIds", DeviceTensor::upload(pos_u32, k.device()));
  expect_error([&] { (void)k(in, c.attrs); }, {"positionIds[1] = 1000000", "out of range", "dim(shapes.cos, 0) - 1"});
}

TEST(BadInputInputs, DevicePositionsRecheckedAgainstEachCallsCaches) {
  // The [min, max] a device tensor's buffer remembers (from its upload) is compared with each call's
  // own bound: ids {0, 3, 2} fit caches of 4 rows, and the same tensor with caches of 3 rows is refused
  // at index 1 (3 > 3 - 1).
  Call c = onnx_rank4();
  const Kernel& k = onnx_kernel();
  Inputs in = inputs_of(c);
  in.erase("positionIds");
  in.emplace("positionIds", DeviceTensor::upload(HostTensor::from(DType::kUInt32, {1, 3}, std::vector<std::uint32_t>{0, 3, 2}),
                                                 k.device()));
  EXPECT_NO_THROW((void)k(in, c.attrs));
  c.cos = f32({3, 4});
  c.sin = f32({3, 4});
  Inputs small = inputs_of(c);
  small.erase("positionIds");
  small.emplace("positionIds", in.at("positionIds"));
  expect_error([&] { (void)k(small, c.attrs); }, {"positionIds[1] = 3", "out of range", "[0, 2]"});
}

TEST(BadInputInputs, DeviceTensorViewPastItsBufferIsRefused) {
  // A view needing more bytes than its buffer's tensor holds would read padding or a pooled buffer's
  // stale bytes (found by a fresh-clone tester: ids {0} viewed as (1, 4) gathered rows from old data).
  const Kernel& k = onnx_kernel();
  DeviceTensor one = DeviceTensor::upload(HostTensor::from(DType::kUInt32, {1, 1}, std::vector<std::uint32_t>{0}), k.device());
  expect_error([&] { introspect::view(one, DType::kUInt32, {1, 4}); }, {"uint32", "[1, 4]", "needs 16 bytes", "holds 4"});
  expect_error([&] { introspect::view(one, DType::kUInt32, {1, -4}); }, {"negative"});
  EXPECT_NO_THROW(introspect::view(one, DType::kUInt32, {1}));
}

TEST(BadInputInputs, DefaultConstructedDeviceTensorIsNamedSo) {
  // Issue 15: a default-constructed DeviceTensor was reported as "rank 0 not allowed" (its empty shape went
  // to the planner); it is an empty tensor, and the message says so and how to get a real one.
  Call c = onnx_rank4();
  Inputs in = inputs_of(c);
  in.erase("x");
  in.emplace("x", DeviceTensor());
  expect_error([&] { (void)onnx_kernel()(in, c.attrs); }, {"input x", "an empty DeviceTensor", "DeviceTensor::upload"});
}

TEST(BadInputPositions, NegativeIsBelowZeroWithItsElementIndex) {
  // Issue 15: a negative position read as a "uint32 narrowing" failure with a flat index only. Position -1 at
  // flat index 4 of a (2, 3) table is element [1, 1]; the contract's range is [0, rows - 1] = [0, 3].
  Call c = ms_table();
  c.x = f32({2, 3, 16});
  c.pos = i64({2, 3}, {0, 1, 2, 0, -1, 2});
  expect_error([&] { run(ms_kernel(), c); },
               {"positionIds[4] = -1 (element [1, 1] of shape [2, 3])", "below 0", "[0, 3]"});
}

TEST(BadInputInputs, DeviceTensorWithoutBufferOrWithOverflowingBytesIsRefused) {
  // A second tester's findings: a zero-size view over no buffer crashed the call; shapes whose byte count
  // wraps past 2^64 (2^62 uint32 elements) passed the size checks and let a range past the cache through.
  const Kernel& k = onnx_kernel();
  DeviceTensor one = DeviceTensor::upload(HostTensor::from(DType::kUInt32, {4}, std::vector<std::uint32_t>{1, 2, 3, 4}), k.device());
  expect_error([&] { introspect::view(DeviceTensor(), DType::kFloat32, {1, 1, 0, 8}); }, {"no buffer"});
  expect_error([&] { introspect::view(one, DType::kUInt32, {std::int64_t{1} << 62}); }, {"[4611686018427387904]", "2^62 bytes"});
  Call c = onnx_rank4();
  c.cos = HostTensor{DType::kFloat32, {std::int64_t{1} << 60, 4}, {}};  // no data: 2^62 elements, 2^64 bytes
  c.sin = c.cos;
  expect_error([&] { run(onnx_kernel(), c); }, {"cos", "[1152921504606846976, 4]", "2^62 bytes"});
}

TEST(BadInputInputs, DeviceTensorPrefixViewReadsItsOwnBytes) {
  // read() of a view returns numel * dtype_size bytes, not its whole buffer.
  const Kernel& k = onnx_kernel();
  DeviceTensor four = DeviceTensor::upload(HostTensor::from(DType::kUInt32, {4}, std::vector<std::uint32_t>{7, 8, 9, 10}), k.device());
  HostTensor two = introspect::view(four, DType::kUInt32, {1, 2}).read();
  ASSERT_EQ(two.data.size(), 8u);
  EXPECT_EQ(two.element(0), 7);
  EXPECT_EQ(two.element(1), 8);
  EXPECT_EQ(introspect::view(four, DType::kUInt32, {0}).read().data.size(), 0u);
}

TEST(BadInputInputs, DevicePositionsRangeOfAPrefixViewIsNotRememberedForTheBuffer) {
  // A buffer without a recorded range, read through a prefix view {0, 1, 2}: that range must not stand for
  // the whole buffer, whose element 3 (= 9) is past a 4-row cache.
  const Kernel& k = onnx_kernel();
  DeviceTensor all = DeviceTensor::upload(HostTensor::from(DType::kUInt32, {1, 4}, std::vector<std::uint32_t>{0, 1, 2, 9}), k.device());
  introspect::forget_range(all);
  Call c = onnx_rank4();  // sequence 3, caches of 4 rows
  Inputs in = inputs_of(c);
  in.erase("positionIds");
  in.emplace("positionIds", introspect::view(all, DType::kUInt32, {1, 3}));
  EXPECT_NO_THROW((void)k(in, c.attrs));
  c.x = f32({1, 2, 4, 8});
  Inputs longer = inputs_of(c);
  longer.erase("positionIds");
  longer.emplace("positionIds", all);
  expect_error([&] { (void)k(longer, c.attrs); }, {"positionIds[3] = 9", "out of range"});
}

TEST(BadInputInputs, DevicePositionsWithoutARecordedRangeAreReadBack) {
  // A tensor whose range is not known (as for ids a GPU kernel wrote) is read back and checked.
  Call c = onnx_rank4();
  const Kernel& k = onnx_kernel();
  DeviceTensor ids = DeviceTensor::upload(HostTensor::from(DType::kUInt32, {1, 3}, std::vector<std::uint32_t>{0, 9, 2}), k.device());
  introspect::forget_range(ids);
  Inputs in = inputs_of(c);
  in.erase("positionIds");
  in.emplace("positionIds", ids);
  expect_error([&] { (void)k(in, c.attrs); }, {"positionIds[1] = 9", "out of range"});
  const auto remembered = introspect::recorded_range(ids);  // remembered for the next call
  ASSERT_TRUE(remembered.has_value());
  EXPECT_EQ(remembered->first, 0);
  EXPECT_EQ(remembered->second, 9);
}

}  // namespace
}  // namespace wgk::testing
