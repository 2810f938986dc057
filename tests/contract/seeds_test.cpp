// Both seed manifests load into the one model and describe the same op (seed 000 is an older
// revision of seed 004's ai.onnx::RotaryEmbedding package). Expected values are read off the seed
// files by hand; dispatch numbers are derived by hand in comments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "contract/contract.h"
#include "seed_paths.h"

namespace wgk::contract {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAreArray;
using test::kCurrentSeed;
using test::kLegacySeed;

class Seeds : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    current_ = new Contract(load_contract(test::read_text(kCurrentSeed), "004.manifest.json"));
    legacy_ = new Contract(load_contract(test::read_text(kLegacySeed), "000.manifest.json"));
  }
  static void TearDownTestSuite() {
    delete current_;
    delete legacy_;
  }
  static const Contract& current() { return *current_; }
  static const Contract& legacy() { return *legacy_; }

 private:
  static inline Contract* current_ = nullptr;
  static inline Contract* legacy_ = nullptr;
};

const Variant& variant(const Contract& c, std::string_view id) {
  auto it = std::find_if(c.variants.begin(), c.variants.end(), [&](const Variant& v) { return v.id == id; });
  if (it == c.variants.end()) throw std::runtime_error("no variant " + std::string(id));
  return *it;
}

std::size_t derive_position(const std::vector<Derive>& derive, std::string_view name) {
  for (std::size_t i = 0; i < derive.size(); ++i) {
    if (derive[i].name == name) return i;
  }
  ADD_FAILURE() << "no derive " << name;
  return derive.size();
}

TEST_F(Seeds, Formats) {
  EXPECT_EQ(current().format, ManifestFormat::kCurrent);
  EXPECT_EQ(legacy().format, ManifestFormat::kLegacy);
  for (const Contract* c : {&current(), &legacy()}) {
    EXPECT_EQ(c->domain, "ai.onnx");
    EXPECT_EQ(c->name, "RotaryEmbedding");
    EXPECT_EQ(c->since_version, 23);
  }
}

TEST_F(Seeds, SameInputsByName) {
  for (const Contract* c : {&current(), &legacy()}) {
    ASSERT_EQ(c->inputs.size(), 4u);
    std::vector<std::string> names, onnx, dtypes;
    for (const Input& i : c->inputs) {
      names.push_back(i.name);
      onnx.push_back(i.onnx_name);
      dtypes.push_back(i.dtype);
    }
    EXPECT_THAT(names, ElementsAre("x", "cos", "sin", "positionIds"));
    EXPECT_THAT(onnx, ElementsAre("X", "cos_cache", "sin_cache", "position_ids"));
    EXPECT_THAT(dtypes, ElementsAre("T", "T", "T", "M"));
    for (int k = 0; k < 3; ++k) {
      EXPECT_FALSE(c->inputs[k].optional);
      EXPECT_TRUE(c->inputs[k].ranks.empty());
      EXPECT_FALSE(c->inputs[k].storage.has_value());
    }
    const Input& pos = c->inputs[3];
    EXPECT_TRUE(pos.optional);
    EXPECT_THAT(pos.ranks, ElementsAre(2));
    EXPECT_EQ(pos.storage, DType::kUInt32);
    EXPECT_TRUE(pos.checked_narrowing);
    // Either spelling finds the same input.
    EXPECT_EQ(c->find_input("position_ids"), &pos);
    EXPECT_EQ(c->find_input("positionIds"), &pos);
    ASSERT_EQ(c->outputs.size(), 1u);
    EXPECT_EQ(c->outputs[0].name, "y");
    EXPECT_EQ(c->outputs[0].onnx_name, "Y");
    EXPECT_EQ(c->outputs[0].dtype, "T");
  }
  EXPECT_EQ(current().outputs[0].shape.text(), "shapes.x");
  EXPECT_EQ(legacy().outputs[0].shape.text(), "shapes.X");
}

