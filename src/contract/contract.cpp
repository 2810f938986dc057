// Contract lookups and the two entry points: load_contract (text) and load_contract_file (a
// package folder's manifest.json, with its shader files).
#include "contract/contract.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "contract/draft.h"
#include "contract/json_node.h"
#include "wgk/error.h"

namespace wgk::contract {

const char* attribute_type_name(AttributeType type) {
  switch (type) {
    case AttributeType::kInt: return "INT";
    case AttributeType::kFloat: return "FLOAT";
    case AttributeType::kString: return "STRING";
    case AttributeType::kInts: return "INTS";
    case AttributeType::kFloats: return "FLOATS";
    case AttributeType::kStrings: return "STRINGS";
  }
  return "?";
}

std::optional<AttributeType> parse_attribute_type(std::string_view name) {
  for (AttributeType t : {AttributeType::kInt, AttributeType::kFloat, AttributeType::kString, AttributeType::kInts,
                          AttributeType::kFloats, AttributeType::kStrings}) {
    if (name == attribute_type_name(t)) return t;
  }
  return std::nullopt;
}

bool is_list_type(AttributeType type) {
  return type == AttributeType::kInts || type == AttributeType::kFloats || type == AttributeType::kStrings;
}

AttributeType attribute_type_of(const expr::Value& v) {
  if (v.is_float()) return AttributeType::kFloat;
  if (v.is_string()) return AttributeType::kString;
  if (!v.is_list()) return AttributeType::kInt;
  const expr::List& l = v.as_list();
  if (!l.empty() && l.front().is_string()) return AttributeType::kStrings;
  for (const expr::Value& e : l) {
    if (e.is_float()) return AttributeType::kFloats;
  }
  return AttributeType::kInts;
}

namespace {

// One value of a scalar type (the element type of a list one): the value as the attribute holds it, or
// nullopt with `want` saying what it should have been.
std::optional<expr::Value> scalar_value(AttributeType element, const expr::Value& v, const char** want) {
  switch (element) {
    case AttributeType::kFloat:
      *want = "a number";
      if (v.is_number() && !v.is_bool()) return expr::Value(v.as_number());
      return std::nullopt;
    case AttributeType::kString:
      *want = "a string";
      if (v.is_string()) return v;
      return std::nullopt;
    default:
      // onnx.proto: an INT attribute's value is AttributeProto.i, an int64; a float (AttributeProto.f) is
      // refused even when integral (4.0). A FLOAT attribute does take an integer (epsilon=1), as a number.
      *want = "an integer";
      if (v.is_int()) return v;
      return std::nullopt;
  }
}

// The end of the rule's text for a float given to INT or INTS (`type`): why it is not taken as its integer.
std::string int_note(AttributeType type, const expr::Value& v) {
  if (!v.is_float()) return "";
  if (type == AttributeType::kInt) return ": AttributeProto.i, an int64; a float is refused even when integral";
  if (type == AttributeType::kInts) return "; AttributeProto.ints holds int64s: a float is refused even when integral";
  return "";
}

std::string join_values(const std::vector<expr::Value>& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ", ") + v.repr();
  return s;
}

}  // namespace

expr::Value attribute_value(const Attribute& a, const expr::Value& value) {
  const std::string type = attribute_type_name(a.type);
  const std::string label = "attribute '" + a.name + "'";
  auto allowed = [&a](const expr::Value& v) {
    return a.allowed_values.empty() || std::find(a.allowed_values.begin(), a.allowed_values.end(), v) != a.allowed_values.end();
  };
  const char* want = "";
  if (!is_list_type(a.type)) {
    std::optional<expr::Value> v = scalar_value(a.type, value, &want);
    if (!v)
      throw Error(ErrorKind::kInvalidArgument, label + ": value " + value.repr() + " (" + value.type_name() + ") is not " +
                                                   want + " (ONNX " + type + " attribute" + int_note(a.type, value) + ")");
    if (!allowed(*v))
      throw Error(ErrorKind::kInvalidArgument, label + " = " + v->repr() +
                                                   " is not allowed (attributeConstraints: allowed values " +
                                                   join_values(a.allowed_values) + ")");
    return *v;
  }
  const AttributeType element = a.type == AttributeType::kInts     ? AttributeType::kInt
                                : a.type == AttributeType::kFloats ? AttributeType::kFloat
                                                                   : AttributeType::kString;
  if (!value.is_list()) {
    const char* elements = element == AttributeType::kInt ? "integers" : element == AttributeType::kFloat ? "numbers" : "strings";
    throw Error(ErrorKind::kInvalidArgument, label + ": value " + value.repr() + " (" + value.type_name() +
                                                 ") is not a list (ONNX " + type + " attribute: a list of " + elements + ")");
  }
  expr::List out;
  out.reserve(value.as_list().size());
  for (std::size_t i = 0; i < value.as_list().size(); ++i) {
    const expr::Value& e = value.as_list()[i];
    const std::string at = label + " = " + value.repr() + ": element [" + std::to_string(i) + "] ";
    std::optional<expr::Value> v = scalar_value(element, e, &want);
    if (!v)
      throw Error(ErrorKind::kInvalidArgument, at + e.repr() + " (" + e.type_name() + ") is not " + want + " (ONNX " +
                                                   type + " attribute: each element " + want + int_note(a.type, e) + ")");
    if (!allowed(*v))
      throw Error(ErrorKind::kInvalidArgument, at + v->repr() + " is not allowed (attributeConstraints: allowed values " +
                                                   join_values(a.allowed_values) + ", for each element)");
    out.push_back(std::move(*v));
  }
  return expr::Value(std::move(out));
}

