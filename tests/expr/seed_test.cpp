// Every expression of the seed manifests (004: current format, 000: legacy) parses, and evaluates on
// hand-worked calls to the values derived by hand in the comments (Python semantics: `/` is true
// division, so `numel(shapes.x) / 8` is a float; 8.0 == 8).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "expr/expression.h"
#include "seed_manifests.h"
#include "wgk/error.h"

namespace wgk::expr {
namespace {

using testing::Call;
using testing::DeriveScope;

TEST(SeedManifests, EveryExpressionParses) {
  for (const char* seed : {"004", "000"}) {
    auto m = testing::load_seed(seed);
    auto exprs = testing::seed_expressions(m);
    // 004: 16 derive + 2 output + 29 struct values (7+6+8+7+1) + 44 when (4 groups of 3+2+6) + 24
    // variant derive + 6 pass derive strings (hasPositionIds) + 24 dispatch strings (x, y) = 145.
    // 000: 6 derive + 2 output + 26 struct values (7+6+6+7) + 8 when + 12 constants + 2 source
    // inputs + 8 dispatch strings (threads, workgroupSize) = 64.
    EXPECT_EQ(exprs.size(), std::string(seed) == "004" ? 145u : 64u) << seed;
    for (const auto& [path, text] : exprs) {
      EXPECT_NO_THROW(Expression::parse(text, path)) << seed << " " << path << ": " << text;
    }
  }
}

// Evaluates the manifest derive of seed `seed` over `call` and checks the listed values.
struct Evaluated {
  nlohmann::json manifest;
  std::map<std::string, Expression, std::less<>> derive;
  ObjectScope base;
  DeriveScope scope;
  Evaluated(const char* seed, const Call& call)
      : manifest(testing::load_seed(seed)),
        derive(testing::parse_derive(manifest["derive"], "derive")),
        base(testing::call_scope(call)),
        scope(derive, base) {}
  Value operator()(const std::string& text) const { return Expression::parse(text, "t").evaluate(scope); }
  Value struct_value(const std::string& binding, const std::string& field) const {
    for (const auto& f : manifest["bindings"][binding]["struct"]) {
      if (f["name"] == field) return (*this)(f["value"].get<std::string>());
    }
    throw std::runtime_error("no field " + field);
  }
  // Evaluates a variant's `derive` and `dispatch` in its layered scope.
  const nlohmann::json& variant(const std::string& id) const {
    for (const auto& v : manifest["variants"]) {
      if (v["id"] == id) return v;
    }
    throw std::runtime_error("no variant " + id);
  }
};

void expect_value(const Value& got, const Value& want, const std::string& what) {
  EXPECT_EQ(got.type_name(), want.type_name()) << what << " = " << got.repr();
  EXPECT_EQ(got, want) << what << " = " << got.repr();
}

TEST(Seed004, Rank4WithPositionIds) {
  // x = (2, 4, 3, 8): batch 2, 4 heads, 3 tokens, head size 8; cos = sin = (50, 4) (max 50
  // positions, 4 rotation pairs = head size / 2); position_ids (2, 3); f32; num_heads absent.
  Call c{.x = {2, 4, 3, 8}, .cos = {50, 4}, .sin = {50, 4}, .position_ids = std::vector<std::int64_t>{2, 3}};
  Evaluated e("004", c);
  // numel = 2*4*3*8 = 192; ceilDiv(192 / 2 = 96.0, 256) = 1 <= 65535 * 65535.
  expect_value(e("pairDispatchOk"), true, "pairDispatchOk");
  // num_heads undefined: `attrs.num_heads is defined` is False, so the else branch, 0.
  expect_value(e("rank3HeadSize"), 0, "rank3HeadSize");
  expect_value(e("rank3Contract"), false, "rank3Contract");  // ranks.x == 3 fails
  expect_value(e("rank4Contract"), false, "rank4Contract");  // ranks.cos == 3 fails (cos is rank 2)
  expect_value(e("rank3PosContract"), false, "rank3PosContract");
  // rank 4, cos/sin rank 2, 8 % 2 == 0, rotary dim 0, dim(cos, 1) * 2 = 8 == dim(x, 3) = 8, shapes
  // equal, positionIds present, (2, 3) == (dim(x, 0), dim(x, 2)) = (2, 3): the last conjunct, True.
  expect_value(e("rank4PosContract"), true, "rank4PosContract");
  expect_value(e("quadCacheOk"), true, "quadCacheOk");  // dim(cos, 1) = 4, 4 % 4 == 0
  expect_value(e("quad3Ok"), true, "quad3Ok");          // rank3HeadSize = 0, 0 % 8 == 0
  expect_value(e("quad4Ok"), true, "quad4Ok");          // 8 % 8 == 0
  expect_value(e("quadOk"), true, "quadOk");            // ranks.x != 3: quad4Ok
  expect_value(e("quadDispatchOk"), true, "quadDispatchOk");  // ceilDiv(24.0, 256) = 1
  expect_value(e("headElements"), 8, "headElements");   // dim(x, 3)
  expect_value(e("headCount"), 4, "headCount");         // dim(x, 1)
  expect_value(e("tokenCount"), 3, "tokenCount");       // dim(x, 2)
  expect_value(e("rotationPairs"), 4, "rotationPairs"); // dim(cos, -1)
  expect_value(e("rotaryOutputWg"), 256, "rotaryOutputWg");  // max(1, min(256, 256, 256))
  // Variants holding: rank4_cache2_pos_quad (10) and rank4_cache2_pos (0); output_vec4 (20) fails
  // on rotationPairs % 4 != 0 (4 % 4 = 0).
  EXPECT_EQ(testing::select_variant(e.manifest, e.scope), "rank4_cache2_pos_quad");
  // params_quad: 192 / 8 = 24.0; headElements / 4 = 2.0; / 8 = 1.0; rotationPairs / 2 = 2.0; / 4 = 1.0.
  expect_value(e.struct_value("params_quad", "quadCount"), 24.0, "quadCount");
  expect_value(e.struct_value("params_quad", "numHeads"), 4, "numHeads");
  expect_value(e.struct_value("params_quad", "sequenceLength"), 3, "sequenceLength");
  expect_value(e.struct_value("params_quad", "headVec4"), 2.0, "headVec4");
  expect_value(e.struct_value("params_quad", "headQuads"), 1.0, "headQuads");
  expect_value(e.struct_value("params_quad", "rotaryVec4"), 2.0, "rotaryVec4");
  expect_value(e.struct_value("params_quad", "halfRotaryVec4"), 1.0, "halfRotaryVec4");
  // Dispatch of the quad variant: x = min(ceilDiv(24.0, 256) = 1, 65535) = 1; y = ceilDiv(1, 65535) = 1.
  const auto& v = e.variant("rank4_cache2_pos_quad");
  expect_value(e(v["passes"][0]["dispatch"]["x"].get<std::string>()), 1, "dispatch.x");
  expect_value(e(v["passes"][0]["dispatch"]["y"].get<std::string>()), 1, "dispatch.y");
  expect_value(e(v["derive"]["interleaved"].get<std::string>()), false, "interleaved");  // 0 != 0
  expect_value(e(v["derive"]["vector"].get<std::string>()), "vec4<f32>", "vector");
  expect_value(e(e.manifest["outputs"]["y"]["rank"].get<std::string>()), 4, "outputs.y.rank");
  expect_value(e(e.manifest["outputs"]["y"]["shape"].get<std::string>()), List{2, 4, 3, 8}, "outputs.y.shape");
}

TEST(Seed004, Rank3NumHeads4WithoutPositionIds) {
  // x = (2, 3, 32), num_heads = 4: head size 32 / 4 = 8.0; cos = sin = (2, 3, 4) (batch, tokens,
  // rotary_dim / 2 = 8 / 2).
  Call c{.x = {2, 3, 32}, .cos = {2, 3, 4}, .sin = {2, 3, 4}, .num_heads = 4};
  Evaluated e("004", c);
  expect_value(e("rank3HeadSize"), 8.0, "rank3HeadSize");  // true division: a float
  // 32 % 4 == 0; 8.0 % 2 == 0.0 == 0; dim(cos, 2) * 2 = 8 == 8.0; cos (2, 3) == x (2, 3); not False.
  expect_value(e("rank3Contract"), true, "rank3Contract");
  expect_value(e("rank4Contract"), false, "rank4Contract");
  expect_value(e("rank3PosContract"), false, "rank3PosContract");  // ranks.cos == 2 fails
  expect_value(e("rank4PosContract"), false, "rank4PosContract");
  expect_value(e("quadCacheOk"), true, "quadCacheOk");  // dim(cos, 2) = 4
  expect_value(e("quad3Ok"), true, "quad3Ok");          // 8.0 % 8 == 0
  expect_value(e("quad4Ok"), false, "quad4Ok");         // ranks.x == 4 fails
  expect_value(e("quadOk"), true, "quadOk");
  expect_value(e("headElements"), 8.0, "headElements");  // rank3HeadSize, still a float
  expect_value(e("headCount"), 4, "headCount");          // attrs.num_heads
  expect_value(e("tokenCount"), 3, "tokenCount");        // dim(x, 1)
  expect_value(e("rotationPairs"), 4, "rotationPairs");
  EXPECT_EQ(testing::select_variant(e.manifest, e.scope), "rank3_cache3_quad");
  // cacheBatchStrideVec4 = 3 * 4 / 4 = 3.0; headVec4 = 8.0 / 4 = 2.0.
  expect_value(e.struct_value("params_quad_cache3", "cacheBatchStrideVec4"), 3.0, "cacheBatchStrideVec4");
  expect_value(e.struct_value("params_quad_cache3", "headVec4"), 2.0, "headVec4");
  expect_value(e.struct_value("params_pair_cache3", "cacheBatchStride"), 12, "cacheBatchStride");  // 3 * 4
  expect_value(e.struct_value("params_pair_cache3", "pairCount"), 96.0, "pairCount");  // 192 / 2
}

TEST(Seed004, PartialRotation) {
  // x = (2, 4, 3, 8), rotary_embedding_dim = 4: cos = sin = (50, 2); positions (2, 3).
  Call c{.x = {2, 4, 3, 8}, .cos = {50, 2}, .sin = {50, 2}, .position_ids = std::vector<std::int64_t>{2, 3},
         .rotary_embedding_dim = 4};
  Evaluated e("004", c);
  // (4 == 0 or 4 <= 8); dim(cos, 1) * 2 = 4 == 4 (the rotary dim, being != 0).
  expect_value(e("rank4PosContract"), true, "rank4PosContract");
  expect_value(e("quadCacheOk"), false, "quadCacheOk");  // 2 % 4 = 2
  expect_value(e("quadOk"), false, "quadOk");
  expect_value(e("rotationPairs"), 2, "rotationPairs");
  // output_vec4 (20): 8 > 0, 8 % 4 == 0, 2 % 4 != 0, interleaved 0, ceilDiv(48.0, 256) = 1: holds.
  EXPECT_EQ(testing::select_variant(e.manifest, e.scope), "rank4_cache2_pos_output_vec4");
  expect_value(e.struct_value("output_vec_params", "quadCount"), 48.0, "quadCount");  // 192 / 4
  const auto& v = e.variant("rank4_cache2_pos_output_vec4");
  expect_value(e(v["passes"][0]["dispatch"]["x"].get<std::string>()), 1, "dispatch.x");  // min(ceilDiv(48.0, 256), 65535)
  expect_value(e(v["derive"]["scalar"].get<std::string>()), "f32", "scalar");
}

TEST(Seed004, Rank4NoPositionIdsCosRank3) {
  // x = (2, 4, 3, 8), cos = sin = (2, 3, 4) (batch, tokens, pairs), no position_ids.
  Call c{.x = {2, 4, 3, 8}, .cos = {2, 3, 4}, .sin = {2, 3, 4}};
  Evaluated e("004", c);
  // dim(cos, 2) * 2 = 8 == 8; (2, 3) match (dim(x, 0), dim(x, 2)); not present.positionIds.
  expect_value(e("rank4Contract"), true, "rank4Contract");
  // Short-circuits at ranks.cos == 2 before reading the undefined ranks.positionIds.
  expect_value(e("rank4PosContract"), false, "rank4PosContract");
  expect_value(e("quadCacheOk"), true, "quadCacheOk");  // dim(cos, 2) = 4
  EXPECT_EQ(testing::select_variant(e.manifest, e.scope), "rank4_cache3_quad");
  expect_value(e.struct_value("params_quad_cache3", "cacheBatchStrideVec4"), 3.0, "cacheBatchStrideVec4");  // 3*4/4
  expect_value(e("ranks.positionIds is defined"), false, "ranks.positionIds is defined");
}

TEST(Seed004, F16WithoutShaderF16SelectsNothingAndExplainsWhy) {
  Call c{.x = {2, 4, 3, 8}, .cos = {50, 4}, .sin = {50, 4}, .position_ids = std::vector<std::int64_t>{2, 3},
         .T = "f16", .shader_f16 = false};
  Evaluated e("004", c);
  for (const char* contract : {"rank3Contract", "rank4Contract", "rank3PosContract", "rank4PosContract"}) {
    expect_value(e(contract), false, contract);  // f16Ok('f16') is False without shader-f16
  }
  EXPECT_EQ(testing::select_variant(e.manifest, e.scope), "");
  auto resolve = [&](std::string_view name) -> const Expression* {
    auto it = e.derive.find(name);
    return it == e.derive.end() ? nullptr : &it->second;
  };
  EXPECT_EQ(Expression::parse("rank4PosContract", "when[0]").explain(e.scope, resolve),
            "rank4PosContract: f16Ok(dtypes.T) is false: dtypes.T = 'f16', device.features.shader_f16 = False");
  expect_value(e("\"vec4<\" ~ dtypes.T ~ \">\""), "vec4<f16>", "vector");
}

TEST(Seed000, LegacyRank4WithPositionIds) {
  // Seed 000 names inputs by their ONNX names (X, cos_cache, position_ids); same call as above.
  Call c{.x = {2, 4, 3, 8}, .cos = {50, 4}, .sin = {50, 4}, .position_ids = std::vector<std::int64_t>{2, 3}};
  Evaluated e("000", c);
  expect_value(e("pairDispatchOk"), true, "pairDispatchOk");  // 1 <= 65535 * 65535
  expect_value(e("rank4PosContract"), true, "rank4PosContract");
  expect_value(e("rank4Contract"), false, "rank4Contract");
  EXPECT_EQ(testing::select_variant(e.manifest, e.scope), "rank4_cache2_pos");
  // bindingSets.rank4Pos params: pairCount 192 / 2 = 96.0, headSize dim(X, 3) = 8, rotaryDim 4 * 2 = 8.
  const auto& fields = e.manifest["bindingSets"]["rank4Pos"][5]["struct"]["fields"];
  expect_value(e(fields[0]["value"].get<std::string>()), 96.0, "pairCount");
  expect_value(e(fields[3]["value"].get<std::string>()), 8, "headSize");
  expect_value(e(fields[4]["value"].get<std::string>()), 8, "rotaryDim");
  // Legacy 1-D dispatch: threads = 96.0, workgroupSize = 256; constants.usesF16 = 'f32' == 'f16'.
  expect_value(e("numel(shapes.X) / 2"), 96.0, "threads");
  expect_value(e("dtypes.T == \"f16\""), false, "usesF16");
}

TEST(Seed004, Rank3MissingNumHeadsIsNotAnError) {
  // ONNX requires num_heads for rank 3; the contract says so by being false, not by throwing.
  Call c{.x = {2, 3, 32}, .cos = {2, 3, 4}, .sin = {2, 3, 4}};
  Evaluated e("004", c);
  expect_value(e("rank3HeadSize"), 0, "rank3HeadSize");
  expect_value(e("rank3Contract"), false, "rank3Contract");  // `attrs.num_heads is defined` fails
  expect_value(e("headCount"), Value(), "headCount");  // attrs.num_heads: Undefined itself
  EXPECT_THROW(e("headCount + 0"), Error);            // ... and an error when used
}

}  // namespace
}  // namespace wgk::expr