TEST_F(Seeds, SameAttributesAndConstraints) {
  for (const Contract* c : {&current(), &legacy()}) {
    std::set<std::string> names;
    for (const Attribute& a : c->attributes) names.insert(a.name);
    EXPECT_EQ(names, (std::set<std::string>{"interleaved", "rotary_embedding_dim", "num_heads"}));
    ASSERT_NE(c->find_attribute("interleaved"), nullptr);
    EXPECT_EQ(c->find_attribute("interleaved")->default_value, expr::Value(0));
    EXPECT_THAT(c->find_attribute("interleaved")->allowed_values, ElementsAre(expr::Value(0), expr::Value(1)));
    EXPECT_EQ(c->find_attribute("rotary_embedding_dim")->default_value, expr::Value(0));
    EXPECT_TRUE(c->find_attribute("rotary_embedding_dim")->allowed_values.empty());
    EXPECT_FALSE(c->find_attribute("num_heads")->default_value.has_value());
    ASSERT_EQ(c->type_constraints.size(), 2u);
    EXPECT_THAT(c->find_type_constraint("T")->allowed, ElementsAre(DType::kFloat32, DType::kFloat16));
    EXPECT_THAT(c->find_type_constraint("M")->allowed, ElementsAre(DType::kInt64));
    ASSERT_NE(c->find_tunable("WORKGROUP_SIZE"), nullptr);
    EXPECT_EQ(c->find_tunable("WORKGROUP_SIZE")->default_value, expr::Value(256));
  }
  // The legacy card's descriptions travel; num_heads has one but no default.
  EXPECT_THAT(legacy().find_attribute("num_heads")->description, ::testing::HasSubstr("attention heads"));
}

TEST_F(Seeds, VariantIdsAndPriorities) {
  std::vector<std::string> legacy_ids;
  for (const Variant& v : legacy().variants) legacy_ids.push_back(v.id);
  EXPECT_THAT(legacy_ids, ElementsAre("rank3_cache2_pos", "rank4_cache2_pos", "rank3_cache3", "rank4_cache3"));
  EXPECT_EQ(current().variants.size(), 12u);
  for (const Variant& v : legacy().variants) {
    EXPECT_EQ(v.priority, 0) << v.id;  // the legacy format has no priority
    EXPECT_EQ(variant(current(), v.id).priority, 0) << v.id;  // the same ids are seed 004's pair variants
    ASSERT_EQ(v.passes.size(), 1u);
    EXPECT_EQ(v.passes[0].shader, "rotary-embedding.wgsl.jinja");
    EXPECT_EQ(variant(current(), v.id).passes[0].shader, "rotary-embedding.wgsl.jinja");
  }
  EXPECT_EQ(variant(current(), "rank3_cache2_pos_quad").priority, 10);
  EXPECT_EQ(variant(current(), "rank4_cache3_output_vec4").priority, 20);
  // Legacy `constants` are the variant derive; `source.inputs` the pass derive.
  const Variant& v = variant(legacy(), "rank3_cache2_pos");
  std::vector<std::string> names;
  for (const Derive& d : v.derive) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("interleaved", "usesF16", "scalar"));
  names.clear();
  for (const Derive& d : v.passes[0].derive) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("rank", "hasPositionIds"));
  EXPECT_THAT(v.when.size(), 2u);
  EXPECT_EQ(v.when[0].text(), "rank3PosContract");
}

