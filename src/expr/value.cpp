// Values of the expression language: Python's truthiness, repr/str and equality (docs/design.md).
#include "expr/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "wgk/error.h"

namespace wgk::expr {

namespace {

// Python's repr(float): the shortest digits that round-trip, in positional notation when the
// decimal exponent is in [-4, 16), scientific ("1e+16", "1e-05") otherwise; always a '.0' or an
// exponent so that the text reads as a float.
std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  (void)ec;
  std::string sci(buf, end);  // e.g. "-1.2345e+02", "5e-324"
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  auto e_pos = sci.find('e');
  int exponent = std::stoi(sci.substr(e_pos + 1));
  std::string digits = sci.substr(0, e_pos);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  std::string out;
  if (exponent < -4 || exponent >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp_buf[16];
    std::snprintf(exp_buf, sizeof exp_buf, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp_buf;
  } else if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else {
    auto int_len = static_cast<std::size_t>(exponent) + 1;
    if (digits.size() <= int_len) {
      out = digits + std::string(int_len - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, int_len) + "." + digits.substr(int_len);
    }
  }
  return negative ? "-" + out : out;
}

std::string string_repr(const std::string& s) {
  // Python prefers single quotes unless the text holds one and no double quote.
  char quote = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string out(1, quote);
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c == quote) {
          out += '\\';
          out += c;
        } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
          out += hex;
        } else {
          out += c;
        }
    }
  }
  out += quote;
  return out;
}

}  // namespace

Value::Value(std::uint64_t i) {
  if (i > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw Error(ErrorKind::kInvalidArgument,
                "integer " + std::to_string(i) + " does not fit the expression language's int64");
  }
  v_ = static_cast<std::int64_t>(i);
}

double Value::as_number() const {
  if (is_int()) return static_cast<double>(as_int());
  if (is_float()) return as_float();
  if (is_bool()) return as_bool() ? 1.0 : 0.0;
  throw Error(ErrorKind::kInternal, "as_number() on a " + type_name() + ": " + repr());
}

bool Value::truthy() const {
  return std::visit(
      [](const auto& v) -> bool {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Undefined> || std::is_same_v<T, None>) return false;
        else if constexpr (std::is_same_v<T, bool>) return v;
        else if constexpr (std::is_same_v<T, std::int64_t>) return v != 0;
        else if constexpr (std::is_same_v<T, double>) return v != 0.0;
        else if constexpr (std::is_same_v<T, std::string>) return !v.empty();
        else return !v->empty();
      },
      v_);
}

std::string Value::type_name() const {
  switch (v_.index()) {
    case 0: return "undefined";
    case 1: return "NoneType";
    case 2: return "bool";
    case 3: return "int";
    case 4: return "float";
    case 5: return "str";
    case 6: return "list";
    default: return "dict";
  }
}

std::string Value::repr() const {
  if (is_undefined()) return "undefined";
  if (is_string()) return string_repr(as_string());
  if (is_list()) {
    std::string out = "[";
    bool first = true;
    for (const auto& item : as_list()) {
      if (!first) out += ", ";
      first = false;
      out += item.repr();
    }
    return out + "]";
  }
  if (is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, item] : as_object()) {
      if (!first) out += ", ";
      first = false;
      out += string_repr(key) + ": " + item.repr();
    }
    return out + "}";
  }
  return str();
}

std::string Value::str() const {
  switch (v_.index()) {
    case 0: return "";  // Jinja prints Undefined as nothing; the evaluator refuses to print it.
    case 1: return "None";
    case 2: return as_bool() ? "True" : "False";
    case 3: return std::to_string(as_int());
    case 4: return float_repr(as_float());
    case 5: return as_string();
    default: return repr();
  }
}

bool operator==(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) {
      // long double holds every int64 exactly, so 2^53 + 1 != 2.0^53 as in Python.
      auto as_ld = [](const Value& v) -> long double {
        if (v.is_float()) return v.as_float();
        if (v.is_int()) return static_cast<long double>(v.as_int());
        return v.as_bool() ? 1 : 0;
      };
      return as_ld(a) == as_ld(b);
    }
    auto as_i = [](const Value& v) -> std::int64_t { return v.is_int() ? v.as_int() : (v.as_bool() ? 1 : 0); };
    return as_i(a) == as_i(b);
  }
  if (a.v_.index() != b.v_.index()) return false;
  if (a.is_string()) return a.as_string() == b.as_string();
  if (a.is_list()) return a.as_list() == b.as_list();
  if (a.is_object()) return a.as_object() == b.as_object();
  return true;  // Undefined == Undefined, None == None
}

std::optional<std::int64_t> integral(const Value& v) {
  if (v.is_int()) return v.as_int();
  if (v.is_bool()) return v.as_bool() ? 1 : 0;
  if (v.is_float()) {
    const double d = v.as_float();
    if (std::isfinite(d) && d == std::floor(d) && d >= -9.2233720368547758e18 && d < 9.2233720368547758e18)
      return static_cast<std::int64_t>(d);
  }
  return std::nullopt;
}

}  // namespace wgk::expr
