// Schema pieces shared by both manifest formats (draft.h).
#include <algorithm>
#include <map>
#include <set>

#include "contract/draft.h"
#include "contract/scope_names.h"
#include "wgk/error.h"

namespace wgk::contract::detail {

std::string parse_unique_id(const Node& node, std::set<std::string>& seen, std::string_view what) {
  std::string id = node.string();
  if (id.empty()) node.fail("empty " + std::string(what) + " id");
  if (!seen.insert(id).second) node.fail("duplicate " + std::string(what) + " id '" + id + "'");
  return id;
}

void parse_identity(const Node& root, Contract& c) {
  c.domain = root.require("domain").string();
  c.name = root.require("name").string();
  const Node since = root.require("sinceVersion");
  const std::int64_t v = since.integer();
  if (v < 1 || v > 1000) since.fail("sinceVersion " + std::to_string(v) + " is not an opset version");
  c.since_version = static_cast<int>(v);
  if (auto n = root.find("description")) c.description = n->string();
  for (const auto& [name, tc] : root.require("typeConstraints").members()) {
    c.type_constraints.push_back(parse_type_constraint(name, tc));
  }
}

TypeConstraint parse_type_constraint(const std::string& name, const Node& node) {
  if (!is_identifier(name)) node.fail("type constraint '" + name + "' is not a name");
  TypeConstraint tc{name, {}};
  const auto elements = node.elements();
  if (elements.empty()) node.fail("type constraint '" + name + "' allows no dtype");
  for (const Node& e : elements) {
    const std::string dtype = e.string();
    const auto parsed = parse_dtype(dtype);
    if (!parsed) e.fail("unknown dtype '" + dtype + "' (allowed: float32, float16, int64, uint32)");
    if (std::find(tc.allowed.begin(), tc.allowed.end(), *parsed) != tc.allowed.end()) {
      e.fail("dtype '" + dtype + "' listed twice");
    }
    tc.allowed.push_back(*parsed);
  }
  return tc;
}

void parse_storage(const std::optional<Node>& storage, const std::optional<Node>& narrowing, std::string_view storage_key,
                   Input& input) {
  if (storage) {
    const std::string s = storage->string();
    input.storage = parse_dtype(s);
    if (!input.storage) storage->fail("unknown storage dtype '" + s + "' (allowed: float32, float16, int64, uint32)");
  }
  if (narrowing) {
    const std::string s = narrowing->string();
    if (s != "checked") narrowing->fail("unknown narrowing '" + s + "' (allowed: checked)");
    if (!input.storage) narrowing->fail("narrowing needs a storage dtype (`" + std::string(storage_key) + "`) to narrow to");
    input.checked_narrowing = true;
  }
}

std::vector<Derive> parse_derive_object(const Node& node) {
  std::vector<Derive> out;
  for (const auto& [name, value] : node.members()) {
    if (!is_identifier(name)) value.fail("derive name '" + name + "' is not a name an expression can spell");
    if (std::find(kScopeRoots.begin(), kScopeRoots.end(), name) != kScopeRoots.end()) {
      value.fail("derive name '" + name + "' would shadow the scope root '" + name + "'");
    }
    out.push_back({name, value.expression()});
  }
  return out;
}

StructField parse_struct_field(const Node& node) {
  node.expect_keys({"name", "type", "value", "description"});
  StructField field;
  field.name = node.require("name").identifier();
  const Node type = node.require("type");
  field.type = type.string();
  if (field.type != "u32" && field.type != "i32" && field.type != "f32") {
    type.fail("struct field type '" + field.type + "' is not one of u32, i32, f32");
  }
  field.value = node.require("value").expression();
  return field;
}

std::vector<int> parse_ranks(const Node& node) {
  constexpr std::int64_t kMaxRank = 32;
  auto one = [&](const Node& n) {
    const std::int64_t r = n.integer();
    if (r < 0 || r > kMaxRank) n.fail("rank " + std::to_string(r) + " is outside [0, 32]");
    return static_cast<int>(r);
  };
  if (node.json().is_array()) {
    std::vector<int> ranks;
    for (const Node& e : node.elements()) {
      const int r = one(e);
      if (std::find(ranks.begin(), ranks.end(), r) != ranks.end()) e.fail("rank " + std::to_string(r) + " listed twice");
      ranks.push_back(r);
    }
    if (ranks.empty()) node.fail("an empty rank list accepts no tensor");
    return ranks;
  }
  if (!node.json().is_number_integer()) node.fail("expected a rank (an integer) or a list of ranks, got " + node.describe());
  return {one(node)};
}

void parse_attribute_constraints(const Node& node, Contract& contract) {
  for (const auto& [name, value] : node.members()) {
    auto it = std::find_if(contract.attributes.begin(), contract.attributes.end(),
                           [&attr = name](const Attribute& a) { return a.name == attr; });
    if (it == contract.attributes.end()) {
      std::string declared;
      for (const Attribute& a : contract.attributes) declared += (declared.empty() ? "" : ", ") + a.name;
      value.fail("unknown attribute '" + name + "' (declared: " + declared + ")");
    }
    value.expect_keys({"values"});
    const Node values = value.require("values");
    for (const Node& v : values.elements()) it->allowed_values.push_back(v.value());
    if (it->allowed_values.empty()) values.fail("an empty list of allowed values accepts nothing");
    if (it->default_value && !is_list_type(it->type) &&
        std::find(it->allowed_values.begin(), it->allowed_values.end(), *it->default_value) ==
            it->allowed_values.end()) {
      values.fail("the default of '" + name + "' (" + it->default_value->repr() + ") is not an allowed value");
    }
    // A list default: each element is an allowed value, as a given list's must be.
    if (it->default_value && is_list_type(it->type)) {
      try {
        attribute_value(*it, *it->default_value);
      } catch (const Error& e) {
        values.fail("the default of '" + name + "' (" + it->default_value->repr() + ") is not allowed: " + e.what());
      }
    }
  }
}

std::string parse_element_type(const Node& node) {
  const std::string type = node.string();
  if (type.empty()) node.fail("empty element type");
  if (type[0] == '$') {
    if (!is_identifier(std::string_view(type).substr(1))) node.fail("'" + type + "': '$' must be followed by a name");
    return type;
  }
  for (char c : type) {
    const bool ok = is_identifier(std::string(1, c)) || (c >= '0' && c <= '9') || c == '<' || c == '>' ||
                    c == ',' || c == ' ';
    if (!ok) node.fail("'" + type + "' is not a WGSL type name");
  }
  return type;
}

std::string parse_shader_path(const Node& node) {
  const std::string path = node.string();
  auto bad = [&](const std::string& why) { node.fail("shader path '" + path + "' " + why); };
  if (path.empty()) bad("is empty");
  if (path[0] == '/') bad("is absolute: it must stay inside the package folder");
  if (path.find('\\') != std::string::npos) bad("contains a backslash");
  if (path.find('\0') != std::string::npos) bad("contains a NUL character");
  std::size_t start = 0;
  while (true) {
    const std::size_t end = path.find('/', start);
    const std::string part = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || part == "." ) bad("has an empty or '.' component");
    if (part == "..") bad("leaves the package folder ('..')");
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return path;
}

void check_tensor_names(const Contract& contract, const std::vector<std::string>& input_paths,
                        const std::vector<std::string>& output_paths, const std::string& source) {
  // Every spelling (argument name and upstream name) names one tensor.
  std::map<std::string, std::string> spelled;  // spelling -> path of the tensor that owns it
  auto claim = [&](const std::string& spelling, const std::string& path) {
    auto [it, inserted] = spelled.emplace(spelling, path);
    if (!inserted && it->second != path) {
      throw Error(ErrorKind::kContract, source + ": " + path + ": the name '" + spelling +
                                            "' is already used by " + it->second);
    }
  };
  auto dtype_ok = [&](const std::string& dtype, const std::string& path) {
    if (!contract.find_type_constraint(dtype)) {
      std::string known;
      for (const TypeConstraint& tc : contract.type_constraints) known += (known.empty() ? "" : ", ") + tc.name;
      throw Error(ErrorKind::kContract, source + ": " + path + ".dtype: '" + dtype +
                                            "' names no type constraint (typeConstraints: " + known + ")");
    }
  };
  for (std::size_t i = 0; i < contract.inputs.size(); ++i) {
    claim(contract.inputs[i].name, input_paths[i]);
    claim(contract.inputs[i].onnx_name, input_paths[i]);
    dtype_ok(contract.inputs[i].dtype, input_paths[i]);
  }
  for (std::size_t i = 0; i < contract.outputs.size(); ++i) {
    claim(contract.outputs[i].name, output_paths[i]);
    claim(contract.outputs[i].onnx_name, output_paths[i]);
    dtype_ok(contract.outputs[i].dtype, output_paths[i]);
  }
}

}  // namespace wgk::contract::detail
