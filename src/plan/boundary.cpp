// The host boundary, both halves (see boundary.h): the signature-level stages bind_signature runs, in
// order, and the data-level checks the runtime calls with the plan's value ranges.
#include "plan/boundary.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <variant>

#include "plan/wgsl.h"
#include "wgk/error.h"

namespace wgk::plan {

using namespace wgk::contract;  // the model the boundary checks against
using expr::integral;
using expr::List;
using expr::Object;
using expr::Value;

namespace {

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorKind::kInvalidArgument, message); }
[[noreturn]] void fail_contract(const std::string& message) { throw Error(ErrorKind::kContract, message); }

Value shape_value(const Shape& shape) {
  List dims;
  dims.reserve(shape.size());
  for (auto d : shape) dims.emplace_back(d);
  return Value(std::move(dims));
}

std::string input_label(const Input& in) {
  return in.onnx_name.empty() || in.onnx_name == in.name ? "'" + in.name + "'"
                                                         : "'" + in.name + "' (" + in.onnx_name + ")";
}

std::string expected_inputs(const Contract& c) {
  std::string s;
  for (const auto& in : c.inputs) {
    if (!s.empty()) s += ", ";
    s += in.name;
    if (!in.onnx_name.empty() && in.onnx_name != in.name) s += " (" + in.onnx_name + ")";
    if (in.optional) s += " [optional]";
  }
  return s;
}

std::string dtype_list(const std::vector<DType>& dtypes) {
  std::string s;
  for (auto d : dtypes) s += (s.empty() ? "" : ", ") + std::string(dtype_name(d));
  return s;
}

// ---- signature level: the stages of bind_signature ----------------------------------------------

void bind_inputs(const Contract& c, const std::string& op, const CallSignature& call, BoundCall& out) {
  // Names: every given input is declared (argument or ONNX name), at most once; required ones given.
  for (const auto& [name, sig] : call.inputs) {
    const Input* in = c.find_input(name);
    if (!in) fail(op + ": unknown input '" + name + "'; expected inputs: " + expected_inputs(c));
    const std::size_t i = static_cast<std::size_t>(in - c.inputs.data());
    if (out.given[i]) fail(op + ": input " + input_label(*in) + " given twice (by argument and ONNX name)");
    out.given[i] = &sig;
  }
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (!out.given[i] && !c.inputs[i].optional)
      fail(op + ": missing required input " + input_label(c.inputs[i]) + "; expected inputs: " + expected_inputs(c));
  }

}

void bind_dtypes(const Contract& c, const std::string& op, BoundCall& out) {
  // Dtypes: each input's dtype is allowed by its type constraint, and a variable binds one dtype
  // across all inputs (ONNX type constraints). An input with uint32 storage and checked narrowing of
  // int64 (positionIds) may also be given as uint32.
  std::vector<std::size_t> bound_by(c.type_constraints.size(), 0);
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (!out.given[i]) continue;
    const Input& in = c.inputs[i];
    const DType dtype = out.given[i]->dtype;
    const TypeConstraint* tc = c.find_type_constraint(in.dtype);
    if (!tc) {
      auto fixed = parse_dtype(in.dtype);
      if (!fixed) fail_contract(op + ": input " + input_label(in) + ": unknown type '" + in.dtype + "'");
      if (*fixed != dtype)
        fail(op + ": input " + input_label(in) + ": dtype " + std::string(dtype_name(dtype)) + " is not " + in.dtype);
      continue;
    }
    DType logical = dtype;
    const bool narrowed_given = dtype == DType::kUInt32 && in.storage == DType::kUInt32 &&
                                std::find(tc->allowed.begin(), tc->allowed.end(), DType::kInt64) != tc->allowed.end();
    if (narrowed_given) logical = DType::kInt64;
    if (std::find(tc->allowed.begin(), tc->allowed.end(), logical) == tc->allowed.end()) {
      fail(op + ": input " + input_label(in) + ": dtype " + std::string(dtype_name(dtype)) + " is not allowed for type " +
           tc->name + " (allowed: " + dtype_list(tc->allowed) + (in.storage ? "; uint32 when already narrowed" : "") +
           ")");
    }
    const std::size_t v = static_cast<std::size_t>(tc - c.type_constraints.data());
    if (out.bound[v] && *out.bound[v] != logical) {
      const std::size_t j = bound_by[v];
      fail(op + ": inputs " + input_label(c.inputs[j]) + " and " + input_label(in) + " must have the same type " +
           tc->name + ": " + c.inputs[j].name + " is " + std::string(dtype_name(out.given[j]->dtype)) + ", " +
           in.name + " is " + std::string(dtype_name(dtype)));
    }
    if (!out.bound[v]) {
      out.bound[v] = logical;
      bound_by[v] = i;
    }
  }

}

