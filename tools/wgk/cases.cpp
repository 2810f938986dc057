#include "cases.h"

#include "core/text.h"
#include "option_values.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <set>

#include "contract/contract.h"
#include "plan/plan.h"
#include "io/file_bytes.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "reference/op.h"
#include "reference/random.h"
#include "reference/rounding.h"
#include "plan/boundary.h"
#include "wgk/introspect.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kContract, where + ": " + what);
}

// A JSON number of an expected output; NaN and the infinities as the strings "nan", "inf", "-inf".
double expected_number(const nlohmann::json& v, const std::string& where) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string t = v.get<std::string>();
    if (t == "nan") return std::nan("");
    if (t == "inf") return INFINITY;
    if (t == "-inf") return -INFINITY;
  }
  bad(where, "expected values are numbers or \"nan\", \"inf\", \"-inf\", got " + v.dump());
}

// The range of a case file's integer field: [lo, hi] and its name in the error.
struct IntegerRange {
  std::int64_t lo;
  std::uint64_t hi;
  const char* name;
};
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr IntegerRange kInt64Range{std::numeric_limits<std::int64_t>::min(), kInt64Max, "int64's range"};
constexpr IntegerRange kUInt32Range{0, std::numeric_limits<std::uint32_t>::max(), "uint32's range"};
constexpr IntegerRange kDimRange{0, kInt64Max, "a dimension's range (>= 0, an int64)"};
constexpr IntegerRange kSeedRange{0, std::numeric_limits<std::uint64_t>::max(), "a seed's range (std::mt19937_64's uint64)"};

// Refuses `v` unless it is a JSON integer in `r`, naming `where`, the range and the value: a JSON float (1.0, and an
// integer of 2^64 or more, which nlohmann reads as a float), a boolean, text, or an integer past the range (also one
// of 2^63 or more, which nlohmann holds as unsigned and get<int64_t> would wrap to a negative number).
// `hint` ends the message (what else the field may hold).
void check_integer(const nlohmann::json& v, const IntegerRange& r, const std::string& where, const std::string& hint = "") {
  bool ok = false;
  if (v.is_number_unsigned()) {
    const std::uint64_t u = v.get<std::uint64_t>();
    ok = u <= r.hi && (r.lo <= 0 || u >= static_cast<std::uint64_t>(r.lo));
  } else if (v.is_number_integer()) {
    const std::int64_t i = v.get<std::int64_t>();
    ok = i >= r.lo && (i < 0 || static_cast<std::uint64_t>(i) <= r.hi);
  }
  if (!ok)
    bad(where, v.dump() + " is not an integer in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "], " + r.name + hint);
}

// The range of an integer tensor's elements: int64 or uint32 (the integer dtypes wgk holds).
const IntegerRange& range_of(DType dtype) { return dtype == DType::kUInt32 ? kUInt32Range : kInt64Range; }

// `values` (each in range_of(dtype), checked) as a tensor of `dtype`, int64 or uint32.
HostTensor integer_tensor(DType dtype, Shape shape, const std::vector<std::int64_t>& values) {
  if (dtype == DType::kInt64) return HostTensor::from(dtype, std::move(shape), values);
  return HostTensor::from(dtype, std::move(shape), std::vector<std::uint32_t>(values.begin(), values.end()));
}

Shape shape_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_array()) bad(where, "a shape is a list of integers, got " + j.dump());
  Shape shape;
  for (std::size_t k = 0; k < j.size(); ++k) {
    check_integer(j[k], kDimRange, where + "[" + std::to_string(k) + "]");
    shape.push_back(j[k].get<std::int64_t>());
  }
  return shape;
}

// A tolerance object {abs, rel} (either may be absent: 0). Each must be a finite number >= 0: a negative or NaN
// bound fails every element, even an exact one, and an infinite one accepts anything. Throws naming `where`.
reference::Tolerance tolerance_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) bad(where, "must be an object {\"abs\": ..., \"rel\": ...}, got " + j.dump());
  reference::Tolerance t;
  for (const auto& [key, bound] : {std::pair{"abs", &t.abs}, std::pair{"rel", &t.rel}}) {
    const auto it = j.find(key);
    if (it == j.end()) continue;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
      bad(where + "." + key, "a tolerance must be a finite number >= 0, got " + it->dump());
    *bound = it->get<double>();
  }
  return t;
}

// Whether a JSON integer is an int64: nlohmann reads 2^63 and above as unsigned, which get<int64_t> would wrap to
// a negative number. One that is not is read as a double, as --attr reads a decimal integer past int64's range:
// a FLOAT takes it, an INT refuses it as a float.
bool is_int64(const nlohmann::json& v) {
  return v.is_number_integer() &&
         !(v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
}

}  // namespace

AttributeValue attribute_from_json(const nlohmann::json& v, const std::string& where) {
  if (is_int64(v)) return v.get<std::int64_t>();
  if (v.is_number()) return v.get<double>();
  // The contract refuses a bool for every type, and --attr reads "true" as text: a JSON boolean is refused too.
  if (v.is_boolean())
    bad(where, v.dump() + " is a JSON boolean, which no ONNX attribute type holds (AttributeProto: INT, FLOAT, STRING "
                          "and their lists); an INT flag is 0 or 1");
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    // INTS, FLOATS, STRINGS: all integers, all numbers (some not integers), or all strings.
    std::vector<std::int64_t> ints;
    std::vector<double> floats;
    std::vector<std::string> strings;
    for (const auto& e : v) {
      if (e.is_number() && strings.empty()) {
        floats.push_back(e.get<double>());
        if (is_int64(e)) ints.push_back(e.get<std::int64_t>());
      } else if (e.is_string() && floats.empty()) {
        strings.push_back(e.get<std::string>());
      } else {
        bad(where, "a list attribute holds only integers, only numbers or only strings (ONNX INTS, FLOATS, STRINGS), got " +
                       v.dump());
      }
    }
    if (!strings.empty()) return strings;
    if (ints.size() == floats.size()) return ints;
    return floats;
  }
  bad(where, "must be a number, a string or a list of them, got " + v.dump());
}

