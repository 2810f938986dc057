// Planner: boundary at the signature level, call scope, variant selection, pass plans (docs/design.md
// "One call, as data"; docs/kernel-conventions.md for the scope names and the generated WGSL).
#include "plan/plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "contract/scope_names.h"
#include "wgk/error.h"

namespace wgk::plan {

using namespace wgk::contract;  // the model this stage plans from

namespace {

using expr::Expression;
using expr::List;
using expr::Object;
using expr::Value;

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorKind::kInvalidArgument, message); }
[[noreturn]] void fail_contract(const std::string& message) { throw Error(ErrorKind::kContract, message); }

std::string_view wgsl_scalar(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "f32";
    case DType::kFloat16: return "f16";
    case DType::kUInt32: return "u32";
    case DType::kInt64: return "i64";  // no WGSL type: a contract must give such an input a storage type
  }
  return "?";
}

/// Python-int view of a number: ints, bools (Python: bool is an int) and floats with an integral
/// value that fits int64 (numel(shapes.x) / 2 is a float in Jinja). nullopt otherwise.
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

std::string join_values(const std::vector<Value>& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ", ") + v.repr();
  return s;
}

std::string dtype_list(const std::vector<DType>& dtypes) {
  std::string s;
  for (auto d : dtypes) s += (s.empty() ? "" : ", ") + std::string(dtype_name(d));
  return s;
}

/// Memoized evaluation of a list of derives over a scope that sees them (lazy: first use computes).
class DeriveMemo {
 public:
  enum class State : std::uint8_t { kUnset, kBusy, kValue, kError };
  explicit DeriveMemo(std::size_t n) : slots_(n) {}  // one allocation (none for an empty list)

  const Value& get(std::size_t i, const Derive& d, const expr::Scope& scope) {
    Slot& slot = slots_[i];
    switch (slot.state) {
      case State::kValue: return slot.value;
      case State::kError: throw Error(slot.error_kind, slot.value.as_string());
      case State::kBusy: fail_contract(d.expression.path() + ": derive '" + d.name + "' depends on itself");
      case State::kUnset: break;
    }
    slot.state = State::kBusy;
    try {
      slot.value = d.expression.evaluate(scope);
      slot.state = State::kValue;
      return slot.value;
    } catch (const Error& e) {
      slot.state = State::kError;
      slot.error_kind = e.kind();
      slot.value = Value(std::string(e.what()));  // the message, thrown again on the next use
      throw;
    }
  }

 private:
  struct Slot {
    State state = State::kUnset;
    ErrorKind error_kind = ErrorKind::kContract;
    Value value;
  };
  std::vector<Slot> slots_;
};

/// A variant's or a pass's derive list layered over an outer scope (inner names shadow outer ones).
class LayerScope : public expr::Scope {
 public:
  LayerScope(const std::vector<Derive>& derives, const expr::Scope& parent)
      : derives_(derives), parent_(parent), memo_(derives.size()) {}
  Value lookup(std::string_view name) const override {
    if (!is_scope_root(name))  // a root is never a derive name (parse_derive_object)
      for (std::size_t i = 0; i < derives_.size(); ++i) {
        if (derives_[i].name == name) return memo_.get(i, derives_[i], *this);
      }
    return parent_.lookup(name);
  }
  const Value* lookup_ref(std::string_view name) const override {
    if (!is_scope_root(name))
      for (std::size_t i = 0; i < derives_.size(); ++i) {
        if (derives_[i].name == name) return &memo_.get(i, derives_[i], *this);
      }
    return parent_.lookup_ref(name);
  }
  const Expression* find(std::string_view name) const {
    for (const auto& d : derives_) {
      if (d.name == name) return &d.expression;
    }
    return nullptr;
  }

 private:
  const std::vector<Derive>& derives_;
  const expr::Scope& parent_;
  mutable DeriveMemo memo_;
};

}  // namespace

/// Everything known about one call after the boundary: the scope roots and the manifest derive memo.
/// As a Scope it resolves manifest derive names first, then the roots.
struct Planner::CallState : expr::Scope {
  const Planner& planner;
  const Contract& contract;
  std::vector<const TensorSignature*> given;  // per Contract::inputs, null when absent
  std::vector<std::optional<DType>> bound;    // per Contract::type_constraints
  Value shapes, ranks, dtypes, present, attrs, tunables;
  Object attr_values;                          // resolved attributes (for the signature text)
  Object tunable_overrides;                    // the call's tunables (for the signature text)
  std::vector<PlannedOutput> outputs;
  mutable DeriveMemo memo;