// Legacy binding set <-> the binding list of the same-id current variant: same WGSL names, kinds,
// tensor arguments and element types; the params struct has the same fields. Seed 000 orders
// rank3/rank3Pos params as pairCount, sequenceLength, numHeads, ...; seed 004 as pairCount,
// numHeads, sequenceLength, ...: the field SET is equal, the order (so the uniform layout) differs.
TEST_F(Seeds, LegacyBindingSetsMatchCurrentBindings) {
  const std::map<std::string, std::pair<std::string, bool>> expected = {
      // legacy variant -> (current params binding, same field order?)
      {"rank3_cache3", {"params_pair_cache3", false}},
      {"rank3_cache2_pos", {"params_pair", false}},
      {"rank4_cache2_pos", {"params_pair", true}},
      {"rank4_cache3", {"params_pair_cache3", true}},
  };
  for (const auto& [id, params] : expected) {
    SCOPED_TRACE(id);
    const Pass& old_pass = variant(legacy(), id).passes[0];
    const Pass& new_pass = variant(current(), id).passes[0];
    ASSERT_EQ(old_pass.bindings.size(), new_pass.bindings.size());
    for (std::size_t k = 0; k < old_pass.bindings.size(); ++k) {
      const Binding& a = legacy().bindings[old_pass.bindings[k]];
      const Binding& b = current().bindings[new_pass.bindings[k]];
      EXPECT_EQ(a.name, b.name);
      EXPECT_EQ(a.kind, b.kind);
      EXPECT_EQ(a.arg, b.arg);
      EXPECT_EQ(a.element_type, b.element_type);
      if (a.kind != BindingKind::kUniform) continue;
      EXPECT_EQ(b.id, params.first);
      std::vector<std::string> fa, fb;
      for (const StructField& f : a.fields) fa.push_back(f.name + ":" + f.type);
      for (const StructField& f : b.fields) fb.push_back(f.name + ":" + f.type);
      EXPECT_THAT(fa, UnorderedElementsAreArray(fb));
      EXPECT_EQ(fa == fb, params.second);
    }
  }
  // Kinds from the legacy buffer.type; element types from the set.
  const Pass& p = variant(legacy(), "rank3_cache2_pos").passes[0];
  std::vector<std::string> seen;
  for (std::size_t i : p.bindings) {
    const Binding& b = legacy().bindings[i];
    seen.push_back(b.id + "|" + std::to_string(static_cast<int>(b.kind)) + "|" + b.element_type);
  }
  EXPECT_THAT(seen, ElementsAre("rank3Pos.x|0|$T", "rank3Pos.cos_cache|0|$T", "rank3Pos.sin_cache|0|$T",
                                "rank3Pos.position_ids|0|$M", "rank3Pos.y|1|$T", "rank3Pos.params|2|"));
}

// Legacy dispatch {threads: numel(shapes.X) / 2, workgroupSize: tunables.WORKGROUP_SIZE} becomes
// the 2-D split. For x of shape (1, 32, 65536, 128) (the 1 GiB case of docs/PERF.md): numel = 2^28,
// threads = 2^27, groups = 2^27 / 256 = 524288; x = min(524288, 65535) = 65535,
// y = ceilDiv(524288, 65535) = 9 (8 * 65535 = 524280 < 524288), z = 1. Seed 004's rank4_cache3
// dispatch gives the same numbers.
TEST_F(Seeds, LegacyDispatchConvertedTo2DSplit) {
  const Dispatch& d = variant(legacy(), "rank4_cache3").passes[0].dispatch;
  EXPECT_EQ(d.x.text(), "min(ceilDiv((numel(shapes.X) / 2), (tunables.WORKGROUP_SIZE)), 65535)");
  EXPECT_EQ(d.y.text(), "ceilDiv(ceilDiv((numel(shapes.X) / 2), (tunables.WORKGROUP_SIZE)), 65535)");
  EXPECT_EQ(d.z.text(), "1");
  const expr::Value shape = expr::List{1, 32, 65536, 128};
  const expr::ObjectScope scope(expr::Object{
      {"shapes", expr::Object{{"X", shape}, {"x", shape}}},
      {"tunables", expr::Object{{"WORKGROUP_SIZE", 256}}},
  });
  const Dispatch& c = variant(current(), "rank4_cache3").passes[0].dispatch;
  for (const Dispatch* dispatch : {&d, &c}) {
    EXPECT_EQ(dispatch->x.evaluate(scope), expr::Value(65535));
    EXPECT_EQ(dispatch->y.evaluate(scope), expr::Value(9));
    EXPECT_EQ(dispatch->z.evaluate(scope), expr::Value(1));
  }
  // A small tensor stays 1-D: (2, 4, 3, 8) has 192 elements, 96 pairs, ceilDiv(96, 256) = 1 group.
  const expr::Value small = expr::List{2, 4, 3, 8};
  const expr::ObjectScope small_scope(expr::Object{
      {"shapes", expr::Object{{"X", small}}},
      {"tunables", expr::Object{{"WORKGROUP_SIZE", 256}}},
  });
  EXPECT_EQ(d.x.evaluate(small_scope), expr::Value(1));
  EXPECT_EQ(d.y.evaluate(small_scope), expr::Value(1));
}

