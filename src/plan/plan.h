#pragma once
// The planner (docs/design.md "One call, as data"): from a call signature, past the boundary
// (plan/boundary.h), to the call scope (docs/kernel-conventions.md "Render context"), variant selection and
// the plan of each pass (resolved bindings, generated WGSL declarations plus the rendered template, packed
// uniform bytes: plan/wgsl.h; dispatch sizes, output shapes, the evaluated valueRange bounds the
// runtime checks the data against).
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "contract/contract.h"
#include "expr/value.h"
#include "plan/boundary.h"
#include "plan/device_caps.h"
#include "plan/wgsl.h"
#include "template/template.h"
#include "wgk/tensor.h"

namespace wgk::plan {

/// A pass's WGSL and what it depends on.
struct ProgramText {
  /// The shader file, the generated declarations (binding element types, `enable f16`) and the value of
  /// every top-level name the template reads (tmpl::Template::names()), one "name=repr" a line. Two
  /// calls with the same key render the same text: shapes carried only by uniforms and dispatch sizes
  /// (sequence length, batch, position count) reuse it and its compiled pipeline.
  std::string key;
  std::string wgsl;  ///< generated declarations + rendered template
};

struct PlannedPass {
  const contract::Pass* pass = nullptr;
  /// Null if not rendered. Shared by every plan whose pass has the same key (see ProgramSource).
  std::shared_ptr<const ProgramText> program;
  std::array<std::uint32_t, 3> workgroups{};  ///< dispatch x, y, z (workgroup counts)
  std::vector<PlannedBinding> bindings;
};

/// How a Batch fuses calls into one dispatch of `pass` (docs/kernel-conventions.md "Fused calls").
struct FusedLayout {
  std::uint32_t calls = 1;      ///< the most calls one dispatch serves, at least 1
  bool uniform_inputs = false;  ///< per-call inputs with PlannedBinding::uniform_bytes > 0 bound as uniforms
};

/// The FusedLayout of `pass` (planned for one call) on `device`: 1 call without `fusion`; else its maxCalls,
/// cut so the shared bindings and K calls' per-call ones fit maxStorageBuffersPerShaderStage and
/// maxUniformBuffersPerShaderStage (a limit `device` lacks does not cut). Per-call inputs small enough
/// (PlannedBinding::uniform_bytes) go to the uniform address space when that fuses more calls: WebGPU counts
/// the two kinds of buffer apart, so x bound as uniforms leaves the storage buffers to the outputs (decode
/// RoPE on Dawn's 10 storage and 12 uniform buffers: 7 calls a dispatch instead of 3). `contract` is the one
/// `pass` belongs to (its bindings are indexed by it). Used by the runtime, the Planner and wgk validate.
FusedLayout fused_layout(const contract::Contract& contract, const PlannedPass& pass, const DeviceCaps& device);

struct Plan {
  const contract::Variant* variant = nullptr;
  std::vector<PlannedOutput> outputs;     ///< in manifest order: the required ones and those asked for
  std::vector<ValueRange> value_ranges;   ///< present inputs with a valueRange
  std::vector<PlannedPass> passes;
};

/// A manifest derive value as `wgk contract` prints it: the value, or the error evaluating it.
struct DeriveResult {
  std::string name;
  std::optional<expr::Value> value;
  std::string error;  ///< when !value
};

struct SelectOptions {
  bool derive_values = false;  ///< evaluate every manifest derive name (Selection::derive)
  bool plan = false;           ///< plan the chosen variant without rendering (Selection::plan)
};

/// The outcome of variant selection for one call (boundary errors are thrown, not stored here).
struct Selection {
  const contract::Variant* variant = nullptr;  ///< null: no variant accepts the call
  std::string failure;               ///< when !variant: the message plan() would throw
  std::string signature;             ///< "x: float32[2, 4, 3, 8], ...; attrs: interleaved=0, ..."
  std::vector<DeriveResult> derive;  ///< manifest derive in evaluation order (SelectOptions::derive_values)
  std::optional<Plan> plan;          ///< SelectOptions::plan and a variant chosen; WGSL left empty
  std::string plan_error;            ///< planning the chosen variant failed (u32 range, dispatch limit)
};

/// Plans kernel calls against one contract on one device. plan() is what the runtime calls on every
/// kernel call: it is cached by the call signature and safe to call from several threads.
class Planner {
 public:
  /// Reads a package file (a pass's `shader`) as text; throws wgk::Error when missing.
  using TemplateSource = std::function<std::string(const std::string& file_name)>;
  /// Programs by key (ProgramText::key): returns the program for `key`, calling `render` for its WGSL
  /// only when it has none (the runtime's device cache). Without one, plan() renders every time.
  using ProgramSource = std::function<std::shared_ptr<const ProgramText>(
      std::string key, const std::string& label, const std::function<std::string()>& render)>;

