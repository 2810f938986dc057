// Contract lookups and the two entry points: load_contract (text) and load_contract_file (a
// package folder's manifest.json, with its shader files).
#include "contract/contract.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "contract/draft.h"
#include "contract/json_node.h"
#include "wgk/error.h"

namespace wgk::contract {

const char* attribute_type_name(AttributeType type) {
  switch (type) {
    case AttributeType::kInt: return "INT";
    case AttributeType::kFloat: return "FLOAT";
    case AttributeType::kString: return "STRING";
  }
  return "?";
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
