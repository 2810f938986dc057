// Planner on both seed manifests: variant selection over a grid of signatures (expected ids worked out
// by hand from the seeds' `when` clauses), uniform bytes and dispatch sizes computed by hand, boundary
// errors, generated WGSL declarations (docs/kernel-conventions.md), the plan cache.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "wgk/error.h"

namespace wgk::plan {
namespace {

using namespace wgk::contract;

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const std::string kSeed004 = std::string(WGK_SHARED_DIR) + "/seeds/004_ded27aa6d1102877.manifest.json";
const std::string kSeed000 = std::string(WGK_SHARED_DIR) + "/seeds/000_77f1e8aecd9ac6c6.manifest.json";

std::shared_ptr<const Contract> load(const std::string& path) {
  return std::make_shared<const Contract>(load_contract(read_text(path), path));
}

// Tiny fake templates (tests/plan/data/): one comment line naming the file and a few scope values.
Planner::TemplateSource fake_templates() {
  return [](const std::string& file) {
    return read_text(std::string(WGK_SOURCE_DIR) + "/tests/plan/data/" + file);
  };
}

struct Sig {
  DType t = DType::kFloat32;
  Shape x, cos;
  std::optional<Shape> pos;
  std::vector<std::pair<std::string, expr::Value>> attrs;
};

CallSignature call_of(const Sig& s) {
  CallSignature c;
  c.inputs["x"] = {s.t, s.x};
  c.inputs["cos"] = {s.t, s.cos};
  c.inputs["sin"] = {s.t, s.cos};
  if (s.pos) c.inputs["positionIds"] = {DType::kInt64, *s.pos};
  for (const auto& [k, v] : s.attrs) c.attrs[k] = v;
  return c;
}

std::string error_of(const std::function<void()>& f, ErrorKind kind = ErrorKind::kInvalidArgument) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no wgk::Error thrown";
  return {};
}

struct Row {
  const char* what;
  Sig sig;
  const char* device;
  const char* id004;  // "" = no variant
  const char* id000;
};

// Expected variants, by hand from the clauses. Seed 004 abbreviations: R4 = rank4Contract (x rank 4,
// cos/sin rank 3 = (batch, seq, rot/2), no positionIds), R4P = rank4PosContract (cos/sin rank 2 =
// (maxSeq, rot/2), positionIds (batch, seq)), R3/R3P the same for rank 3 with num_heads. Then among
// the variants of that contract: output_vec4 (priority 20) needs headElements % 4 == 0, rotationPairs
// (= cos's last dim) % 4 != 0 and interleaved == 0; quad (priority 10) needs head size % 8 == 0 and
// cos's last dim % 4 == 0; the pair variant (priority 0) needs only the contract. Seed 000 has only the
// pair variants, with the same contracts: its choice is the prefix of seed 004's id.
const std::vector<Row>& grid() {
  static const std::vector<Row> rows = {
      // head 8, rotationPairs 4: quad (8 % 8 == 0, 4 % 4 == 0); output_vec4 refused (4 % 4 == 0).
      {"r4 cache3 head8", {DType::kFloat32, {2, 4, 3, 8}, {2, 3, 4}}, "lavapipe", "rank4_cache3_quad", "rank4_cache3"},
      {"r4 cache3 head8 interleaved",
       {DType::kFloat32, {2, 4, 3, 8}, {2, 3, 4}, {}, {{"interleaved", 1}}}, "webgpu-default", "rank4_cache3_quad",
       "rank4_cache3"},
      // head 6: 6 % 8 != 0 (no quad), 6 % 4 != 0 (no output_vec4): pair.
      {"r4 cache3 head6", {DType::kFloat32, {1, 2, 3, 6}, {1, 3, 3}}, "lavapipe", "rank4_cache3", "rank4_cache3"},
      // head 64, rotary_embedding_dim 24: cos last dim 12 = 24 / 2; quad (64 % 8, 12 % 4 == 0).
      {"r4 cache3 head64 rot24",
       {DType::kFloat32, {1, 2, 5, 64}, {1, 5, 12}, {}, {{"rotary_embedding_dim", 24}}}, "lavapipe",
       "rank4_cache3_quad", "rank4_cache3"},
      // head 64, rotary 20: rotationPairs 10 (10 % 4 == 2): no quad; output_vec4 (64 % 4 == 0, 10 % 4 != 0).
      {"r4 cache3 head64 rot20",
       {DType::kFloat32, {1, 2, 5, 64}, {1, 5, 10}, {}, {{"rotary_embedding_dim", 20}}}, "lavapipe",
       "rank4_cache3_output_vec4", "rank4_cache3"},
      // the same interleaved: output_vec4 needs interleaved == 0, quad needs 10 % 4 == 0: pair.
      {"r4 cache3 head64 rot20 interleaved",
       {DType::kFloat32, {1, 2, 5, 64}, {1, 5, 10}, {}, {{"rotary_embedding_dim", 20}, {"interleaved", 1}}},
       "lavapipe", "rank4_cache3", "rank4_cache3"},
      // positionIds (2, 3) = (batch, seq), cos (50, 4): R4P; quad (8 % 8, 4 % 4).
      {"r4 pos head8 interleaved",
       {DType::kFloat32, {2, 4, 3, 8}, {50, 4}, Shape{2, 3}, {{"interleaved", 1}}}, "lavapipe",
       "rank4_cache2_pos_quad", "rank4_cache2_pos"},
      // head 96 with positions: rotationPairs 48 (48 % 4 == 0): quad.
      {"r4 pos head96", {DType::kFloat32, {1, 3, 7, 96}, {64, 48}, Shape{1, 7}}, "h200", "rank4_cache2_pos_quad",
       "rank4_cache2_pos"},
      // head 96, rotary 36: rotationPairs 18 (18 % 4 == 2): output_vec4.
      {"r4 pos head96 rot36",
       {DType::kFloat32, {1, 3, 7, 96}, {64, 18}, Shape{1, 7}, {{"rotary_embedding_dim", 36}}}, "h200",
       "rank4_cache2_pos_output_vec4", "rank4_cache2_pos"},
      // rank 3, hidden 32, num_heads 4: head size 32 / 4 = 8.0; cos (50, 4): R3P; quad3Ok (8.0 % 8 == 0).
      {"r3 pos head8",
       {DType::kFloat32, {2, 3, 32}, {50, 4}, Shape{2, 3}, {{"num_heads", 4}}}, "lavapipe", "rank3_cache2_pos_quad",
       "rank3_cache2_pos"},
      // rank 3, hidden 12, num_heads 2: head 6: pair.
      {"r3 pos head6",
       {DType::kFloat32, {2, 3, 12}, {50, 3}, Shape{2, 3}, {{"num_heads", 2}}}, "lavapipe", "rank3_cache2_pos",
       "rank3_cache2_pos"},
      // rank 3 without positions, hidden 192, 2 heads of 96, cos (1, 4, 48): R3; quad.
      {"r3 cache3 head96",
       {DType::kFloat32, {1, 4, 192}, {1, 4, 48}, {}, {{"num_heads", 2}}}, "lavapipe", "rank3_cache3_quad",
       "rank3_cache3"},
      // rank 3 without positions, 2 heads of 64, rotary 40: rotationPairs 20 (20 % 4 == 0, 64 % 8 == 0): quad.
      {"r3 cache3 head64 rot40",
       {DType::kFloat32, {1, 4, 128}, {1, 4, 20}, {}, {{"num_heads", 2}, {"rotary_embedding_dim", 40}}}, "lavapipe",
       "rank3_cache3_quad", "rank3_cache3"},
      // rank 3, 2 heads of 8, rotary 4: rotationPairs 2: no quad (2 % 4), output_vec4 (8 % 4 == 0, 2 % 4 != 0).
      {"r3 cache3 head8 rot4",
       {DType::kFloat32, {1, 4, 16}, {1, 4, 2}, {}, {{"num_heads", 2}, {"rotary_embedding_dim", 4}}}, "lavapipe",
       "rank3_cache3_output_vec4", "rank3_cache3"},
      // f16 on lavapipe (shader-f16): as f32.
      {"r4 cache3 head8 f16 lavapipe", {DType::kFloat16, {2, 4, 3, 8}, {2, 3, 4}}, "lavapipe", "rank4_cache3_quad",
       "rank4_cache3"},
      // f16 without shader-f16: f16Ok(dtypes.T) is the first conjunct of every contract: no variant.
      {"r4 cache3 head8 f16 h200", {DType::kFloat16, {2, 4, 3, 8}, {2, 3, 4}}, "h200", "", ""},
      {"r3 pos f16 webgpu-default",
       {DType::kFloat16, {2, 3, 32}, {50, 4}, Shape{2, 3}, {{"num_heads", 4}}}, "webgpu-default", "", ""},
      // 2^24 pairs (> 65535 * 256): head 2, rotationPairs 1: pair only; pairDispatchOk: 65536 groups <= 65535^2.
      {"r4 pos 2^24 pairs", {DType::kFloat32, {1, 1, 16777216, 2}, {16777216, 1}, Shape{1, 16777216}}, "lavapipe",
       "rank4_cache2_pos", "rank4_cache2_pos"},
      // cos batch 3 != x batch 2: R4 fails; no variant.
      {"r4 cache3 batch mismatch", {DType::kFloat32, {2, 4, 3, 8}, {3, 3, 4}}, "lavapipe", "", ""},
  };
  return rows;
}

TEST(PlanSelect, GridOnBothSeeds) {
  auto c004 = load(kSeed004);
  auto c000 = load(kSeed000);
  for (const Row& row : grid()) {
    const DeviceCaps device = *DeviceCaps::preset(row.device);
    Planner p004(c004, device, fake_templates());
    Planner p000(c000, device, fake_templates());
    const Selection s004 = p004.select(call_of(row.sig));
    const Selection s000 = p000.select(call_of(row.sig));
    EXPECT_EQ(s004.variant ? s004.variant->id : "", row.id004) << row.what << ": " << s004.failure;
    EXPECT_EQ(s000.variant ? s000.variant->id : "", row.id000) << row.what << ": " << s000.failure;
  }
}

TEST(PlanSelect, NoVariantNamesClosestClauseAndSignature) {
  // rank 3 with positions but no num_heads: rank3PosContract fails at `attrs.num_heads is defined`.
  // Every variant fails its first clause; the closest is the first of the highest priority (20):
  // rank3_cache2_pos_output_vec4.
  Planner p(load(kSeed004), DeviceCaps::lavapipe(), fake_templates());
  const std::string msg = error_of([&] { p.plan(call_of({DType::kFloat32, {2, 3, 32}, {50, 4}, Shape{2, 3}})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("no variant of ai.onnx.RotaryEmbedding accepts these inputs"),
                         HasSubstr("x: float32[2, 3, 32]"), HasSubstr("positionIds: int64[2, 3]"),
                         HasSubstr("num_heads=undefined"), HasSubstr("closest variant rank3_cache2_pos_output_vec4"),
                         HasSubstr("rank3PosContract"), HasSubstr("num_heads is defined")));
}

TEST(PlanSelect, F16WithoutShaderF16ExplainsF16Ok) {
  Planner p(load(kSeed004), DeviceCaps::h200(), fake_templates());
  const Selection s = p.select(call_of({DType::kFloat16, {2, 4, 3, 8}, {2, 3, 4}}));
  ASSERT_EQ(s.variant, nullptr);
  EXPECT_THAT(s.failure, HasSubstr("f16Ok(dtypes.T)"));
}

TEST(PlanUniform, QuadParamsBytesAndDispatch) {
  // x (2, 4, 3, 8), cos (50, 4), positionIds (2, 3): rank4_cache2_pos_quad, params_quad:
  // quadCount = 192 / 8 = 24, numHeads = dim(x, 1) = 4, sequenceLength = dim(x, 2) = 3,
  // headVec4 = 8 / 4 = 2, headQuads = 8 / 8 = 1, rotaryVec4 = 4 / 2 = 2, halfRotaryVec4 = 4 / 4 = 1:
  // 7 u32 = 28 bytes, padded to 32. Dispatch: ceilDiv(24, 256) = 1 group: (1, 1, 1).
  Planner p(load(kSeed004), DeviceCaps::lavapipe(), fake_templates());
  auto plan = p.plan(call_of({DType::kFloat32, {2, 4, 3, 8}, {50, 4}, Shape{2, 3}, {{"interleaved", 1}}}));
  ASSERT_EQ(plan->variant->id, "rank4_cache2_pos_quad");
  ASSERT_EQ(plan->passes.size(), 1u);
  const PlannedPass& pass = plan->passes[0];
  ASSERT_EQ(pass.bindings.size(), 6u);
  const std::vector<std::uint32_t> words = {24, 4, 3, 2, 1, 2, 1, 0};
  std::vector<std::byte> expected(32);
  std::memcpy(expected.data(), words.data(), 32);
  EXPECT_EQ(pass.bindings[5].uniform, expected);
  EXPECT_EQ(pass.bindings[5].slot, 5u);
  EXPECT_EQ(pass.workgroups, (std::array<std::uint32_t, 3>{1, 1, 1}));
  ASSERT_EQ(plan->outputs.size(), 1u);
  EXPECT_EQ(plan->outputs[0].name, "y");
  EXPECT_EQ(plan->outputs[0].shape, (Shape{2, 4, 3, 8}));
  EXPECT_EQ(plan->outputs[0].dtype, DType::kFloat32);
}

TEST(PlanUniform, LargeDispatchSplitsOnBothSeeds) {
  // x (1, 1, 2^24, 2), cos (2^24, 1): 2^24 pairs, one per thread, 256 a group: 65536 groups.
  // x = min(65536, 65535) = 65535, y = ceilDiv(65536, 65535) = 2, z = 1.
  // params_pair: pairCount 2^24 = 16777216, numHeads dim(x,1) = 1, sequenceLength dim(x,2) = 16777216,
  // headSize 2, rotaryDim 2 * 1 = 2, halfRotaryDim 1: 24 bytes, padded to 32 (same fields in seed 000's rank4Pos).
  const Sig sig{DType::kFloat32, {1, 1, 16777216, 2}, {16777216, 1}, Shape{1, 16777216}};
  const std::vector<std::uint32_t> words = {16777216, 1, 16777216, 2, 2, 1, 0, 0};
  std::vector<std::byte> expected(32);
  std::memcpy(expected.data(), words.data(), 32);
  for (const auto& seed : {kSeed004, kSeed000}) {
    Planner p(load(seed), DeviceCaps::lavapipe(), fake_templates());
    auto plan = p.plan(call_of(sig));
    EXPECT_EQ(plan->variant->id, "rank4_cache2_pos") << seed;
    EXPECT_EQ(plan->passes.at(0).workgroups, (std::array<std::uint32_t, 3>{65535, 2, 1})) << seed;
    EXPECT_EQ(plan->passes.at(0).bindings.back().uniform, expected) << seed;
  }
}

TEST(PlanWgsl, GeneratedDeclarationsThenTemplate) {
  Planner p(load(kSeed004), DeviceCaps::lavapipe(), fake_templates());
  auto plan = p.plan(call_of({DType::kFloat32, {2, 4, 3, 8}, {50, 4}, Shape{2, 3}, {{"interleaved", 1}}}));
  // docs/kernel-conventions.md: one declaration per binding, in pass order; outputs read_write; the
  // uniform struct (fields in manifest order) before its var; then the template (rank 4 from the pass
  // derive, interleaved from the variant derive `attrs.interleaved != 0` printed as Python's True).
  const std::string expected =
      "@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;\n"
      "@group(0) @binding(1) var<storage, read> cos_cache: array<vec4<f32>>;\n"
      "@group(0) @binding(2) var<storage, read> sin_cache: array<vec4<f32>>;\n"
      "@group(0) @binding(3) var<storage, read> position_ids: array<u32>;\n"
      "@group(0) @binding(4) var<storage, read_write> y: array<vec4<f32>>;\n"
      "struct Params { quadCount: u32, numHeads: u32, sequenceLength: u32, headVec4: u32, headQuads: u32, "
      "rotaryVec4: u32, halfRotaryVec4: u32 }\n"
      "@group(0) @binding(5) var<uniform> params: Params;\n"
      "// rotary-embedding-quad f32 rank=4 interleaved=True wg=256";  // the fake template has no final newline
  EXPECT_EQ(plan->passes.at(0).program->wgsl, expected);
}

TEST(PlanWgsl, F16EnablesF16) {
  Planner p(load(kSeed004), DeviceCaps::lavapipe(), fake_templates());
  auto plan = p.plan(call_of({DType::kFloat16, {1, 2, 3, 6}, {1, 3, 3}}));
  ASSERT_EQ(plan->variant->id, "rank4_cache3");  // head 6: pair, elementType $T = f16
  const std::string& wgsl = plan->passes.at(0).program->wgsl;
  EXPECT_EQ(wgsl.rfind("enable f16;\n", 0), 0u) << wgsl;
  EXPECT_THAT(wgsl, HasSubstr("@group(0) @binding(0) var<storage, read> x: array<f16>;"));
  EXPECT_THAT(wgsl, HasSubstr("// rotary-embedding f16 rank=4 interleaved=False wg=256"));
}

TEST(PlanWgsl, PackageTemplatesRenderForEveryVariantFamily) {
  // The ai.onnx package in kernels/ (its own templates): every signature of the grid that has a variant
  // on seed 004 renders a WGSL module that starts with the generated declarations and has an entry point.
  for (const char* pkg : {"ai.onnx.RotaryEmbedding"}) {
    const std::string dir = std::string(WGK_SOURCE_DIR) + "/kernels/" + pkg + "/build/webgpu/";
    auto contract = std::make_shared<const Contract>(load_contract_file(dir + "manifest.json"));
    for (const char* device : {"lavapipe", "h200"}) {
      Planner p(contract, *DeviceCaps::preset(device), [dir](const std::string& f) { return read_text(dir + f); });
      for (const Row& row : grid()) {
        if (std::string(row.id004).empty()) continue;
        std::shared_ptr<const Plan> plan;
        try {
          plan = p.plan(call_of(row.sig));
        } catch (const Error& e) {
          ADD_FAILURE() << pkg << " " << device << " " << row.what << ": " << e.what();
          continue;
        }
        for (const auto& pass : plan->passes) {
          EXPECT_EQ(pass.program->wgsl.rfind("@group(0) @binding(0)", 0) == 0 || pass.program->wgsl.rfind("enable f16;", 0) == 0, true)
              << pkg << " " << row.what;
          EXPECT_THAT(pass.program->wgsl, HasSubstr("@compute")) << pkg << " " << row.what;
        }
      }
    }
  }
}

TEST(PlanBoundary, Errors) {
  Planner p(load(kSeed004), DeviceCaps::lavapipe(), fake_templates());
  const Sig ok{DType::kFloat32, {2, 4, 3, 8}, {50, 4}, Shape{2, 3}};

  CallSignature c = call_of(ok);
  c.inputs["query"] = {DType::kFloat32, {1}};
  EXPECT_THAT(error_of([&] { p.select(c); }),
              AllOf(HasSubstr("unknown input 'query'"), HasSubstr("x (X)"), HasSubstr("cos (cos_cache)"),
                    HasSubstr("positionIds (position_ids) [optional]")));

  c = call_of(ok);
  c.inputs.erase("x");
  EXPECT_THAT(error_of([&] { p.select(c); }), AllOf(HasSubstr("missing required input 'x' (X)"), HasSubstr("sin (sin_cache)")));

  c = call_of(ok);
  c.inputs["cos"].dtype = DType::kFloat16;
  EXPECT_THAT(error_of([&] { p.select(c); }),
              AllOf(HasSubstr("'x' (X)"), HasSubstr("'cos' (cos_cache)"), HasSubstr("same type T"),
                    HasSubstr("x is float32"), HasSubstr("cos is float16")));

  c = call_of(ok);
  c.inputs["x"].dtype = DType::kInt64;
  EXPECT_THAT(error_of([&] { p.select(c); }),
              AllOf(HasSubstr("'x' (X)"), HasSubstr("int64"), HasSubstr("allowed: float32, float16")));

  c = call_of(ok);
  c.inputs["positionIds"].dtype = DType::kFloat32;
  EXPECT_THAT(error_of([&] { p.select(c); }), AllOf(HasSubstr("'positionIds'"), HasSubstr("type M")));

  c = call_of(ok);
  c.inputs["positionIds"].shape = {2, 3, 1};
  EXPECT_THAT(error_of([&] { p.select(c); }),
              AllOf(HasSubstr("'positionIds' (position_ids)"), HasSubstr("rank 3"), HasSubstr("expected rank 2")));

  c = call_of(ok);
  c.inputs["x"].shape = {2, -4, 3, 8};
  EXPECT_THAT(error_of([&] { p.select(c); }), AllOf(HasSubstr("'x'"), HasSubstr("negative")));

  c = call_of(ok);
  c.attrs["theta"] = 10000;
  EXPECT_THAT(error_of([&] { p.select(c); }),
              AllOf(HasSubstr("unknown attribute 'theta'"), HasSubstr("interleaved"), HasSubstr("num_heads"),
                    HasSubstr("rotary_embedding_dim")));

  c = call_of(ok);
  c.attrs["interleaved"] = 2;
  EXPECT_THAT(error_of([&] { p.select(c); }),
              AllOf(HasSubstr("'interleaved' = 2"), HasSubstr("allowed values 0, 1")));

  c = call_of(ok);
  c.attrs["num_heads"] = "four";
  EXPECT_THAT(error_of([&] { p.select(c); }), AllOf(HasSubstr("'num_heads'"), HasSubstr("'four'"), HasSubstr("not an integer")));

  c = call_of(ok);
  c.attrs["num_heads"] = 2.5;
  EXPECT_THAT(error_of([&] { p.select(c); }), AllOf(HasSubstr("'num_heads'"), HasSubstr("2.5"), HasSubstr("not an integer")));
}

TEST(PlanBoundary, AcceptedSpellings) {
  Planner p(load(kSeed004), DeviceCaps::lavapipe(), fake_templates());
  // ONNX names, positionIds already narrowed to uint32: same variant as the canonical call (row "r4 pos head8
  // interleaved").
  CallSignature c;
  c.inputs["X"] = {DType::kFloat32, {2, 4, 3, 8}};
  c.inputs["cos_cache"] = {DType::kFloat32, {50, 4}};
  c.inputs["sin_cache"] = {DType::kFloat32, {50, 4}};
  c.inputs["position_ids"] = {DType::kUInt32, {2, 3}};
  c.attrs["interleaved"] = std::int64_t{1};
  const Selection s = p.select(c);
  ASSERT_NE(s.variant, nullptr) << s.failure;
  EXPECT_EQ(s.variant->id, "rank4_cache2_pos_quad");
  EXPECT_THAT(s.signature, HasSubstr("interleaved=1"));
  // An integral float is not an INT (onnx.proto: AttributeProto.i is an int64); before, 1.0 was taken as 1.
  c.attrs["interleaved"] = 1.0;
  EXPECT_THAT(error_of([&] { p.select(c); }),
              HasSubstr("attribute 'interleaved': value 1.0 (float) is not an integer (ONNX INT attribute: "
                        "AttributeProto.i, an int64; a float is refused even when integral)"));
}

TEST(PlanSelect, DeriveValuesAreLazyAndErrorsStayLocal) {
  // Rank-2 cos with positions (r4): rank3HeadSize = 0 (num_heads undefined), rotationPairs = dim(cos, -1) = 4,
  // headElements = dim(x, 3) = 8, headCount = dim(x, 1) = 4, tokenCount = dim(x, 2) = 3,
  // rotaryOutputWg = max(1, min(256, 256, 256)) = 256 on webgpu defaults. rank4Contract reads
  // dim(shapes.cos, 2) on a rank-2 cos only after `ranks.cos == 3` is false, so it is false, not an error.
  Planner p(load(kSeed004), DeviceCaps::webgpu_defaults(), fake_templates());
  const Selection s = p.select(call_of({DType::kFloat32, {2, 4, 3, 8}, {50, 4}, Shape{2, 3}}), {.derive_values = true});
  std::map<std::string, DeriveResult> d;
  for (const auto& r : s.derive) d[r.name] = r;
  ASSERT_EQ(d.size(), 16u);  // seed 004 declares 16 derive names
  auto int_of = [&](const char* n) {
    const auto& r = d.at(n);
    EXPECT_TRUE(r.value) << n << ": " << r.error;
    return r.value ? (r.value->is_int() ? r.value->as_int() : static_cast<std::int64_t>(r.value->as_number())) : -1;
  };
  EXPECT_EQ(int_of("rank3HeadSize"), 0);
  EXPECT_EQ(int_of("rotationPairs"), 4);
  EXPECT_EQ(int_of("headElements"), 8);
  EXPECT_EQ(int_of("headCount"), 4);
  EXPECT_EQ(int_of("tokenCount"), 3);
  EXPECT_EQ(int_of("rotaryOutputWg"), 256);
  EXPECT_FALSE(d.at("rank4Contract").value->truthy());
  EXPECT_TRUE(d.at("rank4PosContract").value->truthy());
  EXPECT_EQ(s.variant->id, "rank4_cache2_pos_quad");
}

TEST(PlanProgram, KeyHoldsWhatTheTemplateReadsAndNothingElse) {
  // The fake quad template prints the dtype, rank, interleaved and the workgroup size: a call that differs
  // only in the sequence length or the batch (uniform values and dispatch sizes) has the same key and is
  // rendered once; one that differs in `interleaved` is rendered again.
  std::map<std::string, std::shared_ptr<const ProgramText>> programs;
  int renders = 0;
  Planner p(load(kSeed004), DeviceCaps::lavapipe(), fake_templates(),
            [&](std::string key, const std::string&, const std::function<std::string()>& render) {
              auto [it, fresh] = programs.try_emplace(key);
              if (fresh) {
                ++renders;
                it->second = std::make_shared<const ProgramText>(ProgramText{key, render()});
              }
              return it->second;
            });
  auto a = p.plan(call_of({DType::kFloat32, {2, 4, 3, 8}, {2, 3, 4}}));
  auto b = p.plan(call_of({DType::kFloat32, {2, 4, 7, 8}, {2, 7, 4}}));
  auto c = p.plan(call_of({DType::kFloat32, {5, 4, 9, 8}, {5, 9, 4}}));
  ASSERT_EQ(a->variant, b->variant);
  ASSERT_EQ(a->variant, c->variant);
  EXPECT_EQ(renders, 1);
  EXPECT_EQ(a->passes.at(0).program, b->passes.at(0).program) << "the same program object, not a copy";
  EXPECT_NE(a->passes.at(0).bindings.back().uniform, b->passes.at(0).bindings.back().uniform)
      << "the sequence length travels in the uniforms";
  CallSignature other = call_of({DType::kFloat32, {2, 4, 3, 8}, {2, 3, 4}});
  other.attrs["interleaved"] = 1;
  auto d = p.plan(other);
  EXPECT_EQ(renders, 2);
  EXPECT_NE(d->passes.at(0).program->key, a->passes.at(0).program->key);
  EXPECT_THAT(d->passes.at(0).program->wgsl, HasSubstr("interleaved=True"));
  EXPECT_THAT(a->passes.at(0).program->wgsl, HasSubstr("interleaved=False"));
}

TEST(PlanDevice, PresetsAndJson) {
  EXPECT_EQ(DeviceCaps::webgpu_defaults().limit("maxComputeWorkgroupsPerDimension"), 65535);
  EXPECT_EQ(DeviceCaps::webgpu_defaults().limit("maxStorageBufferBindingSize"), 134217728);
  EXPECT_TRUE(DeviceCaps::lavapipe().shader_f16);
  EXPECT_FALSE(DeviceCaps::h200().shader_f16);
  EXPECT_EQ(DeviceCaps::h200().limit("maxStorageBufferBindingSize"), 4294967295);
  // docs/h200.md's `wgk devices` of the H200: subgroups: yes; maxStorageBuffersPerShaderStage = 10 (both adapters),
  // maxUniformBuffersPerShaderStage = 12 and maxUniformBufferBindingSize = 65536 (both: the WebGPU defaults, which
  // the presets keep): a fused RoPE decode dispatch holds min(8, (10 - 3) / 1, (12 - 1) / 1) = 7 calls on each.
  EXPECT_TRUE(DeviceCaps::h200().subgroups);
  for (const DeviceCaps& caps : {DeviceCaps::h200(), DeviceCaps::lavapipe()}) {
    EXPECT_EQ(caps.limit("maxStorageBuffersPerShaderStage"), 10);
    EXPECT_EQ(caps.limit("maxUniformBuffersPerShaderStage"), 12);
    EXPECT_EQ(caps.limit("maxUniformBufferBindingSize"), 65536);
  }
  const DeviceCaps j = DeviceCaps::from_json(R"({"limits": {"maxComputeWorkgroupsPerDimension": 1024},
                                                 "features": ["shader-f16"]})", "limits.json");
  EXPECT_EQ(j.limit("maxComputeWorkgroupsPerDimension"), 1024);
  EXPECT_TRUE(j.shader_f16);
  EXPECT_THAT(error_of([] { DeviceCaps::from_json(R"({"limits": {"maxBufferSize": -1}})", "l.json"); }),
              AllOf(HasSubstr("l.json"), HasSubstr("maxBufferSize")));
}

TEST(PlanFused, SmallPerCallInputsBecomeUniformsWhereThatFusesMoreCalls) {
  // ai.onnx.RotaryEmbedding's quad variant at a decode size: x [1, 8, 1, 128] f32 (4,096 bytes, bound as
  // vec4<f32>), cos and sin [256, 64], one position. Its pass (manifest: fusion maxCalls 8, per call x and y)
  // binds cos_cache, sin_cache and position_ids once and a params uniform once. WebGPU counts storage and uniform
  // buffers apart per stage; lavapipe's are 10 and 12 (`wgk devices`), so
  //   x and y in storage: min(8, (10 - 3) / 2) = 3 calls;  x a uniform: min(8, (10 - 3) / 1, (12 - 1) / 1) = 7.
  const std::string dir = std::string(WGK_SOURCE_DIR) + "/kernels/ai.onnx.RotaryEmbedding/build/webgpu/";
  auto contract = std::make_shared<const Contract>(load_contract_file(dir + "manifest.json"));
  auto templates = [dir](const std::string& f) { return read_text(dir + f); };
  const CallSignature decode = call_of({DType::kFloat32, {1, 8, 1, 128}, {256, 64}, Shape{1, 1}});
  auto set = [](DeviceCaps caps, const std::string& name, std::int64_t value) {
    for (auto& [n, v] : caps.limits)
      if (n == name) v = value;
    return caps;
  };
  {
    Planner p(contract, DeviceCaps::lavapipe(), templates);
    auto one = p.plan(decode);
    ASSERT_EQ(one->variant->id, "quad");
    EXPECT_EQ(one->passes.at(0).bindings.at(0).uniform_bytes, 4096u);  // x: 8 x 128 x 4 bytes
    const FusedLayout layout = fused_layout(*contract, one->passes.at(0), p.device());
    EXPECT_EQ(layout.calls, 7u);
    EXPECT_TRUE(layout.uniform_inputs);
    // The one-call program keeps x in storage; the fused one declares each call's x a uniform array of
    // 4096 / 16 = 256 vec4<f32>, and y stays a storage buffer per call.
    EXPECT_THAT(one->passes.at(0).program->wgsl, HasSubstr("var<storage, read> x: array<vec4<f32>>;"));
    const std::string fused = p.plan_fused(decode, 7)->passes.at(0).program->wgsl;
    EXPECT_THAT(fused, HasSubstr("@group(0) @binding(0) var<uniform> x_0: array<vec4<f32>, 256>;"));
    EXPECT_THAT(fused, HasSubstr("@group(0) @binding(6) var<uniform> x_6: array<vec4<f32>, 256>;"));
    EXPECT_THAT(fused, HasSubstr("var<storage, read_write> y_6: array<vec4<f32>>;"));
    EXPECT_THAT(error_of([&] { p.plan_fused(decode, 8); }, ErrorKind::kInternal), HasSubstr("past the 7 this device allows"));
    // Another decode size, x [2, 8, 1, 128] (8,192 bytes): its own program, with 512 vec4<f32> a call (the
    // program key holds the uniform arrays' lengths: one program for both would read past 256 of them).
    const CallSignature decode2 = call_of({DType::kFloat32, {2, 8, 1, 128}, {256, 64}, Shape{2, 1}});
    auto fused2 = p.plan_fused(decode2, 7)->passes.at(0).program;
    EXPECT_THAT(fused2->wgsl, HasSubstr("var<uniform> x_0: array<vec4<f32>, 512>;"));
    EXPECT_NE(fused2->key, p.plan_fused(decode, 7)->passes.at(0).program->key);
    // A prefill x (64 tokens: 262,144 bytes) is past maxUniformBufferBindingSize (65,536): no uniform.
    auto prefill = p.plan(call_of({DType::kFloat32, {1, 8, 64, 128}, {256, 64}, Shape{1, 64}}));
    EXPECT_EQ(prefill->passes.at(0).bindings.at(0).uniform_bytes, 0u);
  }
  {
    // maxUniformBufferBindingSize 2,048 < 4,096: x stays in storage, 3 calls.
    Planner p(contract, set(DeviceCaps::lavapipe(), "maxUniformBufferBindingSize", 2048), templates);
    auto one = p.plan(decode);
    EXPECT_EQ(one->passes.at(0).bindings.at(0).uniform_bytes, 0u);
    EXPECT_EQ(fused_layout(*contract, one->passes.at(0), p.device()).calls, 3u);
    EXPECT_THAT(p.plan_fused(decode, 3)->passes.at(0).program->wgsl,
                HasSubstr("@group(0) @binding(0) var<storage, read> x_0: array<vec4<f32>>;"));
  }
  {
    // 4 uniform buffers: x as uniforms gives min(7, (4 - 1) / 1) = 3, no more than storage's 3: storage kept.
    Planner p(contract, set(DeviceCaps::lavapipe(), "maxUniformBuffersPerShaderStage", 4), templates);
    const FusedLayout layout = fused_layout(*contract, p.plan(decode)->passes.at(0), p.device());
    EXPECT_EQ(layout.calls, 3u);
    EXPECT_FALSE(layout.uniform_inputs);
    // 20 storage buffers: (20 - 3) / 2 = 8 = maxCalls already in storage.
    Planner q(contract, set(DeviceCaps::lavapipe(), "maxStorageBuffersPerShaderStage", 20), templates);
    const FusedLayout wide = fused_layout(*contract, q.plan(decode)->passes.at(0), q.device());
    EXPECT_EQ(wide.calls, 8u);
    EXPECT_FALSE(wide.uniform_inputs);
  }
}

TEST(PlanDevice, DispatchBeyondDeviceLimitIsAnError) {
  // With maxComputeWorkgroupsPerDimension 1024: the 2^24-pair case needs 65536 groups; seed 004's
  // pairDispatchOk allows 1024 * 1024 groups, but dispatch.x = min(65536, 65535) = 65535 > 1024.
  const DeviceCaps small = DeviceCaps::from_json(R"({"limits": {"maxComputeWorkgroupsPerDimension": 1024}})", "l.json");
  Planner p(load(kSeed004), small, fake_templates());
  const std::string msg =
      error_of([&] { p.plan(call_of({DType::kFloat32, {1, 1, 16777216, 2}, {16777216, 1}, Shape{1, 16777216}})); });
  EXPECT_THAT(msg, AllOf(HasSubstr("dispatch.x"), HasSubstr("65535"), HasSubstr("maxComputeWorkgroupsPerDimension = 1024")));
}

TEST(PlanDevice, ADispatchOfNoWorkgroupWithOutputElementsIsAContractError) {
  // Seed 004 with every pass's dispatch.x set to "0" (a breaker's manifest slip): the call (1, 1, 2, 8) has a y of
  // 16 elements that no invocation would write. Before, the plan ran and y came back as zeros.
  nlohmann::json m = nlohmann::json::parse(read_text(kSeed004));
  for (auto& v : m.at("variants"))
    for (auto& pass : v.at("passes")) pass.at("dispatch")["x"] = "0";
  const std::string text = m.dump();
  Planner p(std::make_shared<const Contract>(load_contract(text, "zero.json")), DeviceCaps::lavapipe(), fake_templates());
  const std::string msg =
      error_of([&] { p.plan(call_of({DType::kFloat32, {1, 1, 2, 8}, {2, 4}, Shape{1, 2}})); }, ErrorKind::kContract);
  EXPECT_THAT(msg, AllOf(HasSubstr("dispatches no workgroup"), HasSubstr("(0, 1, 1)"), HasSubstr("output y [1, 1, 2, 8] has 16 elements")));
  // An empty call still plans: no element to write.
  EXPECT_NO_THROW(p.plan(call_of({DType::kFloat32, {1, 1, 0, 8}, {2, 4}, Shape{1, 0}})));
}

// tests/plan/data/tiny.manifest.json: a made-up op that reaches the rules the seeds do not.
std::shared_ptr<const Contract> tiny() { return load(std::string(WGK_SOURCE_DIR) + "/tests/plan/data/tiny.manifest.json"); }

CallSignature tiny_call(Shape a, std::optional<Shape> idx = std::nullopt) {
  CallSignature c;
  c.inputs["a"] = {DType::kFloat32, std::move(a)};
  if (idx) c.inputs["idx"] = {DType::kInt64, *idx};
  return c;
}

TEST(PlanTiny, UniformScalarsValueRangeAndDispatch) {
  // a (6, 8): variant "wide" (ranks.a == 2, cols = 8 > 4); "throws" (priority 9) is tried and fails
  // (8 > 100 is false). params: n = half = 6 / 2 = 3.0 -> u32 3; k = 0 - scale (default 2) = -2 ->
  // i32 0xFFFFFFFE; f = 3.0 / 4 = 0.75 -> f32 0x3F400000; 12 bytes padded to 16.
  // dispatch.x = ceilDiv(6, 64) = 1. valueRange of idx: [0, dim(a, 0) - 1] = [0, 5].
  Planner p(tiny(), DeviceCaps::webgpu_defaults(), fake_templates());
  auto plan = p.plan(tiny_call({6, 8}, Shape{6}));
  EXPECT_EQ(plan->variant->id, "wide");
  const std::vector<std::uint32_t> words = {3, 0xFFFFFFFEu, 0x3F400000u, 0};
  std::vector<std::byte> expected(16);
  std::memcpy(expected.data(), words.data(), 16);
  EXPECT_EQ(plan->passes.at(0).bindings.at(2).uniform, expected);
  EXPECT_EQ(plan->passes.at(0).workgroups, (std::array<std::uint32_t, 3>{1, 1, 1}));
  ASSERT_EQ(plan->value_ranges.size(), 1u);
  EXPECT_EQ(plan->value_ranges[0].input, "idx");
  EXPECT_EQ(plan->value_ranges[0].min, 0);
  EXPECT_EQ(plan->value_ranges[0].max, 5);
  EXPECT_EQ(plan->value_ranges[0].max_text, "dim(shapes.a, 0) - 1");
  // dtypes.M is the storage type u32 even with idx given as int64; the template sees tunables.
  EXPECT_THAT(plan->passes.at(0).program->wgsl, HasSubstr("// tiny f32 u32 wg=64"));
}

TEST(PlanTiny, LazyDeriveErrorOnlyFailsTheClauseThatNeedsIt) {
  // a (4): `cols` = dim(shapes.a, 1) is an error on rank 1. "wide" fails at `ranks.a == 2` before
  // reading cols; "throws" reads cols: its clause fails with the error as reason; "any" is chosen.
  // half = 4 / 2 = 2.0, so dispatch.x = 2.
  Planner p(tiny(), DeviceCaps::webgpu_defaults(), fake_templates());
  const Selection s = p.select(tiny_call({4}), {.derive_values = true, .plan = true});
  ASSERT_NE(s.variant, nullptr) << s.failure;
  EXPECT_EQ(s.variant->id, "any");
  ASSERT_EQ(s.derive.size(), 2u);
  EXPECT_FALSE(s.derive[0].value);
  EXPECT_THAT(s.derive[0].error, AllOf(HasSubstr("derive.cols"), HasSubstr("out of range")));
  ASSERT_TRUE(s.plan) << s.plan_error;
  EXPECT_EQ(s.plan->passes.at(0).workgroups, (std::array<std::uint32_t, 3>{2, 1, 1}));
}

TEST(PlanTiny, U32FieldMustBeANonNegativeInteger) {
  // a (5): half = 5 / 2 = 2.5 is not an integer: the u32 field n is an error naming it and the value.
  Planner p(tiny(), DeviceCaps::webgpu_defaults(), fake_templates());
  EXPECT_THAT(error_of([&] { p.plan(tiny_call({5})); }),
              AllOf(HasSubstr("params.n (u32, half)"), HasSubstr("2.5"), HasSubstr("non-negative integer")));
}

TEST(PlanTiny, FailingCheckGivesMessageAndExplain) {
  // checks[0]: dim(shapes.a, 0) <= 1000 with 2000 rows.
  Planner p(tiny(), DeviceCaps::webgpu_defaults(), fake_templates());
  EXPECT_THAT(error_of([&] { p.select(tiny_call({2000})); }),
              AllOf(HasSubstr("A has at most 1000 rows"), HasSubstr("dim(shapes.a, 0) = 2000"), HasSubstr("a: float32[2000]")));
}

// Attributes are checked against their declared ONNX type (issue 15): tiny's manifest with a STRING
// attribute `mode` in {"none", "tanh"} (as ONNX Gelu-20's `approximate`) and a FLOAT `alpha`.
std::shared_ptr<const Contract> tiny_with(const std::string& attributes, const std::string& constraints) {
  std::string text = read_text(std::string(WGK_SOURCE_DIR) + "/tests/plan/data/tiny.manifest.json");
  const std::string from = R"("attributes": { "scale": { "default": 2 } },)";
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos);
  text.replace(at, from.size(), R"("attributes": { "scale": { "default": 2 }, )" + attributes + "}, " + constraints);
  return std::make_shared<const Contract>(load_contract(text, "tiny+attributes"));
}