  Planner(std::shared_ptr<const contract::Contract> contract, DeviceCaps device, TemplateSource templates,
          ProgramSource programs = nullptr);
  ~Planner();
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  /// Boundary + scope + selection + plan, rendered. Throws wgk::Error (kInvalidArgument) for a call
  /// that breaks the contract (message names the input/attribute, the rule and the values; "no variant
  /// of <domain>.<name> accepts these inputs ..." with the closest variant's failing clause explained),
  /// kContract for a manifest or template fault found while planning. Not cached here: the runtime
  /// caches plans by signature_key() and programs through ProgramSource.
  std::shared_ptr<const Plan> plan(const CallSignature& call) const;
  /// The plan of `calls` (>= 2) calls of this signature sharing each dispatch of a pass with `fusion`
  /// (contract::Fusion; docs/kernel-conventions.md "Fused calls"): such a pass's per-call bindings appear
  /// once per call (PlannedBinding::call, in place of the one binding, slots renumbered) and its template
  /// reads `fusedCalls` = `calls`; other passes as plan() makes them. The dispatch sizes are one call's (the
  /// runtime sets z to the number of calls). Throws like plan(); kInternal for `calls` < 2 or past a pass's
  /// maxCalls.
  std::shared_ptr<const Plan> plan_fused(const CallSignature& call, std::uint32_t calls) const;
  /// Boundary + scope + selection (and optionally derive values and an unrendered plan), uncached.
  /// Throws like plan() for boundary errors and failing `checks`; a call no variant accepts is
  /// reported in Selection::failure instead.
  Selection select(const CallSignature& call, SelectOptions options = {}) const;

  const contract::Contract& contract() const { return *contract_; }
  const DeviceCaps& device() const { return device_; }
 private:
  struct CallState;
  friend struct CallState;
  // The stages of a call, in order: the boundary (bind_signature) and the manifest's checks; variant
  // selection; the plan: value ranges, then per pass its bindings (with the uniform bytes), dispatch, WGSL.
  std::unique_ptr<CallState> begin_call(const CallSignature& call) const;
  void check_manifest(const CallState& state) const;
  const contract::Variant* choose(CallState& state, std::string* failure) const;
  Plan make_plan(CallState& state, const contract::Variant& variant, bool render, std::uint32_t calls = 1) const;
  std::vector<ValueRange> value_ranges(const CallState& state) const;
  /// Returns whether an element type names f16 (the declarations then `enable f16`).
  bool plan_bindings(const CallState& state, const contract::Pass& pass, const expr::Scope& scope,
                     const std::function<std::string()>& where, std::uint32_t calls, PlannedPass& pp) const;
  /// PlannedBinding::uniform_bytes of a per-call input `tensor` bound with element type `wgsl_type`.
  std::uint64_t uniform_bytes(const TensorSignature& tensor, std::string_view wgsl_type) const;
  void plan_dispatch(const contract::Pass& pass, const expr::Scope& scope, const std::function<std::string()>& where,
                     PlannedPass& pp) const;
  void render_pass(const contract::Variant& variant, const contract::Pass& pass, const expr::Scope& scope,
                   bool needs_f16, std::uint32_t calls, PlannedPass& pp) const;
  const tmpl::Template& template_for(const std::string& file_name) const;

  std::shared_ptr<const contract::Contract> contract_;
  std::string op_;  // "<domain>.<name>", the prefix of every message
  DeviceCaps device_;
  TemplateSource templates_;
  ProgramSource programs_;
  expr::Value device_value_;    // {limits: {...}, features: {...}}
  expr::Value tunables_value_;  // {WORKGROUP_SIZE: 256, ...}
  std::unordered_map<std::string_view, std::size_t> derive_index_;  // manifest derive name -> index
  std::vector<std::size_t> variant_order_;  // variant indices by priority, highest first; ties in file order

  mutable std::mutex templates_mutex_;
  mutable std::map<std::string, tmpl::Template, std::less<>> parsed_templates_;
};

}  // namespace wgk::plan