  CallState(const Planner& p)
      : planner(p), contract(*p.contract_), given(contract.inputs.size()), bound(contract.type_constraints.size()),
        memo(contract.derive.size()) {}

  const Value* root_ref(std::string_view name) const {
    switch (name.empty() ? '\0' : name[0]) {
      case 's': if (name == "shapes") return &shapes; break;
      case 'r': if (name == "ranks") return &ranks; break;
      case 'd':
        if (name == "dtypes") return &dtypes;
        if (name == "device") return &planner.device_value_;
        break;
      case 'p': if (name == "present") return &present; break;
      case 'a': if (name == "attrs") return &attrs; break;
      case 't': if (name == "tunables") return &tunables; break;
      default: break;
    }
    return nullptr;
  }
  Value root(std::string_view name) const {
    const Value* v = root_ref(name);
    return v ? *v : Value();
  }

  Value lookup(std::string_view name) const override {
    if (const Value* v = lookup_ref(name)) return *v;
    return {};
  }
  /// Roots and memoized derives stay where they are for the call's life.
  const Value* lookup_ref(std::string_view name) const override {
    if (is_scope_root(name)) return root_ref(name);  // a root is never a derive name (parse_derive_object)
    auto it = planner.derive_index_.find(name);
    if (it != planner.derive_index_.end()) return &memo.get(it->second, contract.derive[it->second], *this);
    return nullptr;
  }

  const Expression* find_derive(std::string_view name) const {
    auto it = planner.derive_index_.find(name);
    return it == planner.derive_index_.end() ? nullptr : &contract.derive[it->second].expression;
  }

  /// "x: float32[2, 4, 3, 8], cos: float32[50, 4]; attrs: interleaved=0, rotary_embedding_dim=0[; tunables: ROW_ORDER="token"]"
  std::string signature() const {
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
};

namespace {

// Every name is length-prefixed: a name holding '\0' or key bytes cannot spell another call's key.
void append_name(std::string& key, const std::string& name) {
  const auto n = static_cast<std::uint32_t>(name.size());
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
  key += name;
}

void append_values(std::string& key, const std::map<std::string, Value, std::less<>>& values) {
  auto put = [&key](const void* p, std::size_t n) { key.append(static_cast<const char*>(p), n); };
  for (const auto& [name, v] : values) {
    append_name(key, name);
    key += static_cast<char>(v.storage().index());
    if (v.is_int()) {
      std::int64_t i = v.as_int();
      put(&i, sizeof i);
    } else if (v.is_float()) {
      double d = v.as_float();
      put(&d, sizeof d);
    } else if (v.is_bool()) {
      key += v.as_bool() ? '1' : '0';
    } else {
      std::string r = v.repr();
      std::uint32_t n = static_cast<std::uint32_t>(r.size());
      put(&n, sizeof n);
      key += r;
    }
  }
}

}  // namespace

void append_signature_key(std::string& key, const CallSignature& call) {
  auto put = [&key](const void* p, std::size_t n) { key.append(static_cast<const char*>(p), n); };
  for (const auto& [name, t] : call.inputs) {
    append_name(key, name);
    key += static_cast<char>(t.dtype);
    const auto rank = static_cast<std::uint32_t>(t.shape.size());
    put(&rank, sizeof rank);
    put(t.shape.data(), t.shape.size() * sizeof(std::int64_t));
  }
  key += '\x01';
  append_values(key, call.attrs);
  key += '\x02';
  append_values(key, call.tunables);
  key += '\x03';
  for (const auto& name : call.outputs) append_name(key, name);
}

Planner::Planner(std::shared_ptr<const Contract> contract, DeviceCaps device, TemplateSource templates,
                 ProgramSource programs)
    : contract_(std::move(contract)), device_(std::move(device)), templates_(std::move(templates)),
      programs_(std::move(programs)) {
  if (!contract_) throw Error(ErrorKind::kInternal, "Planner: null contract");
  op_ = contract_->domain + "." + contract_->name;
  Object limits;
  for (const auto& [name, value] : device_.limits) limits.insert_or_assign(name, Value(value));
  Object features{{"shader_f16", Value(device_.shader_f16)},
                  {"timestamp_query", Value(device_.timestamp_query)},
                  {"subgroups", Value(device_.subgroups)}};
  device_value_ = Value(Object{{"limits", Value(std::move(limits))}, {"features", Value(std::move(features))}});
  Object tunables;
  for (const auto& t : contract_->tunables) tunables.insert_or_assign(t.name, t.default_value);
  tunables_value_ = Value(std::move(tunables));
  for (std::size_t i = 0; i < contract_->derive.size(); ++i) derive_index_.emplace(contract_->derive[i].name, i);
  for (std::size_t i = 0; i < contract_->variants.size(); ++i) variant_order_.push_back(i);
  std::stable_sort(variant_order_.begin(), variant_order_.end(), [this](std::size_t a, std::size_t b) {
    return contract_->variants[a].priority > contract_->variants[b].priority;
  });
}

Planner::~Planner() = default;

std::unique_ptr<Planner::CallState> Planner::begin_call(const CallSignature& call) const {
  const Contract& c = *contract_;
  const std::string& op = op_;
  auto state = std::make_unique<CallState>(*this);

  // Names: every given input is declared (argument or ONNX name), at most once; required ones given.
  for (const auto& [name, sig] : call.inputs) {
    const Input* in = c.find_input(name);
    if (!in) fail(op + ": unknown input '" + name + "'; expected inputs: " + expected_inputs(c));
    const std::size_t i = static_cast<std::size_t>(in - c.inputs.data());
    if (state->given[i]) fail(op + ": input " + input_label(*in) + " given twice (by argument and ONNX name)");
    state->given[i] = &sig;
  }
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (!state->given[i] && !c.inputs[i].optional)
      fail(op + ": missing required input " + input_label(c.inputs[i]) + "; expected inputs: " + expected_inputs(c));
  }