/// Fills `shapes`, `ranks` and `present` of the given inputs (and `present` of the absent ones).
void bind_shapes(const Contract& c, const std::string& op, const BoundCall& out, Object& shapes, Object& ranks,
                 Object& present) {
  // Ranks and dimensions.
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Input& in = c.inputs[i];
    present.insert_or_assign(in.name, Value(out.given[i] != nullptr));
    if (!in.onnx_name.empty()) present.insert_or_assign(in.onnx_name, Value(out.given[i] != nullptr));
    if (!out.given[i]) continue;
    const Shape& shape = out.given[i]->shape;
    const int rank = static_cast<int>(shape.size());
    if (!in.ranks.empty() && std::find(in.ranks.begin(), in.ranks.end(), rank) == in.ranks.end()) {
      std::string allowed;
      for (int r : in.ranks) allowed += (allowed.empty() ? "" : " or ") + std::to_string(r);
      fail(op + ": input " + input_label(in) + ": rank " + std::to_string(rank) + " (shape " + shape_string(shape) +
           ") is not allowed; expected rank " + allowed);
    }
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] < 0)
        fail(op + ": input " + input_label(in) + ": dimension " + std::to_string(d) + " is negative in shape " +
             shape_string(shape));
    }
    Value sv = shape_value(shape);
    shapes.insert_or_assign(in.name, sv);
    ranks.insert_or_assign(in.name, Value(std::int64_t{rank}));
    if (!in.onnx_name.empty()) {
      shapes.insert_or_assign(in.onnx_name, sv);
      ranks.insert_or_assign(in.onnx_name, Value(std::int64_t{rank}));
    }
  }

}

Object dtypes_scope(const Contract& c, const BoundCall& out) {
  // dtypes.<var>: the WGSL scalar of the bound type, or of the storage type of the inputs using it
  // ("u32" for M). An unbound variable (its inputs absent) names its first allowed type.
  Object dtypes;
  for (std::size_t v = 0; v < c.type_constraints.size(); ++v) {
    const TypeConstraint& tc = c.type_constraints[v];
    std::optional<DType> storage;
    for (const auto& in : c.inputs) {
      if (in.dtype == tc.name && in.storage) storage = in.storage;
    }
    std::optional<DType> t = out.bound[v];
    if (!t && !tc.allowed.empty()) t = tc.allowed.front();
    if (storage) t = storage;
    if (t) dtypes.insert_or_assign(tc.name, Value(std::string(wgsl_scalar(*t))));
  }

  return dtypes;
}

void bind_attributes(const Contract& c, const std::string& op, const CallSignature& call, BoundCall& out) {
  // Attributes: declared names only, of the declared type, allowed values, then defaults.
  for (const auto& [name, value] : call.attrs) {
    const Attribute* a = c.find_attribute(name);
    if (!a) {
      std::string declared;
      for (const auto& d : c.attributes) declared += (declared.empty() ? "" : ", ") + d.name;
      fail(op + ": unknown attribute '" + name + "'; declared attributes: " + (declared.empty() ? "none" : declared));
    }
    // As the contract declares the attribute (ONNX AttributeProto type), then its allowed values.
    Value v;
    try {
      v = contract::attribute_value(*a, value);
    } catch (const Error& e) {
      fail(op + ": " + e.what());
    }
    out.attr_values.insert_or_assign(name, std::move(v));
  }
  for (const auto& a : c.attributes) {
    if (a.default_value && !out.attr_values.contains(a.name)) out.attr_values.insert_or_assign(a.name, *a.default_value);
  }
}