TEST(PlanTiny, StringAndFloatAttributesByDeclaredType) {
  const auto c = tiny_with(R"("mode": { "type": "STRING", "default": "none" }, "alpha": { "type": "FLOAT" })",
                           R"("attributeConstraints": { "mode": { "values": ["none", "tanh"] } },)");
  EXPECT_EQ(c->find_attribute("mode")->type, AttributeType::kString);
  EXPECT_EQ(c->find_attribute("alpha")->type, AttributeType::kFloat);
  EXPECT_EQ(c->find_attribute("scale")->type, AttributeType::kInt);  // no type: the integer default's kind
  Planner p(c, DeviceCaps::webgpu_defaults(), fake_templates());
  CallSignature call = tiny_call({6, 8});
  call.attrs["mode"] = expr::Value("tanh");
  call.attrs["alpha"] = expr::Value(std::int64_t{1});  // an integer is a number: FLOAT takes it
  EXPECT_TRUE(p.select(call).variant);
  call.attrs["mode"] = expr::Value("erf");
  EXPECT_THAT(error_of([&] { p.select(call); }),
              AllOf(HasSubstr("attribute 'mode' = 'erf' is not allowed"), HasSubstr("'none', 'tanh'")));
  call.attrs["mode"] = expr::Value(std::int64_t{1});
  EXPECT_THAT(error_of([&] { p.select(call); }),
              AllOf(HasSubstr("attribute 'mode'"), HasSubstr("is not a string (ONNX STRING attribute)")));
  call.attrs["mode"] = expr::Value("none");
  call.attrs["alpha"] = expr::Value("x");
  EXPECT_THAT(error_of([&] { p.select(call); }), HasSubstr("is not a number (ONNX FLOAT attribute)"));
  call.attrs.erase("alpha");
  call.attrs["scale"] = expr::Value("2");
  EXPECT_THAT(error_of([&] { p.select(call); }), HasSubstr("is not an integer (ONNX INT attribute)"));
  call.attrs["scale"] = expr::Value(2.0);  // INT takes no float, even an integral one; FLOAT took the integer 1 above
  EXPECT_THAT(error_of([&] { p.select(call); }),
              HasSubstr("attribute 'scale': value 2.0 (float) is not an integer (ONNX INT attribute: AttributeProto.i"));
}