expr::Value tunable_value(const Tunable& t, const expr::Value& value) {
  const expr::Value& def = t.default_value;
  if (def.is_bool() || !(def.is_number() || def.is_string())) return value;
  // The default's type as an attribute's (an integer INT, a float FLOAT, a string STRING), by attribute_value's rule.
  const AttributeType type = attribute_type_of(def);
  const char* want = "";
  if (std::optional<expr::Value> v = scalar_value(type, value, &want)) return *v;
  throw Error(ErrorKind::kInvalidArgument, "tunable '" + t.name + "' = " + value.repr() + " (" + value.type_name() +
                                               ") is not " + want + " (its default is " + def.repr() +
                                               "; a tunable takes its default's type, by the rule of an ONNX " +
                                               attribute_type_name(type) + " attribute" + int_note(type, value) + ")");
}

bool Pass::per_call(std::size_t index) const {
  return fusion && std::find(fusion->per_call.begin(), fusion->per_call.end(), index) != fusion->per_call.end();
}

const Input* Contract::find_input(std::string_view name) const {
  for (const Input& i : inputs) {
    if (i.name == name) return &i;
  }
  for (const Input& i : inputs) {
    if (i.onnx_name == name) return &i;
  }
  return nullptr;
}

const Output* Contract::find_output(std::string_view name) const {
  for (const Output& o : outputs) {
    if (o.name == name) return &o;
  }
  for (const Output& o : outputs) {
    if (o.onnx_name == name) return &o;
  }
  return nullptr;
}

const Attribute* Contract::find_attribute(std::string_view name) const {
  auto it = std::find_if(attributes.begin(), attributes.end(), [&](const Attribute& a) { return a.name == name; });
  return it == attributes.end() ? nullptr : &*it;
}

const TypeConstraint* Contract::find_type_constraint(std::string_view name) const {
  auto it = std::find_if(type_constraints.begin(), type_constraints.end(),
                         [&](const TypeConstraint& t) { return t.name == name; });
  return it == type_constraints.end() ? nullptr : &*it;
}

const Tunable* Contract::find_tunable(std::string_view name) const {
  auto it = std::find_if(tunables.begin(), tunables.end(), [&](const Tunable& t) { return t.name == name; });
  return it == tunables.end() ? nullptr : &*it;
}

Contract load_contract(std::string_view json_text, const std::string& source) {
  const detail::Json json = detail::parse_json(json_text, source);
  const detail::Node root(json, "", source);
  // Seed 000's format lists inputs by role and has `args` and `bindingSets`; seed 004's does not.
  const auto inputs = json.find("inputs");
  const bool legacy = json.contains("args") || json.contains("bindingSets") ||
                      (inputs != json.end() && inputs->is_array());
  detail::Draft draft = legacy ? detail::parse_legacy(root) : detail::parse_current(root);
  detail::validate(draft);
  return std::move(draft.contract);
}

Contract load_contract_file(const std::string& path, bool check_shader_files) {
  namespace fs = std::filesystem;
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error(ErrorKind::kNotFound, path + ": cannot open the manifest");
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) throw Error(ErrorKind::kIo, path + ": reading the manifest failed");
  Contract contract = load_contract(text.str(), path);
  if (!check_shader_files) return contract;

  std::error_code ec;
  const fs::path package = fs::weakly_canonical(fs::absolute(fs::path(path)).parent_path(), ec);
  if (ec) throw Error(ErrorKind::kIo, path + ": cannot resolve the package folder: " + ec.message());
  for (std::size_t v = 0; v < contract.variants.size(); ++v) {
    for (std::size_t p = 0; p < contract.variants[v].passes.size(); ++p) {
      const std::string& shader = contract.variants[v].passes[p].shader;
      const std::string where = path + ": variants[" + std::to_string(v) + "].passes[" + std::to_string(p) + "]";
      // The loader already refused "..", absolute paths and backslashes; a symbolic link could still
      // point outside the package, so the resolved path must stay under the package folder.
      const fs::path resolved = fs::weakly_canonical(package / shader, ec);
      if (ec || !fs::is_regular_file(resolved, ec)) {
        throw Error(ErrorKind::kNotFound, where + ": shader file '" + shader + "' not found beside the manifest (" +
                                              (package / shader).string() + ")");
      }
      const auto rel = resolved.lexically_relative(package);
      if (rel.empty() || *rel.begin() == "..") {
        throw Error(ErrorKind::kContract, where + ": shader file '" + shader + "' resolves outside the package folder (" +
                                              resolved.string() + ")");
      }
    }
  }
  return contract;
}

}  // namespace wgk::contract