void bind_tunables(const Contract& c, const std::string& op, const CallSignature& call, const Value& default_tunables,
                   BoundCall& out) {
  // Tunables: the manifest's defaults, overridden per call by declared names with values of the
  // default's type (a tunable changes how, never what, a kernel computes).
  if (call.tunables.empty()) {
    out.tunables = default_tunables;
  } else {
    Object tunables = default_tunables.as_object();
    for (const auto& [name, value] : call.tunables) {
      auto it = tunables.find(name);
      if (it == tunables.end()) {
        std::string declared;
        for (const auto& t : c.tunables) declared += (declared.empty() ? "" : ", ") + t.name;
        fail(op + ": unknown tunable '" + name + "'; declared tunables: " + (declared.empty() ? "none" : declared));
      }
      // The contract's rule: the default's type, an integer one as an ONNX INT attribute (no float, even 64.0).
      Value v;
      try {
        v = contract::tunable_value(*c.find_tunable(name), value);
      } catch (const Error& e) {
        fail(op + ": " + e.what());
      }
      out.tunable_overrides.insert_or_assign(name, v);
      it->second = std::move(v);
    }
    out.tunables = Value(std::move(tunables));
  }

}

/// Which outputs the call asks for, per Contract::outputs: declared names only (argument or ONNX name),
/// each output at most once (by either name: asked twice, a caller's list and the outputs differ).
std::vector<bool> wanted_outputs(const Contract& c, const std::string& op, const CallSignature& call) {
  std::vector<bool> wanted(c.outputs.size(), false);
  std::vector<const std::string*> asked_as(c.outputs.size(), nullptr);  // the name it was first asked by
  for (const auto& name : call.outputs) {
    const Output* out = c.find_output(name);
    if (!out) {
      std::string declared;
      for (const auto& o : c.outputs)
        declared += (declared.empty() ? "" : ", ") + o.name + (o.onnx_name != o.name ? " (" + o.onnx_name + ")" : "") +
                    (o.optional ? " [optional]" : "");
      fail(op + ": unknown output '" + name + "' asked for; declared outputs: " + declared);
    }
    const auto k = static_cast<std::size_t>(out - c.outputs.data());
    if (wanted[k])
      fail(op + ": output '" + name + "' asked for twice (output " + out->name +
           (!out->onnx_name.empty() && out->onnx_name != out->name ? " (" + out->onnx_name + ")" : "") +
           ", asked for already as '" + *asked_as[k] + "'); name each output at most once");
    wanted[k] = true;
    asked_as[k] = &name;
  }
  return wanted;
}

/// One planned output: dtype from its type variable, shape and rank from its expressions over `roots`.
PlannedOutput output_of(const Contract& c, const std::string& op, const Output& out, const BoundCall& bound_call,
                        const expr::Scope& roots) {
  PlannedOutput po;
  po.name = out.name;
  const TypeConstraint* tc = c.find_type_constraint(out.dtype);
  if (tc) {
    // A variable bound by no input is fixed when its constraint allows one type (ORT's U = float32).
    auto b = bound_call.bound[static_cast<std::size_t>(tc - c.type_constraints.data())];
    if (!b && tc->allowed.size() == 1) b = tc->allowed.front();
    if (!b) fail(op + ": output '" + out.name + "': its type " + out.dtype + " is bound by no given input");
    po.dtype = *b;
  } else if (auto fixed = parse_dtype(out.dtype)) {
    po.dtype = *fixed;
  } else {
    fail_contract(op + ": output '" + out.name + "': unknown type '" + out.dtype + "'");
  }
  const Value shape = out.shape.evaluate(roots);
  if (!shape.is_list())
    fail_contract(out.shape.path() + ": output '" + out.name + "' shape is " + shape.repr() + ", not a list");
  for (const auto& d : shape.as_list()) {
    auto iv = integral(d);
    if (!iv || *iv < 0)
      fail(op + ": output '" + out.name + "' shape " + shape.repr() + " (" + out.shape.text() +
           ") has a dimension that is not a non-negative integer");
    po.shape.push_back(*iv);
  }
  const Value rank = out.rank.evaluate(roots);
  auto rv = integral(rank);
  if (!rv || *rv != static_cast<std::int64_t>(po.shape.size()))
    fail(op + ": output '" + out.name + "' rank " + rank.repr() + " (" + out.rank.text() + ") does not match shape " +
         shape_string(po.shape));
  return po;
}