  // Dtypes: each input's dtype is allowed by its type constraint, and a variable binds one dtype
  // across all inputs (ONNX type constraints). An input with uint32 storage and checked narrowing of
  // int64 (positionIds) may also be given as uint32.
  std::vector<std::size_t> bound_by(c.type_constraints.size(), 0);
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (!state->given[i]) continue;
    const Input& in = c.inputs[i];
    const DType dtype = state->given[i]->dtype;
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
    if (state->bound[v] && *state->bound[v] != logical) {
      const std::size_t j = bound_by[v];
      fail(op + ": inputs " + input_label(c.inputs[j]) + " and " + input_label(in) + " must have the same type " +
           tc->name + ": " + c.inputs[j].name + " is " + std::string(dtype_name(state->given[j]->dtype)) + ", " +
           in.name + " is " + std::string(dtype_name(dtype)));
    }
    if (!state->bound[v]) {
      state->bound[v] = logical;
      bound_by[v] = i;
    }
  }

  // Ranks and dimensions.
  Object shapes, ranks, present;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Input& in = c.inputs[i];
    present.insert_or_assign(in.name, Value(state->given[i] != nullptr));
    if (!in.onnx_name.empty()) present.insert_or_assign(in.onnx_name, Value(state->given[i] != nullptr));
    if (!state->given[i]) continue;
    const Shape& shape = state->given[i]->shape;
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

  // dtypes.<var>: the WGSL scalar of the bound type, or of the storage type of the inputs using it
  // ("u32" for M). An unbound variable (its inputs absent) names its first allowed type.
  Object dtypes;
  for (std::size_t v = 0; v < c.type_constraints.size(); ++v) {
    const TypeConstraint& tc = c.type_constraints[v];
    std::optional<DType> storage;
    for (const auto& in : c.inputs) {
      if (in.dtype == tc.name && in.storage) storage = in.storage;
    }
    std::optional<DType> t = state->bound[v];
    if (!t && !tc.allowed.empty()) t = tc.allowed.front();
    if (storage) t = storage;
    if (t) dtypes.insert_or_assign(tc.name, Value(std::string(wgsl_scalar(*t))));
  }

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
      v = attribute_value(*a, value);
    } catch (const Error& e) {
      fail(op + ": " + e.what());
    }
    state->attr_values.insert_or_assign(name, std::move(v));
  }
  for (const auto& a : c.attributes) {
    if (a.default_value && !state->attr_values.contains(a.name)) state->attr_values.insert_or_assign(a.name, *a.default_value);
  }

  state->ranks = Value(ranks);
  state->shapes = Value(shapes);
  state->dtypes = Value(std::move(dtypes));
  state->present = Value(std::move(present));
  state->attrs = Value(state->attr_values);

  // Tunables: the manifest's defaults, overridden per call by declared names with values of the
  // default's type (a tunable changes how, never what, a kernel computes).
  if (call.tunables.empty()) {
    state->tunables = tunables_value_;
  } else {
    Object tunables = tunables_value_.as_object();
    for (const auto& [name, value] : call.tunables) {
      auto it = tunables.find(name);
      if (it == tunables.end()) {
        std::string declared;
        for (const auto& t : c.tunables) declared += (declared.empty() ? "" : ", ") + t.name;
        fail(op + ": unknown tunable '" + name + "'; declared tunables: " + (declared.empty() ? "none" : declared));
      }
      const Value& def = it->second;
      Value v = value;
      if (def.is_int()) {
        auto iv = value.is_bool() ? std::nullopt : integral(value);
        if (!iv) fail(op + ": tunable '" + name + "' = " + value.repr() + " is not an integer (its default is " + def.repr() + ")");
        v = Value(*iv);
      } else if (def.is_float()) {
        if (!value.is_number() || value.is_bool())
          fail(op + ": tunable '" + name + "' = " + value.repr() + " is not a number (its default is " + def.repr() + ")");
        v = Value(value.as_number());
      } else if (def.is_string() && !value.is_string()) {
        fail(op + ": tunable '" + name + "' = " + value.repr() + " is not a string (its default is " + def.repr() + ")");
      }
      state->tunable_overrides.insert_or_assign(name, v);
      it->second = std::move(v);
    }
    state->tunables = Value(std::move(tunables));
  }

  // Outputs: dtype from their type variable, shape and rank from their expressions over the roots.
  struct Roots : expr::Scope {
    const CallState& s;
    explicit Roots(const CallState& st) : s(st) {}
    Value lookup(std::string_view name) const override { return s.root(name); }
  } roots(*state);
  // Optional outputs asked for: declared names only (argument or ONNX name).
  std::vector<bool> wanted(c.outputs.size(), false);
  for (const auto& name : call.outputs) {
    const Output* out = c.find_output(name);
    if (!out) {
      std::string declared;
      for (const auto& o : c.outputs)
        declared += (declared.empty() ? "" : ", ") + o.name + (o.onnx_name != o.name ? " (" + o.onnx_name + ")" : "") +
                    (o.optional ? " [optional]" : "");
      fail(op + ": unknown output '" + name + "' asked for; declared outputs: " + declared);
    }
    wanted[static_cast<std::size_t>(out - c.outputs.data())] = true;
  }
  Object present_outputs = state->present.as_object();
  for (std::size_t k = 0; k < c.outputs.size(); ++k) {
    const Output& out = c.outputs[k];
    const bool produced = !out.optional || wanted[k];
    present_outputs.insert_or_assign(out.name, Value(produced));
    if (!out.onnx_name.empty()) present_outputs.insert_or_assign(out.onnx_name, Value(produced));
  }
  state->present = Value(std::move(present_outputs));
  for (std::size_t k = 0; k < c.outputs.size(); ++k) {
    const Output& out = c.outputs[k];
    if (out.optional && !wanted[k]) continue;  // not asked for: neither planned nor allocated
    PlannedOutput po;
    po.name = out.name;
    const TypeConstraint* tc = c.find_type_constraint(out.dtype);
    if (tc) {
      // A variable bound by no input is fixed when its constraint allows one type (ORT's U = float32).
      auto b = state->bound[static_cast<std::size_t>(tc - c.type_constraints.data())];
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
    Value sv = shape_value(po.shape);
    shapes.insert_or_assign(out.name, sv);
    ranks.insert_or_assign(out.name, Value(*rv));
    if (!out.onnx_name.empty()) {
      shapes.insert_or_assign(out.onnx_name, sv);
      ranks.insert_or_assign(out.onnx_name, Value(*rv));
    }
    state->outputs.push_back(std::move(po));
  }
  if (!c.outputs.empty()) {
    state->shapes = Value(std::move(shapes));
    state->ranks = Value(std::move(ranks));
  }

  // Manifest checks, in order.
  for (std::size_t k = 0; k < c.checks.size(); ++k) {
    const Check& check = c.checks[k];
    std::string reason;
    try {
      if (check.when.evaluate(*state).truthy()) continue;
      reason = check.when.explain(*state, [&](std::string_view n) { return state->find_derive(n); });
    } catch (const Error& e) {
      reason = e.what();
    }
    fail(op + ": " + check.message + " (checks[" + std::to_string(k) + "]: " + reason + "; call: " +
         state->signature() + ")");
  }
  return state;
}

