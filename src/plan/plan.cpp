// Planner: the call's stages after the boundary (plan/boundary.cpp): manifest checks, call scope, variant
// selection, pass plans (docs/design.md "One call, as data"; docs/kernel-conventions.md for the scope names
// and the generated WGSL, plan/wgsl.cpp).
#include "plan/plan.h"

#include <algorithm>
#include <limits>

#include "contract/scope_names.h"
#include "core/buffer_sizes.h"
#include "wgk/error.h"

namespace wgk::plan {

using namespace wgk::contract;  // the model this stage plans from

namespace {

using expr::Expression;
using expr::integral;
using expr::Object;
using expr::Value;

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorKind::kInvalidArgument, message); }
[[noreturn]] void fail_contract(const std::string& message) { throw Error(ErrorKind::kContract, message); }

std::string input_label(const Input& in) {
  return in.onnx_name.empty() || in.onnx_name == in.name ? "'" + in.name + "'"
                                                         : "'" + in.name + "' (" + in.onnx_name + ")";
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

/// A pass's render scope: `fusedCalls` (contract::kFusedCallsName), the number of calls its dispatch
/// serves, over the pass's scope. Only a pass with `fusion` may read it (plan::check_templates).
class FusedCallsScope : public expr::Scope {
 public:
  FusedCallsScope(std::uint32_t calls, const expr::Scope& parent)
      : calls_(static_cast<std::int64_t>(calls)), parent_(parent) {}
  Value lookup(std::string_view name) const override {
    return name == kFusedCallsName ? calls_ : parent_.lookup(name);
  }
  const Value* lookup_ref(std::string_view name) const override {
    return name == kFusedCallsName ? &calls_ : parent_.lookup_ref(name);
  }

 private:
  Value calls_;
  const expr::Scope& parent_;
};

}  // namespace

/// Everything known about one call after the boundary (BoundCall) and the manifest derive memo. As a Scope
/// it resolves manifest derive names first, then the roots.
struct Planner::CallState : expr::Scope, BoundCall {
  const Planner& planner;
  const Contract& contract;
  mutable DeriveMemo memo;

  CallState(const Planner& p) : planner(p), contract(*p.contract_), memo(contract.derive.size()) {}

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

  std::string signature() const { return signature_text(contract); }
};

Planner::Planner(std::shared_ptr<const Contract> contract, DeviceCaps device, TemplateSource templates,
                 ProgramSource programs)
    : contract_(std::move(contract)), device_(std::move(device)), templates_(std::move(templates)),
      programs_(std::move(programs)) {
  if (!contract_) throw Error(ErrorKind::kInternal, "Planner: null contract");
  op_ = contract_->domain + "." + contract_->name;
  Object limits;
  for (const auto& [name, value] : device_.limits) limits.insert_or_assign(name, Value(value));
  Object features;
  for (std::size_t i = 0; i < kKernelFeatures.size(); ++i)
    features.insert_or_assign(std::string(kKernelFeatures[i].scope_name), Value(device_.*kCapsFeatureFlags[i]));
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
  auto state = std::make_unique<CallState>(*this);
  bind_signature(*contract_, op_, call, device_value_, tunables_value_, *state);
  check_manifest(*state);
  return state;
}

void Planner::check_manifest(const CallState& state) const {
  const Contract& c = *contract_;
  const std::string& op = op_;
  // Manifest checks, in order.
  for (std::size_t k = 0; k < c.checks.size(); ++k) {
    const Check& check = c.checks[k];
    std::string reason;
    try {
      if (check.when.evaluate(state).truthy()) continue;
      reason = check.when.explain(state, [&](std::string_view n) { return state.find_derive(n); });
    } catch (const Error& e) {
      reason = e.what();
    }
    fail(op + ": " + check.message + " (checks[" + std::to_string(k) + "]: " + reason + "; call: " +
         state.signature() + ")");
  }
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

}  // namespace

