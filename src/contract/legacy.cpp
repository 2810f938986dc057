// The legacy manifest format (seed 000), migrated to the current model:
// - `inputs`/`outputs` are lists keyed by `role` (the upstream name); `args` maps the kernel's
//   argument names to roles (`semantic`), and carries storage (`dtype`), `narrowing`, `required`.
// - `attributes` is a plain object of defaults; `attributeDescriptions` may name more (no default).
// - `tunables` are plain values; variants have no priority (0).
// - `bindingSets` are named lists of inline bindings (`buffer.type`, `struct.fields`); a pass names
//   one set. Binding ids become "<set>.<name>".
// - variant `constants` = variant derive; pass `source.shader` + `source.inputs` = shader + derive.
// - 1-D `dispatch.threads` + `workgroupSize` becomes the 2-D split of docs/kernel-conventions.md:
//   x = min(ceilDiv(threads, wg), 65535), y = ceilDiv(ceilDiv(threads, wg), 65535), z = 1.
#include <algorithm>
#include <map>
#include <set>

#include "contract/draft.h"
#include "wgk/error.h"

namespace wgk::contract::detail {
namespace {

struct ArgClaim {
  std::string arg;   // claiming args entry
  std::string path;  // its JSON path
};

Input parse_input(const Node& node) {
  node.expect_keys({"role", "dtype", "rank", "optional", "description"});
  Input input;
  input.onnx_name = node.require("role").identifier();
  input.name = input.onnx_name;  // replaced by the args entry that names this role
  input.dtype = node.require("dtype").identifier();
  if (auto n = node.find("rank")) input.ranks = parse_ranks(*n);
  if (auto n = node.find("optional")) input.optional = n->boolean();
  if (auto n = node.find("description")) input.description = n->string();
  return input;
}

Output parse_output(const Node& node) {
  node.expect_keys({"role", "dtype", "rank", "shape", "description"});
  Output output;
  output.onnx_name = node.require("role").identifier();
  output.name = output.onnx_name;
  output.dtype = node.require("dtype").identifier();
  output.rank = node.require("rank").expression();
  output.shape = node.require("shape").expression();
  if (auto n = node.find("description")) output.description = n->string();
  return output;
}

// Applies `args` to the inputs and outputs parsed from the role lists: argument names, storage,
// narrowing, optionality. Each role is claimed by exactly one args entry of the matching role.
void apply_args(const Node& args, Contract& c, const std::vector<Node>& input_nodes,
                const std::vector<Node>& output_nodes) {
  std::vector<std::optional<ArgClaim>> input_claims(c.inputs.size()), output_claims(c.outputs.size());
  for (const auto& [name, n] : args.members()) {
    n.expect_keys({"kind", "semantic", "role", "dtype", "narrowing", "required", "description"});
    if (!is_identifier(name)) n.fail("argument name '" + name + "' is not a name an expression can spell");
    if (auto k = n.find("kind")) {
      if (k->string() != "tensor") k->fail("unknown argument kind '" + k->string() + "' (allowed: tensor)");
    }
    const Node semantic_node = n.require("semantic");
    const std::string semantic = semantic_node.string();
    const Node role_node = n.require("role");
    const std::string role = role_node.string();
    if (role != "input" && role != "output") role_node.fail("unknown role '" + role + "' (allowed: input, output)");
    const bool is_input = role == "input";
    std::size_t index = 0;
    if (is_input) {
      while (index < c.inputs.size() && c.inputs[index].onnx_name != semantic) ++index;
      if (index == c.inputs.size()) semantic_node.fail("no inputs entry has role '" + semantic + "'");
    } else {
      while (index < c.outputs.size() && c.outputs[index].onnx_name != semantic) ++index;
      if (index == c.outputs.size()) semantic_node.fail("no outputs entry has role '" + semantic + "'");
    }
    auto& claim = is_input ? input_claims[index] : output_claims[index];
    if (claim) semantic_node.fail("role '" + semantic + "' is already the argument '" + claim->arg + "' (" + claim->path + ")");
    claim = ArgClaim{name, n.path()};
    if (!is_input) {
      for (const char* key : {"dtype", "narrowing", "required"}) {
        if (n.find(key)) n.find(key)->fail(std::string("`") + key + "` applies to inputs only");
      }
      c.outputs[index].name = name;
      continue;
    }
    Input& input = c.inputs[index];
    input.name = name;
    parse_storage(n.find("dtype"), n.find("narrowing"), "dtype", input);
    if (auto d = n.find("required")) {
      const bool required = d->boolean();
      const bool said_optional = input_nodes[index].find("optional").has_value();
      if (said_optional && input.optional == required) {
        d->fail(std::string("`required: ") + (required ? "true" : "false") + "` contradicts " +
                input_nodes[index].path() + ".optional");
      }
      input.optional = !required;
    }
  }
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (!input_claims[i]) input_nodes[i].fail("no args entry has semantic '" + c.inputs[i].onnx_name + "'");
  }
  for (std::size_t i = 0; i < c.outputs.size(); ++i) {
    if (!output_claims[i]) output_nodes[i].fail("no args entry has semantic '" + c.outputs[i].onnx_name + "'");
  }
}

Binding parse_binding(const std::string& set, const Node& node, const Contract& c) {
  node.expect_keys({"name", "arg", "semantic", "buffer", "elementType", "struct", "description"});
  Binding b;
  b.name = node.require("name").identifier();
  b.id = set + "." + b.name;
  const Node buffer = node.require("buffer");
  buffer.expect_keys({"type"});
  const Node type_node = buffer.require("type");
  const std::string type = type_node.string();
  if (type == "uniform") {
    b.kind = BindingKind::kUniform;
  } else if (type == "read-only-storage") {
    b.kind = BindingKind::kReadOnlyStorage;
  } else if (type == "storage") {
    b.kind = BindingKind::kStorage;
  } else {
    type_node.fail("unknown buffer type '" + type + "' (allowed: read-only-storage, storage, uniform)");
  }
  if (b.kind == BindingKind::kUniform) {
    if (node.find("arg") || node.find("elementType")) node.fail("a uniform binding carries a `struct`, not `arg`/`elementType`");
    const Node s = node.require("struct");
    s.expect_keys({"name", "fields"});
    if (auto n = s.find("name")) b.struct_name = n->identifier();
    std::set<std::string> names;
    const Node fields = s.require("fields");
    for (const Node& f : fields.elements()) {
      b.fields.push_back(parse_struct_field(f));
      if (!names.insert(b.fields.back().name).second) f.fail("struct field '" + b.fields.back().name + "' listed twice");
    }
    if (b.fields.empty()) fields.fail("a uniform struct needs at least one field");
    return b;
  }
  if (node.find("struct")) node.fail("a storage binding carries `arg` + `elementType`, not a `struct`");
  b.element_type = parse_element_type(node.require("elementType"));
  const Node arg_node = node.require("arg");
  const std::string arg = arg_node.string();
  const Input* in = c.find_input(arg);
  const Output* out = in ? nullptr : c.find_output(arg);
  if (!in && !out) arg_node.fail("names no input or output '" + arg + "'");
  b.arg = in ? in->name : out->name;
  if (auto s = node.find("semantic")) {
    const std::string& role = in ? in->onnx_name : out->onnx_name;
    if (s->string() != role) s->fail("semantic '" + s->string() + "' is not the role of '" + b.arg + "' ('" + role + "')");
  }
  if (out && b.kind != BindingKind::kStorage) type_node.fail("output '" + b.arg + "' must be bound as 'storage'");
  if (in && b.kind != BindingKind::kReadOnlyStorage) type_node.fail("input '" + b.arg + "' must be bound as 'read-only-storage'");
  return b;
}

// threads + workgroupSize -> the 2-D split. Each part is parsed on its own first, so a syntax
// error names its own path and column.
Dispatch parse_dispatch(const Node& node) {
  node.expect_keys({"threads", "workgroupSize"});
  const expr::Expression threads = node.require("threads").expression();
  const expr::Expression wg = node.require("workgroupSize").expression();
  const std::string groups = "ceilDiv((" + threads.text() + "), (" + wg.text() + "))";
  const std::string where = node.where();
  Dispatch d;
  d.x = expr::Expression::parse("min(" + groups + ", 65535)", where + " (x, from threads/workgroupSize)");
  d.y = expr::Expression::parse("ceilDiv(" + groups + ", 65535)", where + " (y, from threads/workgroupSize)");
  d.z = expr::Expression::parse("1", where + " (z)");
  return d;
}

}  // namespace