/// The outputs asked for and their `present`; each planned one, its shape and rank added to `shapes` and
/// `ranks`.
void bind_outputs(const Contract& c, const std::string& op, const CallSignature& call, BoundCall& bound_call,
                  Object& shapes, Object& ranks) {
  struct Roots : expr::Scope {
    const BoundCall& s;
    explicit Roots(const BoundCall& st) : s(st) {}
    Value lookup(std::string_view name) const override {
      const Value* v = s.root_ref(name);
      return v ? *v : Value();
    }
  } roots(bound_call);
  const std::vector<bool> wanted = wanted_outputs(c, op, call);
  Object present_outputs = bound_call.present.as_object();
  for (std::size_t k = 0; k < c.outputs.size(); ++k) {
    const Output& out = c.outputs[k];
    const bool produced = !out.optional || wanted[k];
    present_outputs.insert_or_assign(out.name, Value(produced));
    if (!out.onnx_name.empty()) present_outputs.insert_or_assign(out.onnx_name, Value(produced));
  }
  bound_call.present = Value(std::move(present_outputs));
  for (std::size_t k = 0; k < c.outputs.size(); ++k) {
    const Output& out = c.outputs[k];
    if (out.optional && !wanted[k]) continue;  // not asked for: neither planned nor allocated
    PlannedOutput po = output_of(c, op, out, bound_call, roots);
    Value sv = shape_value(po.shape);
    const Value rank(static_cast<std::int64_t>(po.shape.size()));
    shapes.insert_or_assign(out.name, sv);
    ranks.insert_or_assign(out.name, rank);
    if (!out.onnx_name.empty()) {
      shapes.insert_or_assign(out.onnx_name, sv);
      ranks.insert_or_assign(out.onnx_name, rank);
    }
    bound_call.outputs.push_back(std::move(po));
  }
  if (!c.outputs.empty()) {
    bound_call.shapes = Value(std::move(shapes));
    bound_call.ranks = Value(std::move(ranks));
  }
}

// ---- data level ----------------------------------------------------------------------------------

std::int64_t element_as_int(const HostTensor& host, std::int64_t i) {
  if (host.dtype == DType::kInt64) {
    std::int64_t v;
    std::memcpy(&v, host.data.data() + i * 8, 8);
    return v;
  }
  std::uint32_t v;
  std::memcpy(&v, host.data.data() + i * 4, 4);
  return v;
}

// "positionIds[4] = -1 (element [1, 1] of shape [2, 3])": the flat index, the value and, past rank 1, the
// element's index.
std::string element_text(std::string_view input, const Shape& shape, std::int64_t index, std::int64_t value) {
  std::string label = std::string(input) + "[" + std::to_string(index) + "] = " + std::to_string(value);
  if (shape.size() < 2) return label;
  std::vector<std::int64_t> at(shape.size());
  std::int64_t rest = index;
  for (std::size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] ? rest % shape[d] : 0;
    rest = shape[d] ? rest / shape[d] : 0;
  }
  std::string text;
  for (auto v : at) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return label + " (element [" + text + "] of shape " + shape_string(shape) + ")";
}