const Variant* Planner::choose(CallState& state, std::string* failure) const {
  const Contract& c = *contract_;
  const Variant* best = nullptr;
  const Variant* closest = nullptr;
  std::size_t closest_passed = 0;
  std::string closest_error;  // the closest variant's failing clause threw this
  // Highest priority first, ties in file order: the first variant whose clauses all hold wins.
  for (const std::size_t index : variant_order_) {
    const Variant& v = c.variants[index];
    if (best) break;
    LayerScope scope(v.derive, state);
    std::size_t passed = 0;
    std::string error;
    for (const auto& clause : v.when) {
      try {
        if (!clause.evaluate(scope).truthy()) break;
      } catch (const Error& e) {
        error = e.what();
        break;
      }
      ++passed;
    }
    if (passed == v.when.size()) {
      best = &v;
    } else if (!closest || passed > closest_passed || (passed == closest_passed && v.priority > closest->priority)) {
      closest = &v;
      closest_passed = passed;
      closest_error = std::move(error);
    }
  }
  if (!best && failure) {
    std::string msg = "no variant of " + c.domain + "." + c.name + " accepts these inputs (" + state.signature() + ")";
    if (closest) {
      // Explained only here, once: the explanation re-evaluates operands (memoized derives are reused).
      const Expression& clause = closest->when[closest_passed];
      std::string reason = closest_error;
      if (reason.empty()) {
        LayerScope scope(closest->derive, state);
        reason = clause.explain(scope, [&](std::string_view n) -> const Expression* {
          if (auto* e = scope.find(n)) return e;
          return state.find_derive(n);
        });
      }
      msg += ": closest variant " + closest->id + ": clause " + std::to_string(closest_passed) + " '" + clause.text() +
             "' failed: " + reason;
    } else {
      msg += ": the contract has no variants";
    }
    *failure = std::move(msg);
  }
  return best;
}