Draft parse_legacy(const Node& root) {
  root.expect_keys({"domain", "name", "sinceVersion", "description", "inputs", "outputs", "attributes",
                    "attributeDescriptions", "attributeConstraints", "typeConstraints", "args", "tunables",
                    "derive", "bindingSets", "variants"});
  Draft draft;
  draft.source = root.source();
  Contract& c = draft.contract;
  c.format = ManifestFormat::kLegacy;
  parse_identity(root, c);
  const std::vector<Node> input_nodes = root.require("inputs").elements();
  for (const Node& n : input_nodes) c.inputs.push_back(parse_input(n));
  const Node outputs = root.require("outputs");
  const std::vector<Node> output_nodes = outputs.elements();
  for (const Node& n : output_nodes) c.outputs.push_back(parse_output(n));
  if (c.outputs.empty()) outputs.fail("a kernel needs at least one output");
  apply_args(root.require("args"), c, input_nodes, output_nodes);
  std::vector<std::string> input_paths, output_paths;
  for (const Node& n : input_nodes) input_paths.push_back(n.path());
  for (const Node& n : output_nodes) output_paths.push_back(n.path());
  check_tensor_names(c, input_paths, output_paths, draft.source);

  if (auto attrs = root.find("attributes")) {
    for (const auto& [name, n] : attrs->members()) {
      if (!is_identifier(name)) n.fail("attribute name '" + name + "' is not a name an expression can spell");
      {
        Attribute a{name, AttributeType::kInt, n.value(), {}, ""};
        a.type = attribute_type_of(*a.default_value);
        c.attributes.push_back(std::move(a));
      }
    }
  }
  if (auto descriptions = root.find("attributeDescriptions")) {
    for (const auto& [name, n] : descriptions->members()) {
      auto it = std::find_if(c.attributes.begin(), c.attributes.end(),
                             [&attr = name](const Attribute& a) { return a.name == attr; });
      if (it == c.attributes.end()) {
        if (!is_identifier(name)) n.fail("attribute name '" + name + "' is not a name an expression can spell");
        c.attributes.push_back({name, AttributeType::kInt, std::nullopt, {}, ""});
        it = c.attributes.end() - 1;
      }
      it->description = n.string();
    }
  }
  if (auto n = root.find("attributeConstraints")) parse_attribute_constraints(*n, c);
  if (auto tunables = root.find("tunables")) {
    for (const auto& [name, n] : tunables->members()) {
      if (!is_identifier(name)) n.fail("tunable name '" + name + "' is not a name an expression can spell");
      if (n.json().is_object() || n.json().is_array() || n.json().is_null()) {
        n.fail("expected a tunable value (a number, string or boolean), got " + n.describe());
      }
      c.tunables.push_back({name, n.value()});
    }
  }
  if (auto n = root.find("derive")) c.derive = parse_derive_object(*n);

  // Each binding set becomes a run of bindings; a pass refers to the run.
  std::map<std::string, std::vector<std::size_t>, std::less<>> sets;
  for (const auto& [set, sn] : root.require("bindingSets").members()) {
    std::vector<std::size_t>& indices = sets[set];
    for (const Node& bn : sn.elements()) {
      indices.push_back(c.bindings.size());
      c.bindings.push_back(parse_binding(set, bn, c));
      draft.binding_paths.push_back(bn.path());
    }
    if (indices.empty()) sn.fail("binding set '" + set + "' is empty");
  }

  std::set<std::string> variant_ids;
  const Node variants = root.require("variants");
  for (const Node& vn : variants.elements()) {
    vn.expect_keys({"id", "when", "constants", "passes", "description"});
    Variant variant;
    variant.id = parse_unique_id(vn.require("id"), variant_ids, "variant");
    if (auto n = vn.find("when")) {
      for (const Node& w : n->elements()) variant.when.push_back(w.expression());
    }
    draft.variant_derive_paths.push_back(vn.child_path("constants"));
    if (auto n = vn.find("constants")) variant.derive = parse_derive_object(*n);
    draft.pass_derive_paths.emplace_back();
    std::set<std::string> pass_ids;
    const Node passes = vn.require("passes");
    for (const Node& pn : passes.elements()) {
      pn.expect_keys({"id", "name", "source", "bindings", "dispatch", "description"});
      Pass pass;
      pass.id = parse_unique_id(pn.require("id"), pass_ids, "pass");
      pass.name = pn.find("name") ? pn.find("name")->string() : pass.id;
      const Node source = pn.require("source");
      source.expect_keys({"shader", "inputs"});
      pass.shader = parse_shader_path(source.require("shader"));
      draft.pass_derive_paths.back().push_back(source.child_path("inputs"));
      if (auto n = source.find("inputs")) pass.derive = parse_derive_object(*n);
      const Node set = pn.require("bindings");
      const std::string set_name = set.string();
      auto it = sets.find(set_name);
      if (it == sets.end()) set.fail("unknown binding set '" + set_name + "'");
      pass.bindings = it->second;
      pass.dispatch = parse_dispatch(pn.require("dispatch"));
      variant.passes.push_back(std::move(pass));
    }
    if (variant.passes.empty()) passes.fail("a variant needs at least one pass");
    c.variants.push_back(std::move(variant));
  }
  if (c.variants.empty()) variants.fail("a kernel needs at least one variant");
  return draft;
}

}  // namespace wgk::contract::detail