// A tunable takes its default's type by the contract's rule for an attribute of that type (contract::tunable_value,
// the one rule of contract::attribute_value): tiny's integer WG (default 64) refuses 64.0, which is also what the
// text 6.4e1 reads as (before: both taken as 64, by expr::integral), and a bool; a FLOAT tunable takes the integer
// 1 as 1.0, a STRING one no number. Each error names the tunable, the value, its default and the rule.
TEST(PlanTiny, TunablesTakeTheirDefaultsTypeByTheAttributeRule) {
  std::string text = read_text(std::string(WGK_SOURCE_DIR) + "/tests/plan/data/tiny.manifest.json");
  const std::string from = R"("tunables": { "WG": { "default": 64 } },)";
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, from.size(), R"("tunables": { "WG": { "default": 64 }, "RATE": { "default": 0.5 }, "MODE": { "default": "a" } },)");
  Planner p(std::make_shared<const Contract>(load_contract(text, "tiny+tunables")), DeviceCaps::webgpu_defaults(), fake_templates());
  CallSignature call = tiny_call({6, 8});
  call.tunables["WG"] = expr::Value(std::int64_t{32});
  call.tunables["RATE"] = expr::Value(std::int64_t{1});
  const Selection ok = p.select(call);
  EXPECT_TRUE(ok.variant) << ok.failure;
  EXPECT_THAT(ok.signature, HasSubstr("RATE=1.0"));  // the integer 1 as the float a FLOAT tunable holds
  const std::string int_rule =
      "(its default is 64; a tunable takes its default's type, by the rule of an ONNX INT attribute: AttributeProto.i, "
      "an int64; a float is refused even when integral)";
  call.tunables["WG"] = expr::Value(64.0);
  EXPECT_THAT(error_of([&] { p.select(call); }),
              HasSubstr("test.Tiny: tunable 'WG' = 64.0 (float) is not an integer " + int_rule));
  call.tunables["WG"] = expr::Value(6.4e1);
  EXPECT_THAT(error_of([&] { p.select(call); }), HasSubstr("tunable 'WG' = 64.0 (float) is not an integer " + int_rule));
  call.tunables["WG"] = expr::Value(true);
  EXPECT_THAT(error_of([&] { p.select(call); }),
              HasSubstr("tunable 'WG' = True (bool) is not an integer (its default is 64; a tunable takes its default's "
                        "type, by the rule of an ONNX INT attribute)"));
  call.tunables["WG"] = expr::Value(std::int64_t{32});
  call.tunables["MODE"] = expr::Value(std::int64_t{1});
  EXPECT_THAT(error_of([&] { p.select(call); }),
              HasSubstr("tunable 'MODE' = 1 (int) is not a string (its default is 'a'; a tunable takes its default's type, "
                        "by the rule of an ONNX STRING attribute)"));
}

