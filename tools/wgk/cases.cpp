#include "cases.h"

#include <cmath>
#include <fstream>
#include <random>

#include "contract/contract.h"
#include "contract/plan.h"
#include "io/npy.h"
#include "reference/by_op.h"
#include "reference/rounding.h"
#include "wgk/introspect.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kContract, where + ": " + what);
}

// Uniform doubles in [-1, 1) from a 64-bit Mersenne Twister (the distribution is ours, so the values
// are the same with every standard library).
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0; }

HostTensor random_float(DType dtype, const Shape& shape, std::mt19937_64& rng) {
  std::vector<double> values(static_cast<std::size_t>(numel(shape)));
  for (double& v : values) v = uniform(rng);
  return reference::round_to_tensor(values, dtype, shape);
}

}  // namespace

AttributeValue attribute_from_json(const nlohmann::json& v, const std::string& where) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number()) return v.get<double>();
  if (v.is_boolean()) return std::int64_t{v.get<bool>()};
  if (v.is_string()) return v.get<std::string>();
  bad(where, "must be a number or a string, got " + v.dump());
}

std::pair<std::string, AttributeValue> parse_name_value(const std::string& spec, const std::string& option) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(ErrorKind::kInvalidArgument, option + " " + spec + ": expected NAME=VALUE");
  const std::string name = spec.substr(0, eq), text = spec.substr(eq + 1);
  std::size_t used = 0;
  // Decimal numbers only: std::stod would also read hex floats ("0x10" as 16) and "inf"/"nan" spellings.
  const bool decimal = !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
  if (!decimal) return {name, text};
  try {
    const std::int64_t i = std::stoll(text, &used);
    if (used == text.size()) return {name, i};
  } catch (const std::exception&) {
  }
  try {
    const double d = std::stod(text, &used);
    if (used == text.size()) return {name, d};
  } catch (const std::exception&) {
  }
  return {name, text};
}

Attributes parse_name_values(const std::vector<std::string>& specs, const std::string& option) {
  Attributes out;
  for (const std::string& spec : specs) {
    auto [name, value] = parse_name_value(spec, option);
    if (!out.emplace(name, std::move(value)).second)
      throw Error(ErrorKind::kInvalidArgument, option + " " + name + " is given twice");
  }
  return out;
}

std::map<std::string, double, std::less<>> attrs_as_doubles(const Attributes& attrs) {
  std::map<std::string, double, std::less<>> out;
  for (const auto& [name, value] : attrs) {
    if (const auto* i = std::get_if<std::int64_t>(&value)) out[name] = static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&value)) out[name] = *d;
  }
  return out;
}