namespace {

// `text` as an int64 when it is a decimal integer (is_decimal_integer) within int64's range, else nothing.
std::optional<std::int64_t> decimal_int64(const std::string& text) {
  if (!is_decimal_integer(text)) return std::nullopt;
  std::int64_t i = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data() + (text.front() == '+' ? 1 : 0), end, i);
  if (ec != std::errc{} || stop != end) return std::nullopt;
  return i;
}

// A decimal integer past int64's range, which the command line reads as a double (an INT attribute or an integer
// tunable must refuse it for its range, not as a float), and the range as its messages state it.
bool past_int64(const std::string& text) { return is_decimal_integer(text) && !decimal_int64(text); }
// "int64's range [-9223372036854775808, 9223372036854775807]".
std::string named_range(const IntegerRange& r) {
  return std::string(r.name) + " [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "]";
}

// One scalar of a command-line value: an integer when decimal, else a decimal number, else the text
// (option_values.h: "0x10", "inf" and "nan" stay text). A decimal number past a double's range is refused, naming `where`.
AttributeValue scalar_from_text(const std::string& text, const std::string& where) {
  if (const auto i = decimal_int64(text)) return *i;  // past int64: a number below
  if (!is_decimal_number(text)) return text;
  return decimal_number(text, where);
}

}  // namespace

std::pair<std::string, AttributeValue> parse_name_value(const std::string& spec, const std::string& option) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(ErrorKind::kInvalidArgument, option + " " + spec + ": expected NAME=VALUE");
  const std::string name = spec.substr(0, eq), text = spec.substr(eq + 1);
  if (text.empty() || text.front() != '[') return {name, scalar_from_text(text, option + " " + spec)};
  // A list: [0,2,1,3], [0.5,2], [a,b] or [] (ONNX INTS, FLOATS, STRINGS).
  const std::string inner = text.substr(1, text.size() >= 2 ? text.size() - 2 : 0);
  if (text.back() != ']' || text.size() < 2 || inner.find_first_of("[]") != std::string::npos)
    throw Error(ErrorKind::kInvalidArgument, option + " " + spec + ": a list is [v1,v2,...] (one pair of brackets)");
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  const std::vector<std::string> elements = inner.empty() ? std::vector<std::string>{} : split_commas(inner);
  const std::size_t count = elements.size();
  for (std::size_t k = 0; k < count; ++k) {
    if (elements[k].empty())
      throw Error(ErrorKind::kInvalidArgument, option + " " + spec + ": element " + std::to_string(k) + " of the list is empty");
    const AttributeValue v = scalar_from_text(elements[k], option + " " + spec + ": element " + std::to_string(k));
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      ints.push_back(*i);
      floats.push_back(static_cast<double>(*i));
    } else if (const auto* d = std::get_if<double>(&v)) {
      floats.push_back(*d);
    } else {
      strings.push_back(std::get<std::string>(v));
    }
  }
  if (!strings.empty() && strings.size() != count)
    throw Error(ErrorKind::kInvalidArgument, option + " " + spec +
                                                 ": a list holds only numbers or only text (ONNX INTS, FLOATS, STRINGS)");
  if (!strings.empty()) return {name, strings};
  if (ints.size() == count) return {name, ints};
  return {name, floats};
}

namespace {

std::vector<std::string> joined_specs(const std::vector<std::string>& specs) {
  // The option's comma delimiter splits a list ("perm=[0,2,1,3]") into pieces: join them again up to its ']'.
  // Only a value that starts with '[' is a list, and a piece holding '=' is the next NAME=VALUE, never an
  // element: "tag=run[1" stays text, "perm=[0,2" before "alpha=3" is an unclosed list (an error below).
  auto open_list = [](const std::string& spec) {
    const auto eq = spec.find('=');
    return eq != std::string::npos && eq + 1 < spec.size() && spec[eq + 1] == '[' && spec.find(']', eq) == std::string::npos;
  };
  std::vector<std::string> joined;
  for (const std::string& spec : specs) {
    if (!joined.empty() && open_list(joined.back()) && spec.find('=') == std::string::npos) {
      joined.back() += "," + spec;
    } else {
      joined.push_back(spec);
    }
  }
  return joined;
}

}  // namespace

Attributes parse_name_values(const std::vector<std::string>& specs, const std::string& option) {
  Attributes out;
  for (const std::string& spec : joined_specs(specs)) {
    auto [name, value] = parse_name_value(spec, option);
    if (!out.emplace(name, std::move(value)).second)
      throw Error(ErrorKind::kInvalidArgument, option + " " + name + " is given twice");
  }
  return out;
}

void check_attribute_options(const contract::Contract& contract, const std::vector<std::string>& specs,
                             const std::string& option) {
  for (const std::string& spec : joined_specs(specs)) {
    const auto [name, value] = parse_name_value(spec, option);  // its errors came first, from parse_name_values
    const contract::Attribute* a = contract.find_attribute(name);
    if (!a) continue;  // the boundary's "unknown attribute", listing the declared ones
    const std::string where = option + " " + spec;
    // What the contract cannot see: a decimal integer past int64 was read as a double (a FLOAT takes it), and
    // would be refused as a float, not for its range.
    const bool list = a->type == contract::AttributeType::kInts;
    if (list || a->type == contract::AttributeType::kInt) {
      const std::string text = spec.substr(spec.find('=') + 1);
      const bool bracketed = text.size() >= 2 && text.front() == '[' && text.back() == ']';
      const std::string inner = bracketed ? text.substr(1, text.size() - 2) : text;
      const std::vector<std::string> elements =
          list && bracketed ? (inner.empty() ? std::vector<std::string>{} : split_commas(inner)) : std::vector<std::string>{text};
      for (std::size_t k = 0; k < elements.size(); ++k)
        if (past_int64(elements[k]))
          throw Error(ErrorKind::kInvalidArgument,
                      where + ": attribute '" + a->name + "': " + (list && bracketed ? "element [" + std::to_string(k) + "] '" : "value '") +
                          elements[k] + "' is past " + named_range(kInt64Range) + " (ONNX " +
                          (list ? "INTS attribute: AttributeProto.ints holds int64s)" : "INT attribute: AttributeProto.i, an int64)"));
    }
    // The rest is the contract's rule, as the call applies it (4.0 for an INT is a float), with the text given.
    try {
      contract::attribute_value(*a, plan::attribute_value(value));
    } catch (const Error& e) {
      throw Error(e.kind(), where + ": " + e.what());
    }
  }
}