TEST_F(Seeds, DeriveInDependencyOrder) {
  const auto& derive = current().derive;
  ASSERT_EQ(derive.size(), 16u);
  EXPECT_LT(derive_position(derive, "quad3Ok"), derive_position(derive, "quadOk"));
  EXPECT_LT(derive_position(derive, "quad4Ok"), derive_position(derive, "quadOk"));
  EXPECT_LT(derive_position(derive, "quadCacheOk"), derive_position(derive, "quad3Ok"));
  EXPECT_LT(derive_position(derive, "rank3HeadSize"), derive_position(derive, "rank3Contract"));
  EXPECT_LT(derive_position(derive, "rank3HeadSize"), derive_position(derive, "headElements"));
  // Seed 004 already lists each name after what it reads, so the stable order is the file order.
  std::vector<std::string> names;
  for (const Derive& d : derive) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("pairDispatchOk", "rank3HeadSize", "rank3Contract", "rank4Contract", "rank3PosContract",
                                 "rank4PosContract", "quadCacheOk", "quad3Ok", "quad4Ok", "quadOk", "quadDispatchOk",
                                 "headElements", "headCount", "tokenCount", "rotationPairs", "rotaryOutputWg"));
  EXPECT_LT(derive_position(legacy().derive, "rank3HeadSize"), derive_position(legacy().derive, "rank3Contract"));
}

// File order reversed: the loader reorders. Stable rule: repeatedly take the earliest name whose
// dependencies are placed. {quadOk, quad4Ok, quad3Ok, quadCacheOk, rank3HeadSize}:
// quadOk waits (quad3Ok, quad4Ok), quad4Ok waits (quadCacheOk), quad3Ok waits, quadCacheOk is
// ready -> quadCacheOk; then quad4Ok -> quad4Ok; quadOk still waits, quad3Ok waits on
// rank3HeadSize -> rank3HeadSize; then quad3Ok; then quadOk.
TEST(DeriveOrder, ReversedFileOrderIsReordered) {
  const std::string text = R"json({
    "domain": "d", "name": "n", "sinceVersion": 1,
    "inputs": {"x": {"dtype": "T"}}, "outputs": {"y": {"dtype": "T", "rank": "ranks.x", "shape": "shapes.x"}},
    "attributes": {"num_heads": {}},
    "typeConstraints": {"T": ["float32"]},
    "derive": {
      "quadOk": "quad3Ok if ranks.x == 3 else quad4Ok",
      "quad4Ok": "ranks.x == 4 and quadCacheOk",
      "quad3Ok": "rank3HeadSize % 8 == 0 and quadCacheOk",
      "quadCacheOk": "dim(shapes.x, -1) % 4 == 0",
      "rank3HeadSize": "dim(shapes.x, 2) // attrs.num_heads"
    },
    "bindings": {"x": {"elementType": "$T"}, "y": {"elementType": "$T"}},
    "variants": [{"id": "v", "when": ["quadOk"],
      "derive": {"b": "a + 1", "a": "quadOk"},
      "passes": [{"id": "main", "shader": "s.wgsl.jinja", "bindings": ["x", "y"],
        "derive": {"c": "b and a"}, "dispatch": {"x": "ceilDiv(numel(shapes.x), 64)"}}]}]
  })json";
  const Contract c = load_contract(text);
  std::vector<std::string> names;
  for (const Derive& d : c.derive) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("quadCacheOk", "quad4Ok", "rank3HeadSize", "quad3Ok", "quadOk"));
  names.clear();
  for (const Derive& d : c.variants[0].derive) names.push_back(d.name);
  EXPECT_THAT(names, ElementsAre("a", "b"));
  EXPECT_EQ(c.variants[0].passes[0].dispatch.y.text(), "1");  // y and z default to 1
}

}  // namespace
}  // namespace wgk::contract