namespace {

std::uint32_t to_u32(const Value& v, const std::string& what) {
  auto iv = integral(v);
  if (!iv || *iv < 0 || *iv > std::int64_t{0xFFFFFFFF})
    fail(what + " = " + v.repr() + " is not a non-negative integer below 2^32");
  return static_cast<std::uint32_t>(*iv);
}

void append_word(std::vector<std::byte>& out, std::uint32_t word) {
  const std::size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &word, 4);  // little-endian hosts only (WebGPU buffers are little-endian)
}

/// The WGSL the runtime generates before a pass's template (docs/kernel-conventions.md): `enable f16`
/// when an element type names f16, one `var` per binding, the uniform structs.
std::string declarations(const PlannedPass& pp, bool needs_f16) {
  std::string decls = needs_f16 ? "enable f16;\n" : "";
  for (const PlannedBinding& pb : pp.bindings) {
    const Binding& b = *pb.binding;
    const std::string at = "@group(0) @binding(" + std::to_string(pb.slot) + ") ";
    if (b.kind == BindingKind::kUniform) {
      std::string fields;
      for (const StructField& f : b.fields) fields += (fields.empty() ? "" : ", ") + f.name + ": " + f.type;
      decls += "struct " + b.struct_name + " { " + fields + " }\n";
      decls += at + "var<uniform> " + b.name + ": " + b.struct_name + ";\n";
    } else {
      decls += at + (b.kind == BindingKind::kStorage ? "var<storage, read_write> " : "var<storage, read> ") + b.name +
               ": array<" + pb.wgsl_type + ">;\n";
    }
  }
  return decls;
}

/// WGSL wants every `enable` directive before any declaration: the ones the rendered template begins with
/// (`enable subgroups;`, docs/kernel-conventions.md) go before the generated declarations.
std::string with_enables_first(const std::string& declarations, std::string body) {
  std::string enables;
  std::size_t at = 0;
  while (true) {
    const std::size_t start = body.find_first_not_of(" \t\r\n", at);
    if (start == std::string::npos || body.compare(start, 7, "enable ") != 0) break;
    const std::size_t end = body.find(';', start);
    if (end == std::string::npos) break;
    enables += body.substr(start, end + 1 - start) + "\n";
    at = end + 1;
  }
  return enables + declarations + body.substr(at);
}

}  // namespace