void check_tunable_options(const contract::Contract& contract, const std::vector<std::string>& specs,
                           const std::string& option) {
  for (const std::string& spec : joined_specs(specs)) {
    const auto [name, value] = parse_name_value(spec, option);
    const contract::Tunable* t = contract.find_tunable(name);
    if (!t || !t->default_value.is_int()) continue;  // an unknown name: the call's boundary lists the declared ones
    const std::string text = spec.substr(spec.find('=') + 1);
    if (past_int64(text))
      throw Error(ErrorKind::kInvalidArgument,
                  option + " " + spec + ": tunable '" + t->name + "': value '" + text + "' is past " + named_range(kInt64Range) +
                      " (its default is " +
                      t->default_value.repr() + "; a tunable takes its default's type, by the rule of an ONNX INT "
                      "attribute: AttributeProto.i, an int64)");
  }
}

AttributeValue attribute_from_value(const expr::Value& v) {
  if (v.is_bool()) return std::int64_t{v.as_bool()};
  if (v.is_int()) return v.as_int();
  if (v.is_float()) return v.as_float();
  if (v.is_string()) return v.as_string();
  if (v.is_list()) {
    nlohmann::json j = nlohmann::json::array();
    for (const expr::Value& e : v.as_list()) {
      if (e.is_int()) j.push_back(e.as_int());
      else if (e.is_float()) j.push_back(e.as_float());
      else if (e.is_string()) j.push_back(e.as_string());
      else throw Error(ErrorKind::kContract, "attribute value " + v.repr() + " holds " + e.repr() + ": not an int, float or string");
    }
    return attribute_from_json(j, "attribute value " + v.repr());
  }
  throw Error(ErrorKind::kContract, "attribute value " + v.repr() + " is not an int, float, string or a list of them");
}

std::string attribute_text(const AttributeValue& v) { return plan::attribute_value(v).repr(); }

Attributes with_defaults(const contract::Contract& contract, Attributes attrs) {
  for (const auto& a : contract.attributes)
    if (!attrs.count(a.name) && a.default_value) attrs[a.name] = attribute_from_value(*a.default_value);
  return attrs;
}

Tensors by_contract_names(const contract::Contract& contract, Tensors inputs) {
  Tensors out;
  for (auto& [name, t] : inputs) {
    const contract::Input* in = contract.find_input(name);
    const std::string key = in ? in->name : name;
    if (out.count(key))
      throw Error(ErrorKind::kInvalidArgument, "input " + key + " is given twice (as " + key + " and as " +
                                                   (in ? in->onnx_name : name) + ")");
    out.emplace(key, std::move(t));
  }
  return out;
}

std::optional<reference::Results> reference_outputs(const contract::Contract& contract, const Tensors& inputs,
                                                   const Attributes& attrs, const std::vector<std::string>& outputs) {
  const reference::OpPlugin* op = reference::find_op(contract.domain, contract.name);
  if (!op || !op->reference) return std::nullopt;
  return op->reference(by_contract_names(contract, inputs), with_defaults(contract, attrs), outputs);
}

std::vector<std::string> name_list(const std::vector<std::string>& values, const std::string& option) {
  std::vector<std::string> out;
  const auto space = [](unsigned char ch) { return std::isspace(ch) != 0; };
  for (const std::string& value : values) {
    for (std::string& name : split_commas(value)) {
      name.erase(name.begin(), std::find_if_not(name.begin(), name.end(), space));
      name.erase(std::find_if_not(name.rbegin(), name.rend(), space).base(), name.end());
      if (name.empty())
        throw Error(ErrorKind::kInvalidArgument,
                    option + " '" + value + "': an empty name (" +
                        (value.find_first_not_of(" \t") == std::string::npos ? std::string("the value is empty")
                                                                              : "a comma with no name before or after it") +
                        "); give names, comma-separated or repeated: " + option + " a,b or " + option + " a " + option + " b");
      out.push_back(std::move(name));
    }
  }
  return out;
}

namespace {

// "input positionIds (position_ids)", or "input x" when the ONNX name is the same.
std::string input_label(const contract::Input& in) {
  return "input " + in.name + (in.onnx_name.empty() || in.onnx_name == in.name ? "" : " (" + in.onnx_name + ")");
}

// A folder where an input's file should be: refused naming `what` (the input, or the .safetensors of named tensors)
// and what an input file is (before: the reader's "PATH: a folder, not a file", naming no input). A named pipe,
// socket or device is refused by the reader (io::open_file).
void not_a_folder(const std::filesystem::path& file, const std::string& what, const std::string& source) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw Error(ErrorKind::kInvalidArgument, source + ": " + what +
                                                 ": a folder, not a file (an input file is a .npy file, or a "
                                                 ".safetensors file holding named tensors)");
}

// Throws the contract's rule when `dtype` (numpy's name of a file's dtype) is not one `input`'s type constraint
// allows, or is stored big-endian (no reader of wgk's takes that); nothing for an input the contract does not
// declare or of a fixed dtype.
void check_file_dtype(const contract::Contract& contract, const std::string& input, const std::string& dtype,
                      bool big_endian, const std::string& source) {
  const contract::Input* in = contract.find_input(input);
  const contract::TypeConstraint* tc = in ? contract.find_type_constraint(in->dtype) : nullptr;
  if (!tc) return;
  std::string allowed;
  bool ok = false;
  for (DType d : tc->allowed) {
    ok = ok || dtype_name(d) == dtype;
    allowed += (allowed.empty() ? "" : ", ") + std::string(dtype_name(d));
  }
  if (ok && !big_endian) return;
  const std::string what = source + ": " + input_label(*in) + ": dtype " + dtype;
  const std::string hint = "stored big-endian: save it little-endian, x.astype(x.dtype.newbyteorder('<'))";
  if (ok)
    throw Error(ErrorKind::kInvalidArgument, what + " " + hint + " (type " + tc->name + " allows " + allowed + ", little-endian)");
  throw Error(ErrorKind::kInvalidArgument, what + " is not allowed for type " + tc->name + " (allowed: " + allowed + ")" +
                                               (big_endian ? "; the file is also " + hint : ""));
}

