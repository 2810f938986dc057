#pragma once
// Internal to the contract loader: a Contract as parsed from either manifest format, plus the JSON
// paths that validation errors name. Parsing (current.cpp, legacy.cpp) checks the schema;
// validate.cpp then resolves names, element types and derive order for both formats alike.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "contract/contract.h"
#include "contract/json_node.h"

namespace wgk::contract::detail {

struct Draft {
  Contract contract;
  std::string source;
  std::vector<std::string> binding_paths;      ///< per Contract::bindings: "bindings.x", "bindingSets.rank3[0]"
  std::string derive_path = "derive";           ///< manifest derive
  std::vector<std::string> variant_derive_paths;             ///< "variants[i].derive" / ".constants"
  std::vector<std::vector<std::string>> pass_derive_paths;   ///< "...passes[j].derive" / ".source.inputs"
};

/// Seed 004's format (and the docs/kernel-conventions.md additions). Derive lists in file order.
Draft parse_current(const Node& root);
/// Seed 000's format, migrated to the same model. Derive lists in file order.
Draft parse_legacy(const Node& root);
/// Checks names in every expression, binding element types, orders every derive list.
void validate(Draft& draft);

/// Shared pieces of both formats.
TypeConstraint parse_type_constraint(const std::string& name, const Node& node);
/// The `id` of a variant or pass: a non-empty string not already in `seen` ("duplicate <what> id 'x'").
std::string parse_unique_id(const Node& node, std::set<std::string>& seen, std::string_view what);
/// domain, name, sinceVersion, description and typeConstraints: the same keys in both formats.
void parse_identity(const Node& root, Contract& c);
std::vector<Derive> parse_derive_object(const Node& node);
StructField parse_struct_field(const Node& node);
/// Expression of a JSON value (see Node::expression); the numbers and booleans of `rank` and `z`.
std::vector<int> parse_ranks(const Node& node);
/// An input's storage dtype and `narrowing: "checked"` (docs/kernel-conventions.md): `storage` is the node of
/// the storage dtype, which the current format keys `storage` and the legacy one's args entry `dtype`
/// (`storage_key`, for the error); each node may be absent. Fails naming the node for an unknown dtype, an
/// unknown narrowing, or a narrowing without a storage dtype.
void parse_storage(const std::optional<Node>& storage, const std::optional<Node>& narrowing, std::string_view storage_key,
                   Input& input);
/// `attributeConstraints`: each names a declared attribute; `values` is a non-empty list.
void parse_attribute_constraints(const Node& node, Contract& contract);
/// Cross-checks shared by both formats once inputs/outputs/type constraints are known: input and
/// output dtypes name a type constraint, names and upstream names are unique.
/// A binding `elementType`: `$<name>` or a literal WGSL type (letters, digits, '_', '<', '>', ',', ' ').
std::string parse_element_type(const Node& node);
/// A pass's shader file: a relative path inside the package folder (no "..", no absolute path,
/// no backslash, no empty component): a package is untrusted input.
std::string parse_shader_path(const Node& node);
void check_tensor_names(const Contract& contract, const std::vector<std::string>& input_paths,
                        const std::vector<std::string>& output_paths, const std::string& source);

}  // namespace wgk::contract::detail
