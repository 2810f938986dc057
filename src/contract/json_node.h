#pragma once
// A read-only view of one node of a manifest's JSON with its JSON path, so that every schema error
// names where it happened ("manifest.json: variants[3].passes[0].bindings[2]: ..."). Internal to the
// contract loader.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr/expression.h"
#include "expr/value.h"

namespace wgk::contract::detail {

/// Object members keep file order: derive order among independent names and binding order follow it.
using Json = nlohmann::ordered_json;

/// Parses manifest text. Rejects (wgk::Error kContract, naming `source`, the JSON path or byte
/// offset): malformed JSON, duplicate keys in one object, nesting deeper than 64, a non-object root.
Json parse_json(std::string_view text, const std::string& source);

/// True for [A-Za-z_][A-Za-z0-9_]*: names that an expression or WGSL can spell.
bool is_identifier(std::string_view name);

class Node {
 public:
  Node(const Json& json, std::string path, const std::string& source)
      : json_(&json), path_(std::move(path)), source_(&source) {}

  const Json& json() const { return *json_; }
  /// JSON path from the root: "" for the root, "inputs.x", "variants[2].passes[0]".
  const std::string& path() const { return path_; }
  const std::string& source() const { return *source_; }
  /// "manifest.json: inputs.x" (or "manifest.json" at the root): the prefix of every error here.
  std::string where() const;
  /// Throws wgk::Error (kContract): "<where>: <message>".
  [[noreturn]] void fail(std::string_view message) const;

  /// A child path without looking it up: "inputs" + "x" -> "inputs.x".
  std::string child_path(std::string_view key) const;

  // Objects. Each requires the node to be an object (else: "expected an object, got ...").
  /// Rejects any key not in `allowed` ("unknown key 'foo' (allowed: a, b)").
  void expect_keys(std::initializer_list<std::string_view> allowed) const;
  std::optional<Node> find(std::string_view key) const;
  /// Missing key: "missing required key 'variants'".
  Node require(std::string_view key) const;
  /// Members in file order.
  std::vector<std::pair<std::string, Node>> members() const;

  // Arrays.
  std::vector<Node> elements() const;

  // Scalars; a wrong JSON type is "expected <what>, got <json type> <text>".
  std::string string() const;
  /// A string that is_identifier accepts.
  std::string identifier() const;
  std::int64_t integer() const;
  bool boolean() const;
  /// Any JSON value as an expression value (null -> None, objects -> Object).
  expr::Value value() const;
  /// An expression: a string is its text; a number or boolean is a literal. Parse errors carry
  /// this node's path and the column.
  expr::Expression expression() const;

  /// "object", "array", "string", "number", "boolean", "null" and a short excerpt of the text.
  std::string describe() const;
  void expect_object() const;
  void expect_array() const;

 private:
  const Json* json_;
  std::string path_;
  const std::string* source_;
};

}  // namespace wgk::contract::detail