// Throws "<source>: unknown input '<name>'; expected inputs: ..." (the boundary's wording) when `contract`
// declares no input `name` (argument or ONNX name).
void known_input(const contract::Contract& contract, const std::string& name, const std::string& source) {
  if (contract.find_input(name)) return;
  std::string expected;
  for (const auto& in : contract.inputs)
    expected += (expected.empty() ? "" : ", ") + in.name + (!in.onnx_name.empty() && in.onnx_name != in.name ? " (" + in.onnx_name + ")" : "") +
                (in.optional ? " [optional]" : "");
  throw Error(ErrorKind::kInvalidArgument, source + ": unknown input '" + name + "'; expected inputs: " + expected);
}

}  // namespace

HostTensor read_input_npy(const contract::Contract& contract, const std::string& input, const std::filesystem::path& file,
                          const std::string& source) {
  known_input(contract, input, source);
  const std::string label = input_label(*contract.find_input(input));
  not_a_folder(file, label, source);
  // The reader's errors (a missing file, not a .npy, a truncated one) name the file only: the input too.
  const auto named = [&](auto read) {
    try {
      return read();
    } catch (const Error& e) {
      throw Error(e.kind(), source + ": " + label + ": " + e.what());
    }
  };
  bool big_endian = false;
  const std::string dtype = named([&] { return io::read_npy_dtype_name(file, &big_endian); });
  check_file_dtype(contract, input, dtype, big_endian, source);
  return named([&] { return io::read_npy(file); });
}

void check_case_input_dtypes(const contract::Contract& contract, const nlohmann::json& entry, const std::string& where) {
  if (!entry.is_object() || !entry.contains("inputs") || !entry["inputs"].is_object()) return;  // case_from_json's error
  const std::string at = where + " (" + entry.value("name", "") + ").inputs.";
  for (const auto& [name, spec] : entry["inputs"].items())
    if (spec.is_object() && spec.contains("dtype") && spec["dtype"].is_string())
      check_file_dtype(contract, name, spec["dtype"].get<std::string>(), false, at + name);
}

Tensors read_input_safetensors(const contract::Contract& contract, const std::filesystem::path& file,
                               const std::string& source) {
  not_a_folder(file, "a .safetensors file of named inputs", source);
  const std::map<std::string, std::string> dtypes = io::read_safetensors_dtype_names(file);
  for (const auto& [name, dtype] : dtypes) known_input(contract, name, source + " tensor '" + name + "'");
  for (const auto& [name, dtype] : dtypes)
    check_file_dtype(contract, name, dtype, false, source + " tensor '" + name + "'");
  Tensors out;
  for (auto& [name, t] : io::read_safetensors(file).tensors) out.emplace(name, std::move(t));
  return out;
}

OutputNames output_names(const contract::Contract& contract, const std::vector<std::string>& names,
                         const std::string& where) {
  OutputNames out;
  for (const auto& name : names) {
    const contract::Output* o = contract.find_output(name);
    if (!o) {
      std::string declared;
      for (const auto& d : contract.outputs)
        declared += (declared.empty() ? "" : ", ") + d.name + (!d.onnx_name.empty() && d.onnx_name != d.name ? " (" + d.onnx_name + ")" : "") +
                    (d.optional ? " [optional]" : "");
      throw Error(ErrorKind::kInvalidArgument, where + " " + name + ": " + contract.domain + "." + contract.name +
                                                   " has no output of that name; its outputs: " + declared);
    }
    // One output by its two names (invStdVar, inv_std_var) or one name twice: refused, as Kernel::call does.
    for (std::size_t k = 0; k < out.size(); ++k)
      if (out[k] == o->name)
        throw Error(ErrorKind::kInvalidArgument, where + " " + name + ": output " + o->name +
                                                     " is asked for twice (already as " + names[k] +
                                                     "); name each output at most once");
    out.push_back(o->name);
  }
  return out;
}

std::vector<OutputComparison> compare_outputs(const Tensors& actual, const reference::Results& expected,
                                              const std::function<reference::Tolerance(const std::string&)>& tolerance,
                                              std::string* problems) {
  std::vector<OutputComparison> out;
  for (const auto& [name, want] : expected) {
    auto it = actual.find(name);
    if (it == actual.end()) {
      *problems += (problems->empty() ? "" : "; ") + ("output " + name + " expected, not returned");
      continue;
    }
    const HostTensor& got = it->second;
    if (got.shape != want.shape) {
      *problems += (problems->empty() ? "" : "; ") + ("output " + name + " has shape " + shape_string(got.shape) +
                                                       ", expected " + shape_string(want.shape));
      continue;
    }
    // Rounded to the output's dtype as a correct store rounds: a true value past float16's range is Inf there.
    std::vector<double> values = want.values;
    if (got.dtype == DType::kFloat16 || got.dtype == DType::kFloat32)
      values = reference::to_doubles(reference::round_to_tensor(values, got.dtype, got.shape));
    OutputComparison c{name, tolerance(name), {}};
    c.comparison = reference::compare(got, values, c.tolerance);
    out.push_back(std::move(c));
  }
  return out;
}

