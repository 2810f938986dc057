#pragma once
// Values of the manifest expression language (docs/design.md): Jinja2 expression semantics, as in
// Python. Lists and objects are immutable and shared, so copying a Value is cheap.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace wgk::expr {

class Value;
using List = std::vector<Value>;
/// Objects are the scopes' namespaces (`shapes`, `attrs`, `device.limits`, ...): name -> value.
using Object = std::map<std::string, Value, std::less<>>;

/// Jinja's Undefined: what an absent attribute or member evaluates to.
struct Undefined {
  bool operator==(const Undefined&) const = default;
};
/// Python's None.
struct None {
  bool operator==(const None&) const = default;
};

class Value {
 public:
  using Storage = std::variant<Undefined, None, bool, std::int64_t, double, std::string,
                               std::shared_ptr<const List>, std::shared_ptr<const Object>>;

  Value() = default;  // Undefined
  Value(Undefined) {}
  Value(None v) : v_(v) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(std::int64_t{i}) {}
  Value(std::int64_t i) : v_(i) {}
  Value(std::uint32_t i) : v_(std::int64_t{i}) {}
  Value(std::uint64_t i);  // throws wgk::Error past INT64_MAX
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(List l) : v_(std::make_shared<const List>(std::move(l))) {}
  Value(Object o) : v_(std::make_shared<const Object>(std::move(o))) {}

  bool is_undefined() const { return std::holds_alternative<Undefined>(v_); }
  bool is_none() const { return std::holds_alternative<None>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(v_); }
  bool is_float() const { return std::holds_alternative<double>(v_); }
  bool is_number() const { return is_int() || is_float() || is_bool(); }  // Python: bool is an int
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_list() const { return std::holds_alternative<std::shared_ptr<const List>>(v_); }
  bool is_object() const { return std::holds_alternative<std::shared_ptr<const Object>>(v_); }

  bool as_bool() const { return std::get<bool>(v_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  double as_float() const { return std::get<double>(v_); }
  /// int, float or bool as double.
  double as_number() const;
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const List& as_list() const { return *std::get<std::shared_ptr<const List>>(v_); }
  const Object& as_object() const { return *std::get<std::shared_ptr<const Object>>(v_); }

  /// Python truthiness (0, 0.0, "", [], {}, None, False are false). Undefined is false, as in Jinja.
  bool truthy() const;
  /// The name of the type as Python spells it: "int", "float", "str", "bool", "list", "dict",
  /// "NoneType", "undefined".
  std::string type_name() const;
  /// Python repr-like text for error messages: 3, 2.5, 'f32', [1, 2], True, None, undefined.
  std::string repr() const;
  /// Jinja's str(): what `{{ value }}` prints. True/False/None as Python prints them; floats as
  /// Python's repr (16.0, 0.1); lists as their repr.
  std::string str() const;

  const Storage& storage() const { return v_; }
  /// Python equality: 1 == 1.0 == True; lists element-wise; different types otherwise unequal.
  friend bool operator==(const Value& a, const Value& b);

 private:
  Storage v_;
};

/// Python-int view of a number: an int, a bool (Python: bool is an int) or a float with an integral value
/// that fits int64 (`numel(shapes.x) / 2` is a float in Jinja); nullopt for anything else.
std::optional<std::int64_t> integral(const Value& v);

}  // namespace wgk::expr