void check_range_element(std::string_view input, const Shape& shape, std::int64_t index, std::int64_t value,
                         const plan::ValueRange& range) {
  if (value < range.min || value > range.max)
    throw Error(ErrorKind::kInvalidArgument,
                "input " + element_text(input, shape, index, value) + " is out of range: " +
                    // An empty range (e.g. a cache of fewer rows than the call's tokens) allows no value at all.
                    (range.max < range.min ? "no value is allowed, the range [" + std::to_string(range.min) + ", " +
                                                 std::to_string(range.max) + "] is empty (max < min) for these shapes"
                     : value < range.min   ? "below " + std::to_string(range.min) + "; it must lie in [" +
                                               std::to_string(range.min) + ", " + std::to_string(range.max) + "]"
                                           : "above " + std::to_string(range.max) + "; it must lie in [" +
                                               std::to_string(range.min) + ", " + std::to_string(range.max) + "]") +
                    " (valueRange: min " + std::string(range.min_text) + " = " + std::to_string(range.min) + ", max " +
                    std::string(range.max_text) + " = " + std::to_string(range.max) + ")");
}

}  // namespace

const Value* BoundCall::root_ref(std::string_view name) const {
  switch (name.empty() ? '\0' : name[0]) {
    case 's': if (name == "shapes") return &shapes; break;
    case 'r': if (name == "ranks") return &ranks; break;
    case 'd':
      if (name == "dtypes") return &dtypes;
      if (name == "device") return device;
      break;
    case 'p': if (name == "present") return &present; break;
    case 'a': if (name == "attrs") return &attrs; break;
    case 't': if (name == "tunables") return &tunables; break;
    default: break;
  }
  return nullptr;
}

std::string BoundCall::signature_text(const Contract& contract) const {
  std::string s;
  for (std::size_t i = 0; i < contract.inputs.size(); ++i) {
    if (!given[i]) continue;
    s += (s.empty() ? "" : ", ") + contract.inputs[i].name + ": " + std::string(dtype_name(given[i]->dtype)) +
         shape_string(given[i]->shape);
  }
  s += "; attrs: ";
  bool first = true;
  for (const auto& a : contract.attributes) {
    auto it = attr_values.find(a.name);
    s += (first ? "" : ", ") + a.name + "=" + (it == attr_values.end() ? "undefined" : it->second.repr());
    first = false;
  }
  if (first) s += "none";
  if (!tunable_overrides.empty()) {
    s += "; tunables: ";
    first = true;
    for (const auto& [name, v] : tunable_overrides) {
      s += (first ? "" : ", ") + name + "=" + v.repr();
      first = false;
    }
  }
  return s;
}

void bind_signature(const Contract& c, const std::string& op, const CallSignature& call, const Value& device,
                    const Value& default_tunables, BoundCall& out) {
  out.given.assign(c.inputs.size(), nullptr);
  out.bound.assign(c.type_constraints.size(), std::nullopt);
  out.device = &device;
  bind_inputs(c, op, call, out);
  bind_dtypes(c, op, out);
  Object shapes, ranks, present;
  bind_shapes(c, op, out, shapes, ranks, present);
  Object dtypes = dtypes_scope(c, out);
  bind_attributes(c, op, call, out);
  out.ranks = Value(ranks);
  out.shapes = Value(shapes);
  out.dtypes = Value(std::move(dtypes));
  out.present = Value(std::move(present));
  out.attrs = Value(out.attr_values);
  bind_tunables(c, op, call, default_tunables, out);
  bind_outputs(c, op, call, out, shapes, ranks);
}

expr::Value attribute_value(const AttributeValue& value) {
  return std::visit(
      [](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::int64_t> || std::is_same_v<X, double> || std::is_same_v<X, std::string>) {
          return expr::Value(x);
        } else {
          expr::List list;
          list.reserve(x.size());
          for (const auto& e : x) list.emplace_back(e);
          return expr::Value(std::move(list));
        }
      },
      value);
}

