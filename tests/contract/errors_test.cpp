// Malformed manifests: each case edits one thing of a seed manifest (or is a small text) and
// expects a wgk::Error (kContract) whose message names the JSON path and the rule. The expected
// strings are written from the manifest edit, not copied from the loader's output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <functional>

#include "contract/contract.h"
#include "seed_paths.h"
#include "wgk/error.h"

namespace wgk::contract {
namespace {

using Json = nlohmann::ordered_json;
using ::testing::HasSubstr;

Json seed(const std::string& path) { return Json::parse(test::read_text(path)); }

std::string load_error(const std::string& text) {
  try {
    load_contract(text, "m.json");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kContract) << e.what();
    return e.what();
  }
  return "(loaded without error)";
}

struct Case {
  const char* name;
  bool legacy;                        // edit seed 000 instead of seed 004
  std::function<void(Json&)> edit;
  std::vector<std::string> expected;  // substrings of the message
};

class Malformed : public ::testing::TestWithParam<Case> {};

TEST_P(Malformed, NamesPathAndRule) {
  const Case& c = GetParam();
  Json j = seed(c.legacy ? test::kLegacySeed : test::kCurrentSeed);
  c.edit(j);
  const std::string message = load_error(j.dump());
  for (const std::string& s : c.expected) EXPECT_THAT(message, HasSubstr(s));
}

const Case kCases[] = {
    {"UnknownTopLevelKey", false, [](Json& j) { j["variantz"] = Json::array(); },
     {"m.json: unknown key 'variantz'"}},
    {"UnknownNestedKey", false, [](Json& j) { j["variants"][2]["passes"][0]["dispatch"]["w"] = 1; },
     {"m.json: variants[2].passes[0].dispatch: unknown key 'w'"}},
    {"UnknownInputKey", false, [](Json& j) { j["inputs"]["cos"]["shape"] = "shapes.x"; },
     {"inputs.cos: unknown key 'shape'"}},
    {"WrongTypeBoolean", false, [](Json& j) { j["inputs"]["x"]["optional"] = "yes"; },
     {"inputs.x.optional: expected true or false, got string"}},
    {"WrongTypeList", false, [](Json& j) { j["variants"] = Json::object(); },
     {"m.json: variants: expected a list, got object"}},
    {"WrongTypeExpression", false, [](Json& j) { j["derive"]["headCount"] = Json::array({1}); },
     {"derive.headCount: expected an expression"}},
    {"MissingRequiredKey", false, [](Json& j) { j["variants"][0]["passes"][0].erase("shader"); },
     {"variants[0].passes[0]: missing required key 'shader'"}},
    {"MissingTopLevel", false, [](Json& j) { j.erase("bindings"); },
     {"m.json: missing required key 'bindings'"}},
    {"DuplicateVariantId", false, [](Json& j) { j["variants"][1]["id"] = j["variants"][0]["id"]; },
     {"variants[1].id: duplicate variant id 'rank3_cache2_pos_quad'"}},
    {"UnknownBindingReference", false, [](Json& j) { j["variants"][3]["passes"][0]["bindings"][2] = "y_vec"; },
     {"variants[3].passes[0].bindings[2]: unknown binding 'y_vec'"}},
    {"BindingArgUnknown", false, [](Json& j) { j["bindings"]["cos_cache"]["arg"] = "cosine"; },
     {"bindings.cos_cache.arg: binding 'cos_cache' names no input or output 'cosine'"}},
    {"UnknownConstrainedAttribute", false, [](Json& j) { j["attributeConstraints"]["interleave"] = {{"values", {0, 1}}}; },
     {"attributeConstraints.interleave: unknown attribute 'interleave'"}},
    {"DefaultNotAllowed", false, [](Json& j) { j["attributes"]["interleaved"]["default"] = 2; },
     {"attributeConstraints.interleaved.values: the default of 'interleaved' (2) is not an allowed value"}},
    {"TypeConstraintDtype", false, [](Json& j) { j["typeConstraints"]["T"] = {"float32", "bfloat16"}; },
     {"typeConstraints.T[1]: unknown dtype 'bfloat16'"}},
    {"InputDtypeNotConstraint", false, [](Json& j) { j["inputs"]["cos"]["dtype"] = "U"; },
     {"inputs.cos.dtype: 'U' names no type constraint (typeConstraints: T, M)"}},
    {"StructFieldType", false, [](Json& j) { j["bindings"]["params_pair"]["struct"][3]["type"] = "u64"; },
     {"bindings.params_pair.struct[3].type: struct field type 'u64' is not one of u32, i32, f32"}},
    {"DeriveCycle", false, [](Json& j) { j["derive"]["quadCacheOk"] = "quadOk and ranks.cos >= 1"; },
     // Walk from the first waiting name: quadCacheOk reads quadOk, quadOk reads quad3Ok (first),
     // quad3Ok reads quadCacheOk.
     {"derive.quadCacheOk: derive cycle: quadCacheOk -> quadOk -> quad3Ok -> quadCacheOk"}},
    {"SelfCycleInVariantDerive", false, [](Json& j) { j["variants"][4]["derive"]["scalar"] = "scalar ~ 'x'"; },
     {"variants[4].derive.scalar: derive cycle: scalar -> scalar"}},
    {"SyntaxError", false, [](Json& j) { j["derive"]["headCount"] = "attrs.num_heads if ranks.x == 3 else"; },
     {"m.json: derive.headCount", "column"}},
    {"UnknownName", false, [](Json& j) { j["variants"][0]["when"][1] = "quadOkk"; },
     {"variants[0].when[1]: unknown name 'quadOkk'"}},
    {"VariantDeriveNotVisibleInManifestDerive", false, [](Json& j) { j["derive"]["headCount"] = "interleaved"; },
     {"derive.headCount: unknown name 'interleaved'"}},
    {"UnknownTensorInShapes", false, [](Json& j) { j["derive"]["tokenCount"] = "dim(shapes.z, 1)"; },
     {"derive.tokenCount: 'shapes.z' names no input or output"}},
    {"UnknownAttribute", false, [](Json& j) { j["derive"]["headCount"] = "attrs.numHeads"; },
     {"derive.headCount: 'attrs.numHeads' names no declared attribute"}},
    {"UnknownTunable", false, [](Json& j) { j["variants"][1]["passes"][0]["dispatch"]["x"] = "tunables.WG"; },
     {"variants[1].passes[0].dispatch.x: 'tunables.WG' names no tunable (WORKGROUP_SIZE)"}},
    {"UnknownLimit", false, [](Json& j) { j["derive"]["pairDispatchOk"] = "device.limits.maxWorkgroups > 0"; },
     {"derive.pairDispatchOk: 'device.limits.maxWorkgroups' is not a WebGPU limit name"}},
    {"UnknownFeature", false, [](Json& j) { j["derive"]["pairDispatchOk"] = "device.features.f16"; },
     {"'device.features.f16' is not a known feature"}},
    // present.<name> may name inputs and outputs (optional outputs, docs/kernel-conventions.md), nothing else.
    {"PresentOfUnknown", false, [](Json& j) { j["derive"]["pairDispatchOk"] = "present.z"; },
     {"derive.pairDispatchOk: 'present.z' names no input or output"}},
    {"UnknownDtypeVariable", false, [](Json& j) { j["variants"][0]["derive"]["vector"] = "dtypes.U"; },
     {"variants[0].derive.vector: 'dtypes.U' names no type constraint"}},
    {"UnknownNameInStructField", false, [](Json& j) { j["bindings"]["params_quad"]["struct"][1]["value"] = "headCnt"; },
     {"bindings.params_quad.struct[1].value", "unknown name 'headCnt'"}},
    // x_t reads `$vector` but its users (the pair variants) derive `scalar`, not `vector`.
    {"ElementTypeUnresolved", false, [](Json& j) { j["bindings"]["x_t"]["elementType"] = "$vector"; },
     {"bindings.x_t.elementType: '$vector' names no type constraint and no derive visible (as bound by variants[1] 'rank3_cache2_pos' passes[0])"}},
    {"WgslNameClash", false, [](Json& j) { j["variants"][0]["passes"][0]["bindings"].push_back("x_t"); },
     {"variants[0].passes[0].bindings[6]: binding 'x_t' declares the WGSL name 'x' that bindings[0] ('x') already declares"}},
    {"ShaderParentDirectory", false, [](Json& j) { j["variants"][0]["passes"][0]["shader"] = "../../etc/x.wgsl.jinja"; },
     {"variants[0].passes[0].shader: shader path '../../etc/x.wgsl.jinja' leaves the package folder"}},
    {"ShaderAbsolute", false, [](Json& j) { j["variants"][0]["passes"][0]["shader"] = "/etc/passwd"; },
     {"variants[0].passes[0].shader: shader path '/etc/passwd' is absolute"}},
    {"DeriveShadowsScopeRoot", false, [](Json& j) { j["variants"][0]["passes"][0]["derive"]["shapes"] = 1; },
     {"variants[0].passes[0].derive.shapes: derive name 'shapes' would shadow the scope root"}},
    {"RankNotNumber", false, [](Json& j) { j["inputs"]["positionIds"]["rank"] = "2"; },
     {"inputs.positionIds.rank: expected a rank (an integer) or a list of ranks"}},
    {"NarrowingUnknown", false, [](Json& j) { j["inputs"]["positionIds"]["narrowing"] = "wrap"; },
     {"inputs.positionIds.narrowing: unknown narrowing 'wrap'"}},
    {"NarrowingWithoutStorage", false, [](Json& j) { j["inputs"]["positionIds"].erase("storage"); },
     {"inputs.positionIds.narrowing: narrowing needs a storage dtype (`storage`) to narrow to"}},
    {"StorageUnknown", false, [](Json& j) { j["inputs"]["positionIds"]["storage"] = "int32"; },
     {"inputs.positionIds.storage: unknown storage dtype 'int32' (allowed: float32, float16, int64, uint32)"}},
    {"CheckMissingMessage", false, [](Json& j) { j["checks"] = Json::array({{{"when", "ranks.x >= 3"}}}); },
     {"checks[0]: missing required key 'message'"}},
    {"ValueRangeUnknownName", false, [](Json& j) { j["inputs"]["positionIds"]["valueRange"] = {{"min", 0}, {"max", "dim(shapes.coss, 0) - 1"}}; },
     {"inputs.positionIds.valueRange.max: 'shapes.coss' names no input or output"}},
    // Fused calls (docs/kernel-conventions.md "Fused calls"): a pass's `fusion`. Variant 0's pass binds x,
    // cos_cache, sin_cache, position_ids, y, params_quad; dispatch.z is 1.
    {"FusionMaxCallsBelowOne", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 0}, {"perCall", {"x", "y"}}}; },
     {"variants[0].passes[0].fusion.maxCalls: maxCalls 0 is outside [1, 64]"}},
    {"FusionMaxCallsNotInteger", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", "3"}, {"perCall", {"x", "y"}}}; },
     {"variants[0].passes[0].fusion.maxCalls"}},
    {"FusionUnknownBinding", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 3}, {"perCall", {"x", "y_vec"}}}; },
     {"variants[0].passes[0].fusion.perCall[1]: perCall names no binding 'y_vec'"}},
    {"FusionBindingOfAnotherPass", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 3}, {"perCall", {"x_t", "y"}}}; },
     {"fusion.perCall[0]: perCall binding 'x_t' is not one of this pass's bindings"}},
    {"FusionUniformPerCall", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 3}, {"perCall", {"x", "y", "params_quad"}}}; },
     {"fusion.perCall[2]: perCall binding 'params_quad' is a uniform struct", "shared by the calls"}},
    {"FusionBindingTwice", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 3}, {"perCall", {"x", "y", "x"}}}; },
     {"fusion.perCall[2]: perCall binding 'x' listed twice"}},
    {"FusionOutputShared", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 3}, {"perCall", {"x"}}}; },
     {"fusion.perCall: output binding 'y' is not in perCall: each call writes its own outputs"}},
    {"FusionNoPerCall", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 3}, {"perCall", Json::array()}}; },
     {"fusion.perCall: perCall needs at least one binding"}},
    {"FusionDispatchZ", false, [](Json& j) {
       j["variants"][0]["passes"][0]["dispatch"]["z"] = 2;
       j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 3}, {"perCall", {"x", "y"}}};
     },
     {"variants[0].passes[0].fusion: a pass with `fusion` needs dispatch.z = 1", "got '2'"}},
    {"FusionUnknownKey", false, [](Json& j) { j["variants"][0]["passes"][0]["fusion"] = {{"maxCall", 3}, {"perCall", {"x", "y"}}}; },
     {"variants[0].passes[0].fusion: unknown key 'maxCall'"}},
    {"FusionReservedDerive", false, [](Json& j) {
       j["variants"][0]["passes"][0]["derive"]["fusedCalls"] = 2;
       j["variants"][0]["passes"][0]["fusion"] = {{"maxCalls", 3}, {"perCall", {"x", "y"}}};
     },
     {"variants[0].passes[0].fusion: derive 'fusedCalls' (pass main)", "the name the runtime gives"}},
    {"NoVariants", false, [](Json& j) { j["variants"] = Json::array(); },
     {"m.json: variants: a kernel needs at least one variant"}},
    // Legacy format.
    // An args entry keys its storage dtype `dtype`.
    {"LegacyNarrowingWithoutStorage", true, [](Json& j) { j["args"]["positionIds"].erase("dtype"); },
     {"args.positionIds.narrowing: narrowing needs a storage dtype (`dtype`) to narrow to"}},
    {"LegacyStorageUnknown", true, [](Json& j) { j["args"]["positionIds"]["dtype"] = "int8"; },
     {"args.positionIds.dtype: unknown storage dtype 'int8' (allowed: float32, float16, int64, uint32)"}},
    {"LegacyUnknownKey", true, [](Json& j) { j["variants"][0]["priority"] = 3; },
     {"variants[0]: unknown key 'priority' (allowed: id, when, constants, passes, description)"}},
    {"LegacyUnknownBindingSet", true, [](Json& j) { j["variants"][2]["passes"][0]["bindings"] = "rank5"; },
     {"variants[2].passes[0].bindings: unknown binding set 'rank5'"}},
    {"LegacyBufferType", true, [](Json& j) { j["bindingSets"]["rank4"][3]["buffer"]["type"] = "read-only-storage"; },
     {"bindingSets.rank4[3].buffer.type: output 'y' must be bound as 'storage'"}},
    {"LegacyStructFieldType", true, [](Json& j) { j["bindingSets"]["rank3"][4]["struct"]["fields"][1]["type"] = "f16"; },
     {"bindingSets.rank3[4].struct.fields[1].type: struct field type 'f16'"}},
    {"LegacyArgSemantic", true, [](Json& j) { j["args"]["cos"]["semantic"] = "cos"; },
     {"args.cos.semantic: no inputs entry has role 'cos'"}},
    {"LegacyRoleUnclaimed", true, [](Json& j) { j["args"].erase("sin"); },
     {"inputs[2]: no args entry has semantic 'sin_cache'"}},
    {"LegacyDispatchSyntax", true, [](Json& j) { j["variants"][1]["passes"][0]["dispatch"]["threads"] = "numel(shapes.X) /"; },
     {"variants[1].passes[0].dispatch.threads", "column"}},
    {"LegacyUnknownRoleSpelling", true, [](Json& j) { j["derive"]["pairDispatchOk"] = "ranks.Xs > 0"; },
     {"derive.pairDispatchOk: 'ranks.Xs' names no input or output"}},
    {"LegacyConstantsCycle", true, [](Json& j) {
       j["variants"][3]["constants"]["interleaved"] = "usesF16";
       j["variants"][3]["constants"]["usesF16"] = "interleaved";
     },
     {"variants[3].constants.interleaved: derive cycle: interleaved -> usesF16 -> interleaved"}},
};