Tensors generate_inputs(const nlohmann::json& inputs, DType dtype, std::uint64_t seed, const std::string& where,
                        std::int64_t max_elements) {
  std::mt19937_64 rng(seed);
  Tensors out;
  for (const auto& [name, spec] : inputs.items()) {
    const std::string at = where + "." + name;
    if (!spec.is_object() || !spec.contains("shape")) bad(at, "needs a `shape` list");
    // A misspelt field ("value" for "values") would run the case on random data instead of the author's.
    for (const auto& [key, value] : spec.items())
      if (key != "shape" && key != "dtype" && key != "values" && key != "randomInt" && key != "truncate")
        bad(at + "." + key, "unknown field (an input takes shape, dtype, values, randomInt, truncate)");
    const Shape shape = shape_from_json(spec["shape"], at + ".shape");
    std::int64_t elements = 0;
    try {
      elements = numel(shape);
    } catch (const Error& e) {
      bad(at + ".shape", e.message());  // more than 2^62 elements
    }
    if (elements > max_elements) bad(at, "shape " + shape_string(shape) + " has more than " + std::to_string(max_elements) + " elements");
    std::optional<DType> own;
    if (spec.contains("dtype")) {
      if (spec["dtype"].is_string()) own = parse_dtype(spec["dtype"].get<std::string>());
      if (!own) bad(at + ".dtype", "unknown dtype " + spec["dtype"].dump() + " (float32, float16, int64, uint32)");
    }
    const bool float_own = own && (*own == DType::kFloat32 || *own == DType::kFloat16);
    // `values` and `randomInt` of integers: int64, or the entry's own integer `dtype` (uint32), each element in its range.
    const DType integer = own && !float_own ? *own : DType::kInt64;
    if (spec.contains("values")) {
      if (!spec["values"].is_array()) bad(at + ".values", "must be a list, got " + spec["values"].dump());
      // With a float `dtype` ("dtype": "float32"): the values rounded to it.
      if (float_own) {
        std::vector<double> values;
        for (const auto& v : spec["values"]) values.push_back(expected_number(v, at + ".values"));
        if (static_cast<std::int64_t>(values.size()) != elements)
          bad(at, std::to_string(values.size()) + " values for shape " + shape_string(shape));
        out[name] = reference::round_to_tensor(values, *own, shape);
        continue;
      }
      std::vector<std::int64_t> values;
      for (std::size_t k = 0; k < spec["values"].size(); ++k) {
        const nlohmann::json& v = spec["values"][k];
        check_integer(v, range_of(integer), at + ".values[" + std::to_string(k) + "]",
                      own ? "" : " (the default dtype of `values`; name a float `dtype` for other numbers)");
        values.push_back(v.get<std::int64_t>());
      }
      if (static_cast<std::int64_t>(values.size()) != elements)
        bad(at, std::to_string(values.size()) + " values for shape " + shape_string(shape));
      out[name] = integer_tensor(integer, shape, values);
    } else if (spec.contains("randomInt")) {
      const auto& r = spec["randomInt"];
      if (float_own) bad(at + ".randomInt", "draws integers: the input's `dtype` " + spec["dtype"].dump() + " is not int64 or uint32");
      if (!r.is_array() || r.size() != 2) bad(at + ".randomInt", "must be [lo, hi] with integers lo <= hi, got " + r.dump());
      for (std::size_t k = 0; k < 2; ++k)
        check_integer(r[k], range_of(integer), at + ".randomInt[" + std::to_string(k) + "]");
      const std::int64_t lo = r[0].get<std::int64_t>(), hi = r[1].get<std::int64_t>();
      if (lo > hi) bad(at + ".randomInt", "must be [lo, hi] with integers lo <= hi, got " + r.dump());
      std::uniform_int_distribution<std::int64_t> dist(lo, hi);
      std::vector<std::int64_t> values(static_cast<std::size_t>(elements));
      for (auto& v : values) v = dist(rng);
      out[name] = integer_tensor(integer, shape, values);
    } else {
      const DType d = own.value_or(dtype);
      if (d == DType::kInt64 || d == DType::kUInt32) {
        out[name] = HostTensor{d, shape, std::vector<std::byte>(elements * dtype_size(d))};
      } else {
        out[name] = reference::random_float(d, shape, rng);
      }
    }
    if (spec.contains("truncate")) {  // a negative case: data shorter than its shape
      auto& data = out[name].data;
      const IntegerRange bytes{0, data.size(), "the bytes of the tensor"};
      check_integer(spec["truncate"], bytes, at + ".truncate");
      data.resize(data.size() - spec["truncate"].get<std::size_t>());
    }
  }
  return out;
}