std::map<std::string, HostTensor, std::less<>> generate_inputs(const nlohmann::json& inputs, DType dtype,
                                                              std::uint64_t seed, const std::string& where,
                                                              std::int64_t max_elements) {
  std::mt19937_64 rng(seed);
  std::map<std::string, HostTensor, std::less<>> out;
  for (const auto& [name, spec] : inputs.items()) {
    const std::string at = where + "." + name;
    if (!spec.is_object() || !spec.contains("shape") || !spec["shape"].is_array()) bad(at, "needs a `shape` list");
    Shape shape;
    for (const auto& d : spec["shape"]) {
      if (!d.is_number_integer()) bad(at, "shape entries must be integers");
      shape.push_back(d.get<std::int64_t>());
    }
    if (numel(shape) > max_elements) bad(at, "shape " + shape_string(shape) + " has more than " + std::to_string(max_elements) + " elements");
    if (spec.contains("values")) {
      std::vector<std::int64_t> values;
      for (const auto& v : spec["values"]) {
        if (!v.is_number_integer()) bad(at, "`values` must be integers");
        values.push_back(v.get<std::int64_t>());
      }
      if (static_cast<std::int64_t>(values.size()) != numel(shape))
        bad(at, std::to_string(values.size()) + " values for shape " + shape_string(shape));
      out[name] = HostTensor::from(DType::kInt64, shape, values);
    } else if (spec.contains("randomInt")) {
      const auto& r = spec["randomInt"];
      if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer() || r[0] > r[1])
        bad(at, "`randomInt` must be [lo, hi] with integers lo <= hi");
      std::uniform_int_distribution<std::int64_t> dist(r[0].get<std::int64_t>(), r[1].get<std::int64_t>());
      std::vector<std::int64_t> values(static_cast<std::size_t>(numel(shape)));
      for (auto& v : values) v = dist(rng);
      out[name] = HostTensor::from(DType::kInt64, shape, values);
    } else {
      const std::string in_dtype = spec.value("dtype", std::string(dtype_name(dtype)));
      const auto d = parse_dtype(in_dtype);
      if (!d) bad(at, "unknown dtype " + in_dtype);
      if (*d == DType::kInt64 || *d == DType::kUInt32) {
        out[name] = HostTensor{*d, shape, std::vector<std::byte>(numel(shape) * dtype_size(*d))};
      } else {
        out[name] = random_float(*d, shape, rng);
      }
    }
    if (spec.contains("truncate")) {  // a negative case: data shorter than its shape
      auto& data = out[name].data;
      data.resize(data.size() - std::min<std::size_t>(data.size(), spec["truncate"].get<std::size_t>()));
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
  c.why = entry.value("why", "");
  const std::string dtype_text = entry.value("dtype", "float32");
  const auto dtype = parse_dtype(dtype_text);
  if (!dtype || (*dtype != DType::kFloat32 && *dtype != DType::kFloat16)) bad(where, "`dtype` " + dtype_text + " is not float32/float16");
  const nlohmann::json attrs = entry.value("attrs", nlohmann::json::object());
  for (const auto& [k, v] : attrs.items()) c.attrs[k] = attribute_from_json(v, where + ".attrs." + k);
  const nlohmann::json tunables = entry.value("tunables", nlohmann::json::object());
  for (const auto& [k, v] : tunables.items()) c.tunables[k] = attribute_from_json(v, where + ".tunables." + k);
  if (!entry.contains("inputs") || !entry["inputs"].is_object()) bad(where, "`inputs` must be an object");
  c.inputs = generate_inputs(entry["inputs"], *dtype, entry.value("seed", 1), where + ".inputs", std::int64_t{1} << 28);
  if (entry.contains("error")) {
    c.expected_error = entry["error"].get<std::string>();
  } else {
    c.expected_variant = entry.value("variant", "");
    c.expected_variant_without_f16 = entry.value("variantWithoutShaderF16", c.expected_variant);
    if (!entry.contains("tolerance") || !entry["tolerance"].is_object()) bad(where, "needs `tolerance` or `error`");
    c.tolerance.abs = entry["tolerance"].value("abs", 0.0);
    c.tolerance.rel = entry["tolerance"].value("rel", 0.0);
    c.tolerance_why = entry["tolerance"].value("why", "");
  }
  return c;
}

Case case_from_folder(const std::filesystem::path& folder) {
  std::ifstream in(folder / "case.json");
  if (!in) throw Error(ErrorKind::kIo, "cannot read " + (folder / "case.json").string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kIo, (folder / "case.json").string() + ": " + e.what());
  }
  Case c;
  c.name = folder.filename().string();
  try {  // a key missing or of the wrong type: an error naming the file, not an escaped json exception
  c.kernel = j.value("kernel", "");
  c.why = j.value("oracle", "");
  for (const auto& [name, file] : j.at("inputs").items()) c.inputs[name] = io::read_npy(folder / file.get<std::string>());
  if (j.contains("attributes") && !j["attributes"].is_object())
    throw Error(ErrorKind::kInvalidArgument, "\"attributes\" must be an object of name: value");
  const nlohmann::json attributes = j.value("attributes", nlohmann::json::object());
  for (const auto& [name, value] : attributes.items())
    c.attrs[name] = attribute_from_json(value, c.name + ".attributes." + name);
  c.expected = io::read_npy(folder / j.at("expected").at("y").get<std::string>());
  // The expected outputs are float32 from ONNX / ONNX Runtime; ours rotate in f32 with one rounding on
  // store. |a*c - b*s| with |a|,|b|,|c|,|s| <= ~1 (values here are within a few units) has a rounding
  // error of a few ulps of 1 in either implementation: 1e-5 absolute leaves a wide margin over 2^-23 and
  // fails on any index or sign mistake (errors of order 1).
  c.tolerance = {1e-5, 1e-5};
  c.tolerance_why = "two f32 implementations of the same rotation: a few ulps each";
  if (j.contains("tolerance") && j["tolerance"].is_object()) {  // e.g. f16 cases saved by `wgk diff`
    c.tolerance = {j["tolerance"].value("abs", 0.0), j["tolerance"].value("rel", 0.0)};
    c.tolerance_why = j["tolerance"].value("why", "the case's own tolerance");
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
  try {
    outputs = kernel.call(inputs, c.attrs, c.tunables, &info);
    r.variant = info.variant;
  } catch (const Error& e) {
    if (!c.expected_error.empty() && std::string(e.what()).find(c.expected_error) != std::string::npos) {
      r.passed = true;
      r.message = std::string("expected error: ") + e.what();
    } else {
      r.message = std::string("error: ") + e.what();
    }
    return r;
  }
  if (!c.expected_error.empty()) {
    r.message = "expected an error containing \"" + c.expected_error + "\", but the call succeeded (variant " + r.variant + ")";
    return r;
  }
  const HostTensor y = outputs.at("y").read();
  std::vector<double> expected;
  if (c.expected) {
    expected = reference::to_doubles(*c.expected);
  } else {
    const auto& contract = *introspect::contract(kernel);
    Attributes attrs = c.attrs;
    for (const auto& a : contract.attributes)
      if (!attrs.count(a.name) && a.default_value && a.default_value->is_number())
        attrs[a.name] = a.default_value->as_number();
    expected = reference::run_reference(contract.domain, contract.name, c.inputs, attrs_as_doubles(attrs));
  }
  const auto cmp = reference::compare(y, expected, c.tolerance);
  r.max_abs_error = cmp.max_abs_error;
  r.max_rel_error = cmp.max_rel_error;
  r.passed = cmp.ok();
  r.message = cmp.summary();
  const std::string& want = kernel.device()->has_shader_f16() ? c.expected_variant : c.expected_variant_without_f16;
  if (!want.empty() && want != r.variant) {
    r.passed = false;
    r.message = "chose variant " + r.variant + ", expected " + want + "; " + r.message;
  }
  // On an adapter with shader-f16, also check the choice an adapter without it would make (the H200
  // under Vulkan), by selecting with that one capability flipped.
  if (kernel.device()->has_shader_f16() && !c.expected_variant_without_f16.empty()) {
    contract::DeviceCaps caps = introspect::caps(*kernel.device());
    caps.shader_f16 = false;
    const contract::Planner planner(introspect::contract(kernel), caps, [](const std::string&) { return std::string(); });
    contract::CallSignature sig;
    auto value = [](const AttributeValue& v) { return std::visit([](const auto& x) { return expr::Value(x); }, v); };
    for (const auto& [name, t] : c.inputs) sig.inputs.emplace(name, contract::TensorSignature{t.dtype, t.shape});
    for (const auto& [name, v] : c.attrs) sig.attrs.emplace(name, value(v));
    for (const auto& [name, v] : c.tunables) sig.tunables.emplace(name, value(v));
    const contract::Selection chosen = planner.select(sig);
    const std::string got = chosen.variant ? chosen.variant->id : "none (" + chosen.failure + ")";
    if (got != c.expected_variant_without_f16) {
      r.passed = false;
      r.message = "without shader-f16 would choose " + got + ", expected " + c.expected_variant_without_f16 + "; " + r.message;
    }
  }
  return r;
}

}  // namespace wgk::cli