TEST(PlanTiny, AttributeTypeMustBeKnownAndFitTheDefault) {
  EXPECT_THAT(error_of([&] { tiny_with(R"("mode": { "type": "BOOL" })", ""); }, ErrorKind::kContract),
              HasSubstr("attribute type 'BOOL' is not INT, FLOAT, STRING, INTS, FLOATS or STRINGS"));
  EXPECT_THAT(error_of([&] { tiny_with(R"("mode": { "type": "STRING", "default": 0 })", ""); }, ErrorKind::kContract),
              AllOf(HasSubstr("the default 0 is not of type STRING"), HasSubstr("is not a string (ONNX STRING attribute)")));
  EXPECT_THAT(error_of([&] { tiny_with(R"("count": { "type": "INT", "default": 2.0 })", ""); }, ErrorKind::kContract),
              AllOf(HasSubstr("the default 2.0 is not of type INT"), HasSubstr("a float is refused even when integral")));
  // A list default: of the declared list type, each element; and each element an allowed value.
  EXPECT_THAT(error_of([&] { tiny_with(R"("perm": { "type": "INTS", "default": 0 })", ""); }, ErrorKind::kContract),
              AllOf(HasSubstr("the default 0 is not of type INTS"), HasSubstr("is not a list (ONNX INTS attribute")));
  EXPECT_THAT(error_of([&] { tiny_with(R"("perm": { "type": "INTS", "default": [0, "a"] })", ""); }, ErrorKind::kContract),
              AllOf(HasSubstr("the default [0, 'a'] is not of type INTS"), HasSubstr("element [1] 'a' (str) is not an integer")));
  EXPECT_THAT(error_of([&] { tiny_with(R"("perm": { "default": [0, 5] })",
                                       R"("attributeConstraints": { "perm": { "values": [0, 1, 2, 3] } },)"); },
                       ErrorKind::kContract),
              AllOf(HasSubstr("the default of 'perm' ([0, 5]) is not allowed"), HasSubstr("element [1] 5 is not allowed")));
}