Case case_from_json(const nlohmann::json& entry, const std::string& where_in) {
  if (!entry.is_object()) bad(where_in, "a case must be an object");
  Case c;
  c.name = entry.value("name", "");
  const std::string where = where_in + " (" + c.name + ")";
  if (c.name.empty()) bad(where, "`name` is required");
  static const std::set<std::string> kCaseFields = {"name",    "why",      "dtype",    "attrs",        "tunables",
                                                    "inputs",  "seed",     "error",    "variant",      "variantWithoutShaderF16",
                                                    "tolerance", "expected", "outputShapes", "outputs", "tags", "expectedFrom"};
  for (const auto& [key, value] : entry.items())
    if (!kCaseFields.count(key))
      bad(where + "." + key, "unknown field (a test.json case takes: name, why, dtype, attrs, tunables, inputs, seed, error, "
                             "variant, variantWithoutShaderF16, tolerance, expected, outputShapes, outputs, tags, expectedFrom)");
  c.why = entry.value("why", "");
  const std::string dtype_text = entry.value("dtype", "float32");
  const auto dtype = parse_dtype(dtype_text);
  if (!dtype || (*dtype != DType::kFloat32 && *dtype != DType::kFloat16)) bad(where, "`dtype` " + dtype_text + " is not float32/float16");
  const nlohmann::json attrs = entry.value("attrs", nlohmann::json::object());
  for (const auto& [k, v] : attrs.items()) c.attrs[k] = attribute_from_json(v, where + ".attrs." + k);
  const nlohmann::json tunables = entry.value("tunables", nlohmann::json::object());
  for (const auto& [k, v] : tunables.items()) c.tunables[k] = attribute_from_json(v, where + ".tunables." + k);
  if (!entry.contains("inputs") || !entry["inputs"].is_object()) bad(where, "`inputs` must be an object");
  std::uint64_t seed = 1;
  if (entry.contains("seed")) {
    check_integer(entry["seed"], kSeedRange, where + ".seed");
    seed = entry["seed"].get<std::uint64_t>();
  }
  c.inputs = generate_inputs(entry["inputs"], *dtype, seed, where + ".inputs", std::int64_t{1} << 28);
  if (entry.contains("error")) {
    c.expected_error = entry["error"].get<std::string>();
  } else {
    c.expected_variant = entry.value("variant", "");
    c.expected_variant_without_f16 = entry.value("variantWithoutShaderF16", c.expected_variant);
    if (!entry.contains("tolerance") || !entry["tolerance"].is_object()) bad(where, "needs `tolerance` or `error`");
    c.tolerance = tolerance_from_json(entry["tolerance"], where + ".tolerance");
    c.tolerance_why = entry["tolerance"].value("why", "");
    if (const auto outs = entry["tolerance"].find("outputs"); outs != entry["tolerance"].end())
      for (const auto& [k, v] : outs->items()) c.output_tolerances[k] = tolerance_from_json(v, where + ".tolerance.outputs." + k);
    // Expected outputs written down with the case (a package without a CPU reference): values row-major,
    // the shape from `outputShapes`, else the one the contract infers for the call (checked in run_case).
    if (entry.contains("expected")) {
      if (!entry["expected"].is_object()) bad(where, "`expected` must be an object of output: [values]");
      for (const auto& [k, v] : entry["expected"].items()) {
        if (!v.is_array()) bad(where + ".expected." + k, "must be a list of numbers");
        std::vector<double> values;
        for (const auto& x : v) values.push_back(expected_number(x, where + ".expected." + k));
        Shape shape = {static_cast<std::int64_t>(values.size())};
        if (entry.contains("outputShapes") && entry["outputShapes"].contains(k)) {
          shape = shape_from_json(entry["outputShapes"][k], where + ".outputShapes." + k);
          c.output_shapes[k] = shape;
        } else {
          c.expected_shape_from_call.insert(k);
        }
        if (numel(shape) != static_cast<std::int64_t>(values.size()))
          bad(where + ".expected." + k, std::to_string(values.size()) + " values for shape " + shape_string(shape));
        c.expected[k] = {shape, std::move(values)};
        c.outputs.push_back(k);
      }
    }
  }
  // outputShapes of outputs the case has no `expected` values for: the shapes the call must return (before:
  // read only beside `expected`, so a wrong or unknown one was never checked).
  if (entry.contains("outputShapes")) {
    if (!entry["outputShapes"].is_object()) bad(where + ".outputShapes", "must be an object of output: shape");
    for (const auto& [k, v] : entry["outputShapes"].items())
      if (!c.output_shapes.count(k)) c.output_shapes[k] = shape_from_json(v, where + ".outputShapes." + k);
  }
  // The outputs to ask for, each compared with the CPU reference (an optional one is produced only when
  // asked); with `expected` its names are the outputs asked for.
  if (entry.contains("outputs")) {
    if (entry.contains("expected")) bad(where, "give `outputs` or `expected`, not both: `expected` names the outputs asked for");
    if (!entry["outputs"].is_array()) bad(where + ".outputs", "must be a list of output names");
    for (const auto& n : entry["outputs"]) {
      if (!n.is_string()) bad(where + ".outputs", "must be a list of output names, got " + n.dump());
      c.outputs.push_back(n.get<std::string>());
    }
  }
  return c;
}

namespace {

// A case's file: a relative path inside its folder (no "..", not absolute; ../shared/cases/README.md: the folder
// holds the call), else refused naming the field.
std::filesystem::path case_file(const std::filesystem::path& folder, const nlohmann::json& file, const std::string& field) {
  if (!file.is_string() || file.get<std::string>().empty())
    throw Error(ErrorKind::kInvalidArgument, field + ": must be a file name inside the case folder, got " + file.dump());
  const std::filesystem::path rel(file.get<std::string>());
  bool up = false;
  for (const auto& part : rel) up = up || part == "..";
  if (rel.is_absolute() || rel.has_root_name() || rel.has_root_directory() || up)
    throw Error(ErrorKind::kInvalidArgument, field + ": \"" + rel.string() +
                                                 "\" leaves the case folder (a case's files are paths inside its folder)");
  return folder / rel;
}

// case.json's descriptive `dtype` (the case's T: the dtype of the contract's first input and of every input of
// that type constraint) and `shapes` (each input's shape) must be what the files hold; before, a case labelled
// float16 over float32 files, or with shapes no file has, passed.
void check_stated_dtype_and_shapes(const nlohmann::json& j, const contract::Contract& contract,
                                   const Tensors& inputs, const std::string& at) {
  if (j.contains("dtype") && !contract.inputs.empty()) {
    const auto stated = j["dtype"].is_string() ? parse_dtype(j["dtype"].get<std::string>()) : std::nullopt;
    if (!stated) throw Error(ErrorKind::kInvalidArgument, at + "dtype: unknown dtype " + j["dtype"].dump() + " (float32, float16, int64, uint32)");
    const std::string& t = contract.inputs.front().dtype;
    for (const auto& [name, tensor] : inputs) {
      const contract::Input* in = contract.find_input(name);
      if (in && in->dtype == t && tensor.dtype != *stated)
        throw Error(ErrorKind::kInvalidArgument, at + "dtype is " + std::string(dtype_name(*stated)) + " but inputs." + name +
                                                     "'s file holds " + std::string(dtype_name(tensor.dtype)) + " (the case's " +
                                                     t + ", the type of input " + contract.inputs.front().name + ")");
    }
  }
  if (!j.contains("shapes")) return;
  if (!j["shapes"].is_object()) throw Error(ErrorKind::kInvalidArgument, at + "shapes: must be an object of input: shape");
  for (const auto& [name, value] : j["shapes"].items()) {
    const Shape stated = shape_from_json(value, at + "shapes." + name);
    const auto it = inputs.find(name);
    if (it == inputs.end())
      throw Error(ErrorKind::kInvalidArgument, at + "shapes." + name + ": the case has no input " + name);
    if (it->second.shape != stated)
      throw Error(ErrorKind::kInvalidArgument, at + "shapes." + name + " is " + shape_string(stated) + " but inputs." + name +
                                                   "'s file holds " + shape_string(it->second.shape));
  }
}

}  // namespace