void check_data_size(std::string_view input, const HostTensor& host, std::string_view subject) {
  // Built only for a message: this check runs for every input of every call.
  const auto what = [&] { return std::string(subject) + (input.empty() ? "" : " ") + std::string(input); };
  const std::uint64_t want = with_context([&] { return tensor_bytes(host.dtype, host.shape); },
                                          [&] { return "checking " + what(); });
  if (host.data.size() != want)
    throw Error(ErrorKind::kInvalidArgument,
                what() + ": " + std::string(dtype_name(host.dtype)) + " shape " + shape_string(host.shape) + " needs " +
                    std::to_string(want) + " bytes of data, got " + std::to_string(host.data.size()));
}

std::vector<std::byte> narrow_to_u32(std::string_view input, const HostTensor& host,
                                     const plan::ValueRange* range) {
  if (host.dtype != DType::kInt64 && host.dtype != DType::kUInt32)
    throw Error(ErrorKind::kInvalidArgument, "input " + std::string(input) + ": " +
                                                 std::string(dtype_name(host.dtype)) +
                                                 " cannot be narrowed to uint32; expected int64");
  const std::int64_t n = numel(host.shape);
  std::vector<std::byte> words(static_cast<std::size_t>(n) * 4);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t v = element_as_int(host, i);
    // The contract's rule first: a value outside the range (a negative position, or one of 2^40 past the cache
    // rows) is reported by the manifest's valueRange, the narrowing rule only for an input without one.
    if (range) check_range_element(input, host.shape, i, v, *range);
    if (v < 0)
      throw Error(ErrorKind::kInvalidArgument, "input " + element_text(input, host.shape, i, v) +
                                                   " is below 0: the values must be >= 0 (stored as uint32 on the device)");
    if (v > std::int64_t{0xffffffff})
      throw Error(ErrorKind::kInvalidArgument,
                  "input " + element_text(input, host.shape, i, v) +
                      ": checked int64 -> uint32 narrowing needs 0 <= value < 2^32 (WebGPU storage is uint32)");
    const auto word = static_cast<std::uint32_t>(v);
    std::memcpy(words.data() + i * 4, &word, 4);
  }
  return words;
}

void check_value_range(std::string_view input, const HostTensor& host, const plan::ValueRange& range) {
  const std::int64_t n = numel(host.shape);
  for (std::int64_t i = 0; i < n; ++i) check_range_element(input, host.shape, i, element_as_int(host, i), range);
}

std::optional<ValueRange> int_range(const HostTensor& host) {
  const std::int64_t n = numel(host.shape);
  if ((host.dtype != DType::kInt64 && host.dtype != DType::kUInt32) || n == 0 ||
      host.data.size() != static_cast<std::size_t>(n) * dtype_size(host.dtype))
    return std::nullopt;
  ValueRange r;
  r.min = r.max = element_as_int(host, 0);
  for (std::int64_t i = 1; i < n; ++i) {
    const std::int64_t v = element_as_int(host, i);
    r.min = std::min(r.min, v);
    r.max = std::max(r.max, v);
  }
  return r;
}

void check_device_value_range(std::string_view input, const ValueRange& range, std::optional<ValueRange> extent,
                              bool written, const std::function<HostTensor()>& read,
                              const std::function<void(const std::optional<ValueRange>&)>& remember) {
  // The kernels index caches with such an input (position ids): an unchecked row would give a silently
  // wrong answer. A known extent covers the whole buffer, so it bounds any view of the same dtype.
  std::optional<HostTensor> values;
  if (!extent && !written)
    throw Error(ErrorKind::kInvalidArgument,
                "input " + std::string(input) + ": an output of an earlier call of this Batch, not yet flushed, cannot be "
                "checked against its value range [" + std::to_string(range.min) + ", " +
                std::to_string(range.max) + "] before it is computed; flush() first");
  if (!extent) {
    values = read();
    extent = int_range(*values);
    remember(extent);
  }
  if (!extent || !range.contains(*extent))
    check_value_range(input, values ? *values : read(), range);  // names the first element out of range
}

}  // namespace wgk::plan
