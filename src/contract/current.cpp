// The current manifest format (seed 004 plus docs/kernel-conventions.md): `inputs`/`outputs` as
// objects keyed by argument name with `onnx` upstream names, a `bindings` object, variant
// `priority` and `derive`, pass `shader`, `derive`, `bindings` (ids) and `dispatch` x/y/z.
#include <algorithm>
#include <map>
#include <set>

#include "contract/draft.h"
#include "wgk/error.h"

namespace wgk::contract::detail {
namespace {

Input parse_input(const std::string& name, const Node& node) {
  node.expect_keys({"onnx", "dtype", "rank", "optional", "storage", "narrowing", "description", "valueRange"});
  if (!is_identifier(name)) node.fail("input name '" + name + "' is not a name an expression can spell");
  Input input;
  input.name = name;
  input.onnx_name = name;
  if (auto n = node.find("onnx")) input.onnx_name = n->identifier();
  input.dtype = node.require("dtype").identifier();
  if (auto n = node.find("rank")) input.ranks = parse_ranks(*n);
  if (auto n = node.find("optional")) input.optional = n->boolean();
  parse_storage(node.find("storage"), node.find("narrowing"), "storage", input);
  if (auto n = node.find("description")) input.description = n->string();
  if (auto n = node.find("valueRange")) {
    n->expect_keys({"min", "max"});
    if (auto m = n->find("min")) input.value_min = m->expression();
    if (auto m = n->find("max")) input.value_max = m->expression();
    if (!input.value_min && !input.value_max) n->fail("valueRange needs `min`, `max` or both");
  }
  return input;
}

Output parse_output(const std::string& name, const Node& node) {
  node.expect_keys({"onnx", "dtype", "rank", "shape", "optional", "description"});
  if (!is_identifier(name)) node.fail("output name '" + name + "' is not a name an expression can spell");
  Output output;
  output.name = name;
  output.onnx_name = name;
  if (auto n = node.find("onnx")) output.onnx_name = n->identifier();
  output.dtype = node.require("dtype").identifier();
  output.rank = node.require("rank").expression();
  output.shape = node.require("shape").expression();
  if (auto n = node.find("optional")) output.optional = n->boolean();
  if (auto n = node.find("description")) output.description = n->string();
  return output;
}

Binding parse_binding(const std::string& id, const Node& node, const Contract& contract) {
  node.expect_keys({"name", "arg", "elementType", "struct", "description"});
  Binding b;
  b.id = id;
  if (auto n = node.find("name")) {
    b.name = n->identifier();
  } else {
    if (!is_identifier(id)) node.fail("binding id '" + id + "' is not a WGSL name: give it a `name`");
    b.name = id;
  }
  if (auto s = node.find("struct")) {
    if (node.find("elementType") || node.find("arg")) {
      node.fail("a binding has either `struct` (uniform params) or `arg` + `elementType` (a tensor), not both");
    }
    b.kind = BindingKind::kUniform;
    std::set<std::string> names;
    for (const Node& f : s->elements()) {
      b.fields.push_back(parse_struct_field(f));
      if (!names.insert(b.fields.back().name).second) f.fail("struct field '" + b.fields.back().name + "' listed twice");
    }
    if (b.fields.empty()) s->fail("a uniform struct needs at least one field");
    return b;
  }
  b.element_type = parse_element_type(node.require("elementType"));
  std::optional<Node> arg_node = node.find("arg");
  const std::string arg = arg_node ? arg_node->string() : b.name;
  const Node& where = arg_node ? *arg_node : node;
  if (const Input* in = contract.find_input(arg)) {
    b.arg = in->name;
    b.kind = BindingKind::kReadOnlyStorage;
  } else if (const Output* out = contract.find_output(arg)) {
    b.arg = out->name;
    b.kind = BindingKind::kStorage;
  } else {
    where.fail("binding '" + id + "' names no input or output '" + arg + "'" +
               (arg_node ? "" : " (without `arg`, the binding name is the argument)"));
  }
  return b;
}

// A pass's `fusion` (docs/kernel-conventions.md "Fused calls"), after its bindings, dispatch and the
// derive lists that can see its template are parsed.
Fusion parse_fusion(const Node& node, const Pass& pass, const Variant& variant, const Contract& c,
                    const std::map<std::string, std::size_t, std::less<>>& binding_index) {
  node.expect_keys({"maxCalls", "perCall", "description"});
  Fusion f;
  const Node max_calls = node.require("maxCalls");
  const std::int64_t n = max_calls.integer();
  if (n < 1 || n > Fusion::kMaxFusedCalls)
    max_calls.fail("maxCalls " + std::to_string(n) + " is outside [1, " + std::to_string(Fusion::kMaxFusedCalls) + "]");
  f.max_calls = static_cast<std::uint32_t>(n);
  const Node per_call = node.require("perCall");
  std::set<std::size_t> listed;
  for (const Node& bn : per_call.elements()) {
    const std::string ref = bn.string();
    auto it = binding_index.find(ref);
    if (it == binding_index.end()) bn.fail("perCall names no binding '" + ref + "'");
    if (std::find(pass.bindings.begin(), pass.bindings.end(), it->second) == pass.bindings.end())
      bn.fail("perCall binding '" + ref + "' is not one of this pass's bindings");
    if (c.bindings[it->second].kind == BindingKind::kUniform)
      bn.fail("perCall binding '" + ref + "' is a uniform struct: uniforms are shared by the calls of a fused "
              "dispatch (calls fuse only when their bytes are equal)");
    if (!listed.insert(it->second).second) bn.fail("perCall binding '" + ref + "' listed twice");
  }
  if (listed.empty()) per_call.fail("perCall needs at least one binding (each call's outputs are its own)");
  for (std::size_t b : pass.bindings)
    if (c.bindings[b].kind == BindingKind::kStorage && !listed.count(b))
      per_call.fail("output binding '" + c.bindings[b].id + "' is not in perCall: each call writes its own outputs");
  for (std::size_t b : pass.bindings)
    if (listed.count(b)) f.per_call.push_back(b);
  const std::string& z = pass.dispatch.z.text();
  if (z != "1")
    node.fail("a pass with `fusion` needs dispatch.z = 1 (the runtime sets z to the number of calls), got '" + z + "'");
  auto reserved = [&](const std::vector<Derive>& derives, const std::string& where) {
    for (const Derive& d : derives)
      if (d.name == kFusedCallsName)
        node.fail("derive '" + d.name + "' (" + where + ") is the name the runtime gives a fused pass's template");
  };
  reserved(c.derive, "manifest");
  reserved(variant.derive, "variant " + variant.id);
  reserved(pass.derive, "pass " + pass.id);
  return f;
}

Dispatch parse_dispatch(const Node& node) {
  node.expect_keys({"x", "y", "z"});
  Dispatch d;
  d.x = node.require("x").expression();
  d.y = node.find("y") ? node.find("y")->expression() : expr::Expression::parse("1", node.where() + ".y");
  d.z = node.find("z") ? node.find("z")->expression() : expr::Expression::parse("1", node.where() + ".z");
  return d;
}

}  // namespace

Draft parse_current(const Node& root) {
  root.expect_keys({"domain", "name", "sinceVersion", "description", "inputs", "outputs", "attributes",
                    "attributeConstraints", "typeConstraints", "tunables", "derive", "checks", "bindings",
                    "variants"});
  Draft draft;
  draft.source = root.source();
  Contract& c = draft.contract;
  c.format = ManifestFormat::kCurrent;
  parse_identity(root, c);
  std::vector<std::string> input_paths, output_paths;
  for (const auto& [name, n] : root.require("inputs").members()) {
    c.inputs.push_back(parse_input(name, n));
    input_paths.push_back(n.path());
  }
  for (const auto& [name, n] : root.require("outputs").members()) {
    c.outputs.push_back(parse_output(name, n));
    output_paths.push_back(n.path());
  }
  if (c.outputs.empty()) root.require("outputs").fail("a kernel needs at least one output");
  check_tensor_names(c, input_paths, output_paths, draft.source);

  if (auto attrs = root.find("attributes")) {
    for (const auto& [name, n] : attrs->members()) {
      n.expect_keys({"type", "default", "description"});
      if (!is_identifier(name)) n.fail("attribute name '" + name + "' is not a name an expression can spell");
      Attribute a;
      a.name = name;
      if (auto d = n.find("default")) a.default_value = d->value();
      if (a.default_value) a.type = attribute_type_of(*a.default_value);
      const auto t = n.find("type");
      if (t) {
        const std::string type = t->string();
        const std::optional<AttributeType> declared = parse_attribute_type(type);
        if (!declared)
          t->fail("attribute type '" + type + "' is not INT, FLOAT, STRING, INTS, FLOATS or STRINGS (ONNX AttributeProto)");
        a.type = *declared;
      }
      // A declared type, or a list, is checked against the default (a list's every element).
      if (a.default_value && (t || a.default_value->is_list())) {
        try {
          attribute_value(a, *a.default_value);
        } catch (const Error& e) {
          n.require("default").fail("the default " + a.default_value->repr() + " is not of type " +
                                    attribute_type_name(a.type) + " (" + e.what() + ")");
        }
      }
      if (auto d = n.find("description")) a.description = d->string();
      c.attributes.push_back(std::move(a));
    }
  }
  if (auto n = root.find("attributeConstraints")) parse_attribute_constraints(*n, c);
  if (auto tunables = root.find("tunables")) {
    for (const auto& [name, n] : tunables->members()) {
      n.expect_keys({"default", "description"});
      if (!is_identifier(name)) n.fail("tunable name '" + name + "' is not a name an expression can spell");
      c.tunables.push_back({name, n.require("default").value()});
    }
  }
  if (auto n = root.find("derive")) c.derive = parse_derive_object(*n);
  if (auto checks = root.find("checks")) {
    for (const Node& n : checks->elements()) {
      n.expect_keys({"when", "message"});
      c.checks.push_back({n.require("when").expression(), n.require("message").string()});
    }
  }

  std::map<std::string, std::size_t, std::less<>> binding_index;
  for (const auto& [id, n] : root.require("bindings").members()) {
    binding_index[id] = c.bindings.size();
    c.bindings.push_back(parse_binding(id, n, c));
    draft.binding_paths.push_back(n.path());
  }

  std::set<std::string> variant_ids;
  const Node variants = root.require("variants");
  for (const Node& vn : variants.elements()) {
    vn.expect_keys({"id", "priority", "when", "derive", "passes", "description"});
    Variant variant;
    variant.id = parse_unique_id(vn.require("id"), variant_ids, "variant");
    if (auto n = vn.find("priority")) {
      const std::int64_t p = n->integer();
      if (p < -1000000 || p > 1000000) n->fail("priority " + std::to_string(p) + " is outside [-1000000, 1000000]");
      variant.priority = static_cast<int>(p);
    }
    if (auto n = vn.find("when")) {
      for (const Node& w : n->elements()) variant.when.push_back(w.expression());
    }
    draft.variant_derive_paths.push_back(vn.child_path("derive"));
    if (auto n = vn.find("derive")) variant.derive = parse_derive_object(*n);
    draft.pass_derive_paths.emplace_back();
    std::set<std::string> pass_ids;
    const Node passes = vn.require("passes");
    for (const Node& pn : passes.elements()) {
      pn.expect_keys({"id", "name", "shader", "derive", "bindings", "dispatch", "fusion", "description"});
      Pass pass;
      pass.id = parse_unique_id(pn.require("id"), pass_ids, "pass");
      pass.name = pn.find("name") ? pn.find("name")->string() : pass.id;
      pass.shader = parse_shader_path(pn.require("shader"));
      draft.pass_derive_paths.back().push_back(pn.child_path("derive"));
      if (auto n = pn.find("derive")) pass.derive = parse_derive_object(*n);
      for (const Node& bn : pn.require("bindings").elements()) {
        const std::string ref = bn.string();
        auto it = binding_index.find(ref);
        if (it == binding_index.end()) bn.fail("unknown binding '" + ref + "'");
        pass.bindings.push_back(it->second);
      }
      pass.dispatch = parse_dispatch(pn.require("dispatch"));
      if (auto n = pn.find("fusion")) pass.fusion = parse_fusion(*n, pass, variant, c, binding_index);
      variant.passes.push_back(std::move(pass));
    }
    if (variant.passes.empty()) passes.fail("a variant needs at least one pass");
    c.variants.push_back(std::move(variant));
  }
  if (c.variants.empty()) variants.fail("a kernel needs at least one variant");
  return draft;
}

}  // namespace wgk::contract::detail