Plan Planner::make_plan(CallState& state, const Variant& variant, bool render) const {
  const Contract& c = *contract_;
  const std::string& op = op_;
  Plan plan;
  plan.variant = &variant;
  plan.outputs = state.outputs;

  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Input& in = c.inputs[i];
    if (!state.given[i] || (!in.value_min && !in.value_max)) continue;
    ValueRange r;
    r.input = in.name;
    r.min = std::numeric_limits<std::int64_t>::min();
    r.max = std::numeric_limits<std::int64_t>::max();
    auto bound = [&](const std::optional<Expression>& e, std::int64_t& out, std::string_view& text) {
      if (!e) return;
      const Value v = e->evaluate(state);
      auto iv = integral(v);
      if (!iv) fail(op + ": input " + input_label(in) + ": valueRange bound " + e->text() + " = " + v.repr() +
                    " is not an integer");
      out = *iv;
      text = e->text();
    };
    bound(in.value_min, r.min, r.min_text);
    bound(in.value_max, r.max, r.max_text);
    plan.value_ranges.push_back(std::move(r));
  }

  LayerScope variant_scope(variant.derive, state);
  const std::int64_t max_groups =
      device_.limit("maxComputeWorkgroupsPerDimension").value_or(std::numeric_limits<std::int64_t>::max());
  for (const Pass& pass : variant.passes) {
    LayerScope scope(pass.derive, variant_scope);
    // Error texts are built only when an error is thrown: this runs on every new call signature.
    auto where = [&] { return op + ": variant " + variant.id + ", pass " + pass.id; };
    PlannedPass pp;
    pp.pass = &pass;
    bool needs_f16 = false;
    for (std::size_t slot = 0; slot < pass.bindings.size(); ++slot) {
      if (pass.bindings[slot] >= c.bindings.size()) fail_contract(where() + ": binding index out of range");
      const Binding& b = c.bindings[pass.bindings[slot]];
      PlannedBinding pb;
      pb.slot = static_cast<std::uint32_t>(pp.bindings.size());
      pb.binding = &b;
      if (b.kind == BindingKind::kUniform) {
        pb.wgsl_type = b.struct_name;
        for (const StructField& f : b.fields) {
          auto what = [&] { return where() + ": " + b.name + "." + f.name + " (" + f.type + ", " + f.value.text() + ")"; };
          const Value v = f.value.evaluate(scope);
          if (f.type == "u32") {
            auto iv = integral(v);
            if (!iv || *iv < 0 || *iv > std::int64_t{0xFFFFFFFF}) to_u32(v, what());  // throws, naming the field
            append_word(pb.uniform, static_cast<std::uint32_t>(*iv));
          } else if (f.type == "i32") {
            auto iv = integral(v);
            if (!iv || *iv < std::numeric_limits<std::int32_t>::min() || *iv > std::numeric_limits<std::int32_t>::max())
              fail(what() + " = " + v.repr() + " is not an integer in [-2^31, 2^31)");
            append_word(pb.uniform, static_cast<std::uint32_t>(static_cast<std::int32_t>(*iv)));
          } else if (f.type == "f32") {
            if (!v.is_number()) fail(what() + " = " + v.repr() + " is not a number");
            const float fv = static_cast<float>(v.as_number());
            std::uint32_t bits;
            std::memcpy(&bits, &fv, 4);
            append_word(pb.uniform, bits);
          } else {
            fail_contract(what() + ": unsupported uniform field type (supported: u32, i32, f32)");
          }
        }
        // WGSL: 4-byte scalars are 4-byte aligned; the buffer is padded to a multiple of 16 bytes
        // (the uniform address space rounds struct alignment up to 16).
        pb.uniform.resize((pb.uniform.size() + 15) / 16 * 16);
        if (pb.uniform.empty()) pb.uniform.resize(16);
      } else {
        // A binding of an absent optional input or of an optional output not asked for is left out of the
        // pass (its template reads `present.<name>` to know); the later bindings take the next slots.
        const Input* in = c.find_input(b.arg);
        if (in && !state.given[static_cast<std::size_t>(in - c.inputs.data())]) continue;
        const Output* out = in ? nullptr : c.find_output(b.arg);
        if (out && std::none_of(state.outputs.begin(), state.outputs.end(),
                                [&](const PlannedOutput& po) { return po.name == out->name; }))
          continue;
        const std::string& et = b.element_type;
        if (!et.empty() && et[0] == '$') {
          const std::string_view ref = std::string_view(et).substr(1);
          Value v;
          if (c.find_type_constraint(ref)) {
            v = state.dtypes.as_object().contains(ref) ? state.dtypes.as_object().find(ref)->second : Value();
          } else {
            v = scope.lookup(ref);
          }
          if (!v.is_string())
            fail_contract(where() + ": binding " + b.name + ": elementType " + et + " is " + v.repr() + ", not a WGSL type name");
          pb.wgsl_type = v.as_string();
        } else {
          pb.wgsl_type = et;
        }
        if (pb.wgsl_type.find("f16") != std::string::npos) needs_f16 = true;
      }
      pp.bindings.push_back(std::move(pb));
    }

    const std::array<const Expression*, 3> dims{&pass.dispatch.x, &pass.dispatch.y, &pass.dispatch.z};
    for (std::size_t k = 0; k < 3; ++k) {
      auto what = [&] { return where() + ": dispatch." + "xyz"[k] + " (" + dims[k]->text() + ")"; };
      const Value v = dims[k]->evaluate(scope);
      auto iv = integral(v);
      if (!iv || *iv < 0 || *iv > std::int64_t{0xFFFFFFFF}) to_u32(v, what());  // throws
      if (*iv > max_groups)
        fail(what() + " = " + std::to_string(*iv) + " exceeds device.limits.maxComputeWorkgroupsPerDimension = " +
             std::to_string(max_groups));
      pp.workgroups[k] = static_cast<std::uint32_t>(*iv);
    }

    if (render) {
      try {
        const tmpl::Template& t = template_for(pass.shader);
        // The generated declarations follow from the pass's binding list (its variant and id) and the
        // element types; the rest of the text from the values of the names the template reads.
        std::string key = pass.shader + '\n' + variant.id + '/' + pass.id + '\n';
        for (const PlannedBinding& pb : pp.bindings) key += pb.binding->id + ':' + pb.wgsl_type + ',';
        key += '\n';
        for (const std::string& name : t.names()) {
          key += name;
          key += '=';
          key += scope.lookup(name).repr();
          key += '\n';
        }
        auto render_text = [&] { return with_enables_first(declarations(pp, needs_f16), t.render(scope)); };
        pp.program = programs_ ? programs_(std::move(key), op + "/" + variant.id + "/" + pass.id, render_text)
                               : std::make_shared<const ProgramText>(ProgramText{std::move(key), render_text()});
      } catch (Error& e) {  // a template fault: say which package, variant and pass
        e.add_context("rendering " + contract_->domain + "." + contract_->name + ": variant " + variant.id + ", pass " +
                      pass.id);
        throw;
      }
    }
    plan.passes.push_back(std::move(pp));
  }
  return plan;
}