// INTS, FLOATS and STRINGS (ONNX AttributeProto lists, issue 15): declared or implied by the default, each
// element checked against the element type and the allowed values, normalized as a scalar attribute is
// (an integer in FLOATS is a float; a float in INTS is refused, even 1.0): Selection::signature shows the values used.
TEST(PlanTiny, ListAttributesByDeclaredType) {
  const auto c = tiny_with(R"("perm": { "type": "INTS" }, "gains": { "type": "FLOATS", "default": [1.0, 0.5] },
                              "names": { "type": "STRINGS" }, "axes": { "default": [1, 2] }, "empty": { "type": "INTS", "default": [] })",
                           R"("attributeConstraints": { "perm": { "values": [0, 1, 2, 3] }, "names": { "values": ["a", "b"] } },)");
  EXPECT_EQ(c->find_attribute("perm")->type, AttributeType::kInts);
  EXPECT_EQ(c->find_attribute("gains")->type, AttributeType::kFloats);
  EXPECT_EQ(c->find_attribute("names")->type, AttributeType::kStrings);
  EXPECT_EQ(c->find_attribute("axes")->type, AttributeType::kInts);  // no type: a list of integers
  Planner p(c, DeviceCaps::webgpu_defaults(), fake_templates());
  CallSignature call = tiny_call({6, 8});
  call.attrs["perm"] = expr::Value(expr::List{std::int64_t{3}, std::int64_t{1}, std::int64_t{0}});
  call.attrs["gains"] = expr::Value(expr::List{std::int64_t{2}, 0.25});
  call.attrs["names"] = expr::Value(expr::List{"b", "a", "b"});
  const Selection s = p.select(call);
  ASSERT_TRUE(s.variant) << s.failure;
  EXPECT_THAT(s.signature, AllOf(HasSubstr("perm=[3, 1, 0]"), HasSubstr("gains=[2.0, 0.25]"),
                                 HasSubstr("names=['b', 'a', 'b']"), HasSubstr("axes=[1, 2]"), HasSubstr("empty=[]")));
  // Each failure its own message: the attribute, the rule and the values.
  call.attrs["perm"] = expr::Value(std::int64_t{1});
  EXPECT_THAT(error_of([&] { p.select(call); }),
              HasSubstr("test.Tiny: attribute 'perm': value 1 (int) is not a list (ONNX INTS attribute: a list of integers)"));
  call.attrs["perm"] = expr::Value(expr::List{std::int64_t{0}, 1.5});
  EXPECT_THAT(error_of([&] { p.select(call); }),
              HasSubstr("attribute 'perm' = [0, 1.5]: element [1] 1.5 (float) is not an integer (ONNX INTS attribute"));
  call.attrs["perm"] = expr::Value(expr::List{std::int64_t{0}, 1.0});
  EXPECT_THAT(error_of([&] { p.select(call); }),
              HasSubstr("attribute 'perm' = [0, 1.0]: element [1] 1.0 (float) is not an integer (ONNX INTS attribute: each "
                        "element an integer; AttributeProto.ints holds int64s: a float is refused even when integral)"));
  call.attrs["perm"] = expr::Value(expr::List{std::int64_t{0}, true});
  EXPECT_THAT(error_of([&] { p.select(call); }), HasSubstr("element [1] True (bool) is not an integer"));
  call.attrs["perm"] = expr::Value(expr::List{std::int64_t{0}, std::int64_t{4}});
  EXPECT_THAT(error_of([&] { p.select(call); }),
              HasSubstr("attribute 'perm' = [0, 4]: element [1] 4 is not allowed (attributeConstraints: allowed values 0, "
                        "1, 2, 3, for each element)"));
  call.attrs["perm"] = expr::Value(expr::List{});
  call.attrs["gains"] = expr::Value(expr::List{"x"});
  EXPECT_THAT(error_of([&] { p.select(call); }), HasSubstr("element [0] 'x' (str) is not a number (ONNX FLOATS attribute"));
  call.attrs["gains"] = expr::Value(expr::List{});
  call.attrs["names"] = expr::Value(expr::List{"a", "c"});
  EXPECT_THAT(error_of([&] { p.select(call); }), HasSubstr("element [1] 'c' is not allowed (attributeConstraints: allowed values 'a', 'b'"));
  call.attrs["names"] = expr::Value("a");
  EXPECT_THAT(error_of([&] { p.select(call); }), HasSubstr("value 'a' (str) is not a list (ONNX STRINGS attribute: a list of strings)"));
  call.attrs.erase("names");
  call.attrs["scale"] = expr::Value(expr::List{std::int64_t{2}});  // a list for a scalar INT
  EXPECT_THAT(error_of([&] { p.select(call); }), HasSubstr("value [2] (list) is not an integer (ONNX INT attribute)"));
}

}  // namespace
}  // namespace wgk::plan