Plan Planner::make_plan(CallState& state, const Variant& variant, bool render, std::uint32_t calls) const {
  Plan plan;
  plan.variant = &variant;
  plan.outputs = state.outputs;
  plan.value_ranges = value_ranges(state);
  LayerScope variant_scope(variant.derive, state);
  for (const Pass& pass : variant.passes) {
    LayerScope scope(pass.derive, variant_scope);
    PlannedPass pp;
    pp.pass = &pass;
    // Error texts are built only when an error is thrown: this runs on every new call signature.
    auto where = [&] { return op_ + ": variant " + variant.id + ", pass " + pass.id; };
    const std::uint32_t pass_calls = pass.fusion ? calls : 1;
    if (pass.fusion && calls > pass.fusion->max_calls)
      throw Error(ErrorKind::kInternal, where() + ": planned for " + std::to_string(calls) +
                                            " fused calls, past its fusion.maxCalls " +
                                            std::to_string(pass.fusion->max_calls));
    const bool needs_f16 = plan_bindings(state, pass, scope, where, pass_calls, pp);
    plan_dispatch(pass, scope, where, pp);
    if (render) render_pass(variant, pass, scope, needs_f16, pass_calls, pp);
    plan.passes.push_back(std::move(pp));
  }
  // No invocation would run while an output has elements: a manifest slip (a dispatch of "0"), not a call's fault;
  // before, such a package returned its outputs unwritten (zeros) and `wgk validate` said OK.
  const auto runs = [](const PlannedPass& p) { return p.workgroups[0] > 0 && p.workgroups[1] > 0 && p.workgroups[2] > 0; };
  if (std::none_of(plan.passes.begin(), plan.passes.end(), runs))
    for (const PlannedOutput& out : plan.outputs)
      if (numel(out.shape) > 0) {
        std::string grid;
        for (const PlannedPass& p : plan.passes)
          grid += (grid.empty() ? "" : ", ") + p.pass->id + " (" + std::to_string(p.workgroups[0]) + ", " +
                  std::to_string(p.workgroups[1]) + ", " + std::to_string(p.workgroups[2]) + ")";
        throw Error(ErrorKind::kContract, op_ + ": variant " + variant.id + " dispatches no workgroup (" +
                                              (grid.empty() ? "it has no pass" : "dispatch x, y, z of pass " + grid) +
                                              ") while output " + out.name + " " + shape_string(out.shape) + " has " +
                                              std::to_string(numel(out.shape)) + " elements: nothing would write it");
      }
  return plan;
}

std::vector<ValueRange> Planner::value_ranges(const CallState& state) const {
  const Contract& c = *contract_;
  std::vector<ValueRange> ranges;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const Input& in = c.inputs[i];
    if (!state.given[i] || (!in.value_min && !in.value_max)) continue;
    ValueRange r;
    r.input = in.name;
    auto bound = [&](const std::optional<Expression>& e, std::int64_t& out, std::string_view& text) {
      if (!e) return;
      const Value v = e->evaluate(state);
      auto iv = integral(v);
      if (!iv) fail(op_ + ": input " + input_label(in) + ": valueRange bound " + e->text() + " = " + v.repr() +
                    " is not an integer");
      out = *iv;
      text = e->text();
    };
    bound(in.value_min, r.min, r.min_text);
    bound(in.value_max, r.max, r.max_text);
    ranges.push_back(std::move(r));
  }
  return ranges;
}

bool Planner::plan_bindings(const CallState& state, const Pass& pass, const expr::Scope& scope,
                            const std::function<std::string()>& where, std::uint32_t calls, PlannedPass& pp) const {
  const Contract& c = *contract_;
  bool needs_f16 = false;
  for (std::size_t slot = 0; slot < pass.bindings.size(); ++slot) {
    if (pass.bindings[slot] >= c.bindings.size()) fail_contract(where() + ": binding index out of range");
    const Binding& b = c.bindings[pass.bindings[slot]];
    PlannedBinding pb;
    pb.slot = static_cast<std::uint32_t>(pp.bindings.size());
    pb.binding = &b;
    if (b.kind == BindingKind::kUniform) {
      pb.wgsl_type = b.struct_name;
      pb.uniform = pack_uniform(b, [&](std::size_t k) { return b.fields[k].value.evaluate(scope); }, where);
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
      if (in && b.kind == BindingKind::kReadOnlyStorage && pass.per_call(pass.bindings[slot]))
        pb.uniform_bytes = uniform_bytes(*state.given[static_cast<std::size_t>(in - c.inputs.data())], pb.wgsl_type);
    }
    pp.bindings.push_back(std::move(pb));
  }
  if (calls > 1) {  // the per-call bindings once per fused call, in place
    const FusedLayout layout = fused_layout(c, pp, device_);
    if (calls > layout.calls)
      throw Error(ErrorKind::kInternal, where() + ": planned for " + std::to_string(calls) +
                                            " fused calls, past the " + std::to_string(layout.calls) + " this device allows");
    std::vector<PlannedBinding> one_call = std::move(pp.bindings);
    pp.bindings.clear();
    for (PlannedBinding& pb : one_call) {
      if (!pass.per_call(static_cast<std::size_t>(pb.binding - c.bindings.data()))) {
        pb.slot = static_cast<std::uint32_t>(pp.bindings.size());
        pp.bindings.push_back(std::move(pb));
        continue;
      }
      for (std::uint32_t call = 0; call < calls; ++call) {
        PlannedBinding copy = pb;
        copy.slot = static_cast<std::uint32_t>(pp.bindings.size());
        copy.call = call;
        copy.as_uniform = layout.uniform_inputs && pb.uniform_bytes > 0;
        pp.bindings.push_back(std::move(copy));
      }
    }
  }
  return needs_f16;
}