Case case_from_folder(const std::filesystem::path& folder,
                      const std::function<const contract::Contract&(const std::string& kernel)>& contract_of) {
  const std::string text = io::read_file_text(folder / "case.json");  // a FIFO or device is refused, not read
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kIo, (folder / "case.json").string() + ": " + e.what());
  }
  Case c;
  c.name = folder.filename().string();
  try {  // a key missing or of the wrong type: an error naming the file, not an escaped json exception
  c.kernel = j.value("kernel", "");
  c.why = j.value("oracle", "");
  const std::string at = (folder / "case.json").string() + " ";
  const contract::Contract& contract = contract_of(c.kernel);
  // The op the case was made for (its expected outputs are that op's) must be the kernel's (before: a case saying
  // "op": "RMSNormalization" ran RotaryEmbedding's kernel and PASSED).
  for (const auto& [field, ours] : {std::pair<const char*, const std::string*>{"domain", &contract.domain}, {"op", &contract.name}})
    if (j.contains(field) && (!j[field].is_string() || j[field].get<std::string>() != *ours))
      throw Error(ErrorKind::kInvalidArgument, at + field + " is " + j[field].dump() + " but kernel " + c.kernel + " is " +
                                                   contract.domain + "::" + contract.name);
  for (const auto& [name, file] : j.at("inputs").items())
    c.inputs[name] = read_input_npy(contract, name, case_file(folder, file, at + "inputs." + name), at + "inputs." + name);
  check_stated_dtype_and_shapes(j, contract, c.inputs, at);
  if (j.contains("attributes") && !j["attributes"].is_object())
    throw Error(ErrorKind::kInvalidArgument, "\"attributes\" must be an object of name: value");
  const nlohmann::json attributes = j.value("attributes", nlohmann::json::object());
  for (const auto& [name, value] : attributes.items())
    c.attrs[name] = attribute_from_json(value, c.name + ".attributes." + name);
  if (!j.at("expected").is_object() || j["expected"].empty())
    throw Error(ErrorKind::kInvalidArgument, "\"expected\" must name at least one output: {\"y\": \"y.npy\"}");
  std::map<std::string, DType, std::less<>> expected_dtypes;
  for (const auto& [name, file] : j["expected"].items()) {
    const HostTensor t = io::read_npy(case_file(folder, file, at + "expected." + name));
    c.expected[name] = {t.shape, reference::to_doubles(t)};
    expected_dtypes[name] = t.dtype;
    c.outputs.push_back(name);  // a case asks for exactly the outputs it expects
  }
  // Without the case's own tolerance: the RotaryEmbedding cases of ../shared/cases, float32 from ONNX / ONNX
  // Runtime; ours rotate in f32 with one rounding on store. |a*c - b*s| with |a|,|b|,|c|,|s| <= ~1 (values
  // here are within a few units) has a rounding error of a few ulps of 1 in either implementation: 1e-5
  // absolute leaves a wide margin over 2^-23 and fails on any index or sign mistake (errors of order 1).
  c.tolerance = {1e-5, 1e-5};
  c.tolerance_why = "two f32 implementations of the same rotation: a few ulps each";
  if (j.contains("tolerance") && j["tolerance"].is_object()) {  // e.g. f16 cases saved by `wgk diff`
    c.tolerance = tolerance_from_json(j["tolerance"], c.name + ".tolerance");
    c.tolerance_why = j["tolerance"].value("why", "the case's own tolerance");
    if (j["tolerance"].contains("outputs"))
      for (const auto& [k, v] : j["tolerance"]["outputs"].items())
        c.output_tolerances[k] = tolerance_from_json(v, c.name + ".tolerance.outputs." + k);
  }
  if (j.contains("output_shapes"))
    for (const auto& [k, v] : j["output_shapes"].items()) c.output_shapes[k] = shape_from_json(v, c.name + ".output_shapes." + k);
  if (j.contains("output_dtypes"))
    for (const auto& [k, v] : j["output_dtypes"].items()) {
      const auto d = parse_dtype(v.get<std::string>());
      if (!d) throw Error(ErrorKind::kInvalidArgument, "output_dtypes." + k + ": unknown dtype " + v.dump());
      c.output_dtypes[k] = *d;
    }
  // An expected file states its output's dtype (before: a float16 file for a float32 output was converted and
  // compared, a tolerance failure instead of a dtype mismatch); output_dtypes, when given, must agree with it.
  for (const auto& [k, dtype] : expected_dtypes) {
    const auto [it, added] = c.output_dtypes.emplace(k, dtype);
    if (!added && it->second != dtype)
      throw Error(ErrorKind::kInvalidArgument, at + "output_dtypes." + k + " is " + std::string(dtype_name(it->second)) +
                                                   " but expected." + k + "'s file holds " + std::string(dtype_name(dtype)));
  }
  const nlohmann::json tunables = j.value("tunables", nlohmann::json::object());
  for (const auto& [name, value] : tunables.items())
    c.tunables[name] = attribute_from_json(value, c.name + ".tunables." + name);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kInvalidArgument, (folder / "case.json").string() + ": " + e.what() +
                                                 " (case folders: docs/testing.md)");
  } catch (Error& e) {
    e.add_context("reading " + (folder / "case.json").string());
    throw;
  }
  return c;
}