INSTANTIATE_TEST_SUITE_P(Contract, Malformed, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(MalformedText, NotJson) { EXPECT_THAT(load_error("{\"domain\": "), HasSubstr("m.json: not valid JSON")); }

TEST(MalformedText, RootNotObject) { EXPECT_THAT(load_error("[1, 2]"), HasSubstr("m.json: expected a JSON object at the root")); }

TEST(MalformedText, DuplicateKeyNamesItsObject) {
  const std::string text = R"({"domain": "d", "derive": {"a": "1", "b": "2", "a": "3"}})";
  EXPECT_THAT(load_error(text), HasSubstr("m.json: derive: duplicate key 'a'"));
  const std::string nested = R"({"variants": [{"id": "v"}, {"id": "w", "passes": [{"id": "p", "id": "q"}]}]})";
  EXPECT_THAT(load_error(nested), HasSubstr("m.json: variants[1].passes[0]: duplicate key 'id'"));
}

TEST(MalformedText, DeepNestingRefused) {
  const std::string text = "{\"a\": " + std::string(200, '[') + std::string(200, ']') + "}";
  EXPECT_THAT(load_error(text), HasSubstr("nested deeper than 64"));
}

// Both spellings resolve: the current seed with names rewritten to upstream names still loads.
TEST(Spellings, UpstreamNamesResolveInCurrentFormat) {
  Json j = seed(test::kCurrentSeed);
  j["derive"]["tokenCount"] = "dim(shapes.X, 1) if ranks.X == 3 else dim(shapes.X, 2)";
  j["derive"]["rotationPairs"] = "dim(shapes.cos_cache, -1) + 0 * ranks.position_ids + (1 if present.position_ids else 0) * 0";
  EXPECT_NO_THROW(load_contract(j.dump()));
}

// docs/kernel-conventions.md additions load.
TEST(Additions, RankListValueRangeChecks) {
  Json j = seed(test::kCurrentSeed);
  j["inputs"]["x"]["rank"] = {3, 4};
  j["inputs"]["positionIds"]["valueRange"] = {{"min", 0}, {"max", "dim(shapes.cos, 0) - 1"}};
  j["checks"] = Json::array({{{"when", "ranks.x == 3 or ranks.x == 4"}, {"message", "X must be rank 3 or 4"}}});
  const Contract c = load_contract(j.dump());
  EXPECT_THAT(c.inputs[0].ranks, ::testing::ElementsAre(3, 4));
  ASSERT_TRUE(c.inputs[3].value_min && c.inputs[3].value_max);
  EXPECT_EQ(c.inputs[3].value_max->text(), "dim(shapes.cos, 0) - 1");
  ASSERT_EQ(c.checks.size(), 1u);
  EXPECT_EQ(c.checks[0].message, "X must be rank 3 or 4");
}

}  // namespace
}  // namespace wgk::contract