std::uint64_t Planner::uniform_bytes(const TensorSignature& tensor, std::string_view wgsl_type) const {
  static constexpr std::array<std::string_view, 3> kVec4 = {"vec4<f32>", "vec4<u32>", "vec4<i32>"};
  if (std::find(kVec4.begin(), kVec4.end(), wgsl_type) == kVec4.end()) return 0;
  if (tensor.dtype != DType::kFloat32 && tensor.dtype != DType::kFloat16 && tensor.dtype != DType::kUInt32) return 0;
  const std::uint64_t bytes = storage_buffer_size(tensor_bytes(tensor.dtype, tensor.shape));
  const std::optional<std::int64_t> limit = device_.limit("maxUniformBufferBindingSize");
  return limit && bytes <= static_cast<std::uint64_t>(*limit) ? bytes : 0;
}

void Planner::plan_dispatch(const Pass& pass, const expr::Scope& scope, const std::function<std::string()>& where,
                            PlannedPass& pp) const {
  const std::int64_t max_groups =
      device_.limit("maxComputeWorkgroupsPerDimension").value_or(std::numeric_limits<std::int64_t>::max());
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
}

void Planner::render_pass(const Variant& variant, const Pass& pass, const expr::Scope& pass_scope, bool needs_f16,
                          std::uint32_t calls, PlannedPass& pp) const {
  try {
    const tmpl::Template& t = template_for(pass.shader);
    const FusedCallsScope scope(calls, pass_scope);
    // The generated declarations follow from the pass's binding list (its variant and id, the calls of a
    // fused pass) and the element types; the rest of the text from the values of the names the template reads.
    std::string key = pass.shader + '\n' + variant.id + '/' + pass.id + '\n';
    // A uniform per-call input's array length is part of its declaration, so of the key.
    for (const PlannedBinding& pb : pp.bindings)
      key += pb.binding->id + (pb.call ? "_" + std::to_string(*pb.call) : "") + ':' + pb.wgsl_type +
             (pb.as_uniform ? "@uniform" + std::to_string(pb.uniform_bytes / 16) : "") + ',';
    key += '\n';
    for (const std::string& name : t.names()) {
      key += name;
      key += '=';
      key += scope.lookup(name).repr();
      key += '\n';
    }
    auto render_text = [&] { return with_enables_first(binding_declarations(pp.bindings, needs_f16), t.render(scope)); };
    pp.program = programs_ ? programs_(std::move(key), op_ + "/" + variant.id + "/" + pass.id, render_text)
                           : std::make_shared<const ProgramText>(ProgramText{std::move(key), render_text()});
  } catch (Error& e) {  // a template fault: say which package, variant and pass
    e.add_context("rendering " + contract_->domain + "." + contract_->name + ": variant " + variant.id + ", pass " +
                  pass.id);
    throw;
  }
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

FusedLayout fused_layout(const contract::Contract& contract, const PlannedPass& pass, const DeviceCaps& device) {
  FusedLayout layout;
  if (!pass.pass->fusion) return layout;
  // Bindings of each kind: shared by the calls (uniforms always are: the contract refuses one in perCall), per
  // call in storage, and per call but small enough for a uniform.
  std::int64_t shared_storage = 0, shared_uniform = 0, per_call_storage = 0, per_call_small = 0;
  for (const auto& b : pass.bindings) {
    if (b.binding->kind == contract::BindingKind::kUniform) ++shared_uniform;
    else if (!pass.pass->per_call(static_cast<std::size_t>(b.binding - contract.bindings.data()))) ++shared_storage;
    else ++(b.uniform_bytes > 0 ? per_call_small : per_call_storage);
  }
  const std::optional<std::int64_t> storage = device.limit("maxStorageBuffersPerShaderStage");
  const std::optional<std::int64_t> uniforms = device.limit("maxUniformBuffersPerShaderStage");
  // `calls` cut so that `shared` bindings and `per_call` for each call fit `limit` (not cut without one).
  auto cut = [](std::int64_t calls, std::optional<std::int64_t> limit, std::int64_t shared, std::int64_t per_call) {
    return per_call > 0 && limit ? std::min(calls, (*limit - shared) / per_call) : calls;
  };
  const std::int64_t max_calls = pass.pass->fusion->max_calls;
  const std::int64_t as_storage = cut(max_calls, storage, shared_storage, per_call_storage + per_call_small);
  const std::int64_t as_uniform =
      cut(cut(max_calls, storage, shared_storage, per_call_storage), uniforms, shared_uniform, per_call_small);
  layout.uniform_inputs = per_call_small > 0 && as_uniform > as_storage;
  layout.calls = static_cast<std::uint32_t>(std::max<std::int64_t>(layout.uniform_inputs ? as_uniform : as_storage, 1));
  return layout;
}

std::shared_ptr<const Plan> Planner::plan_fused(const CallSignature& call, std::uint32_t calls) const {
  if (calls < 2) throw Error(ErrorKind::kInternal, op_ + ": plan_fused for " + std::to_string(calls) + " calls");
  auto state = begin_call(call);
  std::string failure;
  const Variant* variant = choose(*state, &failure);
  if (!variant) throw Error(ErrorKind::kInvalidArgument, failure);
  return std::make_shared<const Plan>(make_plan(*state, *variant, true, calls));
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