const tmpl::Template& Planner::template_for(const std::string& file_name) const {
  std::lock_guard lock(templates_mutex_);
  auto it = parsed_templates_.find(file_name);
  if (it != parsed_templates_.end()) return it->second;
  if (!templates_) fail_contract(file_name + ": no template source given to the Planner");
  tmpl::Template t = tmpl::Template::parse(templates_(file_name), file_name, templates_);  // includes: package files
  return parsed_templates_.emplace(file_name, std::move(t)).first->second;
}

std::shared_ptr<const Plan> Planner::plan(const CallSignature& call) const {
  auto state = begin_call(call);
  std::string failure;
  const Variant* variant = choose(*state, &failure);
  if (!variant) throw Error(ErrorKind::kInvalidArgument, failure);
  return std::make_shared<const Plan>(make_plan(*state, *variant, true));
}

Selection Planner::select(const CallSignature& call, SelectOptions options) const {
  auto state = begin_call(call);
  Selection s;
  s.signature = state->signature();
  if (options.derive_values) {
    for (const auto& d : contract_->derive) {
      DeriveResult r;
      r.name = d.name;
      try {
        r.value = state->lookup(d.name);
      } catch (const Error& e) {
        r.error = e.what();
      }
      s.derive.push_back(std::move(r));
    }
  }
  s.variant = choose(*state, &s.failure);
  if (s.variant && options.plan) {
    try {
      s.plan = make_plan(*state, *s.variant, false);
    } catch (const Error& e) {
      s.plan_error = e.what();
    }
  }
  return s;
}

}  // namespace wgk::plan