CaseResult run_case(const Kernel& kernel, const Case& c) {
  CaseResult r;
  Inputs inputs;
  for (const auto& [name, tensor] : c.inputs) inputs.emplace(name, tensor);
  CallInfo info;
  Outputs outputs;
  const auto& contract = *introspect::contract(kernel);
  // The outputs asked for and the expected ones by the contract's names (a case may use ONNX names).
  OutputNames asked;
  reference::Results expected;
  std::map<std::string, std::string> shape_from_call;  // contract name -> the name `expected` gives
  std::map<std::string, std::pair<std::string, Shape>> stated_shapes;  // contract name -> (the case's name, shape)
  std::map<std::string, std::pair<std::string, DType>> stated_dtypes;
  std::map<std::string, reference::Tolerance> tolerances;
  try {
    for (const auto& [name, values] : c.expected) {
      const std::string output = output_names(contract, {name}, "expected output").front();
      if (c.expected_shape_from_call.count(name)) shape_from_call.emplace(output, name);
      // One output by its two names (invStdVar and inv_std_var): one of the two files would go unchecked.
      if (!expected.emplace(output, values).second)
        throw Error(ErrorKind::kInvalidArgument, "expected output " + name + " is given twice (it is output " +
                                                     output + ", also named by another entry of `expected`)");
    }
    asked = output_names(contract, c.outputs, "output");
    // Stated shapes, dtypes and per-output tolerances by the contract's names: an ONNX name resolves, an unknown one
    // is refused listing the outputs (before: a tolerance keyed "output" or "Y" was dropped, the looser case-wide
    // one applied, and the case could PASS).
    for (const auto& [given, shape] : c.output_shapes) stated_shapes.emplace(output_names(contract, {given}, "output_shapes").front(), std::pair{given, shape});
    for (const auto& [given, dtype] : c.output_dtypes) stated_dtypes.emplace(output_names(contract, {given}, "output_dtypes").front(), std::pair{given, dtype});
    for (const auto& [given, t] : c.output_tolerances)
      if (!tolerances.emplace(output_names(contract, {given}, "tolerance.outputs").front(), t).second)
        throw Error(ErrorKind::kInvalidArgument, "tolerance.outputs." + given + " names an output another entry names too");
    outputs = kernel.call(inputs, c.attrs, c.tunables, &info, asked);
    r.variant = info.variant;
  } catch (const Error& e) {
    // One line a case: the error's context lines ("\n  while calling ...") joined with "; " (a PASS line was
    // followed by a stray indented line that read like a failure's trace).
    std::string text = e.what();
    for (std::size_t at = text.find("\n  "); at != std::string::npos; at = text.find("\n  ", at)) text.replace(at, 3, "; ");
    if (!c.expected_error.empty() && text.find(c.expected_error) != std::string::npos) {
      r.passed = true;
      r.message = "expected error: " + text;
    } else {
      r.message = "error: " + text;
    }
    return r;
  }
  if (!c.expected_error.empty()) {
    r.message = "expected an error containing \"" + c.expected_error + "\", but the call succeeded (variant " + r.variant + ")";
    return r;
  }
  Tensors actual;
  for (const auto& [name, t] : outputs) actual[name] = t.read();
  std::string problems;
  const auto problem = [&](const std::string& text) { problems += (problems.empty() ? "" : "; ") + text; };
  for (const auto& [output, stated] : stated_shapes) {
    const auto it = actual.find(output);
    if (it == actual.end())
      problem("the case states a shape for output " + stated.first + ", which the call did not produce (ask for it in `outputs`)");
    else if (it->second.shape != stated.second)
      problem("output " + stated.first + " has shape " + shape_string(it->second.shape) + ", the case states " + shape_string(stated.second));
  }
  for (const auto& [output, stated] : stated_dtypes)
    if (auto it = actual.find(output); it != actual.end() && it->second.dtype != stated.second)
      problem("output " + stated.first + " is " + std::string(dtype_name(it->second.dtype)) + ", the case states " +
              std::string(dtype_name(stated.second)));
  if (expected.empty()) {
    std::vector<std::string> names;
    for (const auto& [name, t] : actual) names.push_back(name);
    auto ref = reference_outputs(contract, c.inputs, c.attrs, names);
    if (!ref) {
      r.message = "no expected outputs and no CPU reference for " + contract.domain + "::" + contract.name +
                  " (give the case `expected` outputs)";
      return r;
    }
    for (const auto& name : names)
      if (ref->count(name)) expected[name] = std::move(ref->at(name));
  }
  // An expected output without a stated shape takes the one the contract inferred for this call.
  for (const auto& [output, given] : shape_from_call) {
    auto want = expected.find(output);
    auto got = actual.find(output);
    if (got == actual.end()) continue;  // compare_outputs reports it
    if (numel(got->second.shape) == static_cast<std::int64_t>(want->second.values.size())) {
      want->second.shape = got->second.shape;
    } else {
      problems += (problems.empty() ? "" : "; ") +
                  ("expected." + given + ": " + std::to_string(want->second.values.size()) + " values for output " + output +
                   "'s shape " + shape_string(got->second.shape) + " (the contract's for this call; the case states no outputShapes." +
                   given + ")");
      expected.erase(want);
    }
  }
  const auto tolerance = [&](const std::string& name) {
    auto it = tolerances.find(name);
    return it == tolerances.end() ? c.tolerance : it->second;
  };
  const auto comparisons = compare_outputs(actual, expected, tolerance, &problems);
  r.passed = problems.empty();
  for (const auto& oc : comparisons) {
    r.max_abs_error = std::max(r.max_abs_error, oc.comparison.max_abs_error);
    r.max_rel_error = std::max(r.max_rel_error, oc.comparison.max_rel_error);
    r.passed = r.passed && oc.comparison.ok();
    r.message += (r.message.empty() ? "" : "; ") + (comparisons.size() > 1 ? oc.name + ": " : std::string()) +
                 oc.comparison.summary();
  }
  if (!problems.empty()) r.message = problems + (r.message.empty() ? "" : "; " + r.message);
  const std::string& want = kernel.device()->has_shader_f16() ? c.expected_variant : c.expected_variant_without_f16;
  if (!want.empty() && want != r.variant) {
    r.passed = false;
    r.message = "chose variant " + r.variant + ", expected " + want + "; " + r.message;
  }
  // On an adapter with shader-f16, also check the choice an adapter without it would make (the H200
  // under Vulkan), by selecting with that one capability flipped.
  if (kernel.device()->has_shader_f16() && !c.expected_variant_without_f16.empty()) {
    plan::DeviceCaps caps = introspect::caps(*kernel.device());
    caps.shader_f16 = false;
    const plan::Planner planner(introspect::contract(kernel), caps, [](const std::string&) { return std::string(); });
    plan::CallSignature sig;
    auto* const value = &plan::attribute_value;
    for (const auto& [name, t] : c.inputs) sig.inputs.emplace(name, plan::TensorSignature{t.dtype, t.shape});
    for (const auto& [name, v] : c.attrs) sig.attrs.emplace(name, value(v));
    for (const auto& [name, v] : c.tunables) sig.tunables.emplace(name, value(v));
    sig.outputs = asked;
    const plan::Selection chosen = planner.select(sig);
    const std::string got = chosen.variant ? chosen.variant->id : "none (" + chosen.failure + ")";
    if (got != c.expected_variant_without_f16) {
      r.passed = false;
      r.message = "without shader-f16 would choose " + got + ", expected " + c.expected_variant_without_f16 + "; " + r.message;
    }
  }
  return r;
}

}  // namespace wgk::cli
