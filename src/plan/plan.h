#pragma once
// The signature-level half of a kernel call (docs/design.md "One call, as data"): boundary checks on
// names, dtypes, ranks and attributes; the call scope (docs/kernel-conventions.md "Render context");
// variant selection; and the plan of each pass (resolved bindings, generated WGSL declarations plus
// the rendered template, packed uniform bytes, dispatch sizes, output shapes). Data-level checks
// (int64 -> u32 narrowing, valueRange) are the runtime's: the plan hands it the evaluated bounds.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "contract/contract.h"
#include "expr/value.h"
#include "template/template.h"
#include "wgk/tensor.h"

namespace wgk::plan {

/// What the scope exposes as `device.limits.<name>` and `device.features.*`. Limit names are
/// WebGPU's (`maxComputeWorkgroupsPerDimension`, `maxStorageBufferBindingSize`, ...).
struct DeviceCaps {
  std::vector<std::pair<std::string, std::int64_t>> limits;
  bool shader_f16 = false, timestamp_query = false, subgroups = false;

  /// The WebGPU spec's default limits (GPUSupportedLimits defaults), no features.
  static DeviceCaps webgpu_defaults();
  /// Mesa lavapipe under Dawn (docs/platform.md): defaults plus shader-f16,
  /// timestamp-query, subgroups; maxStorageBufferBindingSize 128 MiB, maxComputeWorkgroupsPerDimension 65535.
  static DeviceCaps lavapipe();
  /// NVIDIA H200 under Dawn/Vulkan (docs/platform.md): defaults plus timestamp-query, no shader-f16;
  /// maxStorageBufferBindingSize 4 GiB - 1, maxBufferSize 1 TiB.
  static DeviceCaps h200();
  /// "webgpu-default", "lavapipe", "h200"; nullopt for another name.
  static std::optional<DeviceCaps> preset(std::string_view name);
  /// JSON `{"limits": {"<name>": int, ...}, "features": ["shader-f16", "timestamp-query", "subgroups"]}`
  /// over the WebGPU defaults. Throws wgk::Error (kInvalidArgument) naming `source` and the key.
  static DeviceCaps from_json(std::string_view json_text, const std::string& source);
  /// The limit's value, or nullopt when not listed.
  std::optional<std::int64_t> limit(std::string_view name) const;
};

/// One tensor argument as the boundary sees it: no data, only dtype and shape.
struct TensorSignature {
  DType dtype = DType::kFloat32;
  Shape shape;
};

/// A kernel call at the signature level.
struct CallSignature {
  /// By argument name (`x`, `cos`, `positionIds`) or ONNX name (`X`, `cos_cache`); present inputs only.
  /// An `M`-typed input (storage uint32, checked narrowing) may be given as int64 (the runtime narrows
  /// the data) or as uint32 (already narrowed by the caller); both bind `M` and `dtypes.M` is "u32".
  std::map<std::string, TensorSignature, std::less<>> inputs;
  /// Caller's attribute values, checked against each attribute's declared ONNX type (contract::attribute_value:
  /// INT, FLOAT, STRING, INTS, FLOATS, STRINGS; an integral float such as 1.0 is taken as 1 for INT). Absent ones
  /// take the manifest default, or stay undefined.
  std::map<std::string, expr::Value, std::less<>> attrs;
  /// Overrides of the manifest's `tunables` (e.g. WORKGROUP_SIZE 64, F16_STORAGE "packed"). Each name
  /// must be declared and its value of the default's type (integer, number or string).
  std::map<std::string, expr::Value, std::less<>> tunables;
  /// Optional outputs asked for, by argument or ONNX name (`invStdVar`, `inv_std_var`); naming a required
  /// output is allowed and changes nothing. An optional output not named is neither planned nor bound, and
  /// `present.<output>` is false for it. An unknown name is an error naming the declared outputs.
  std::vector<std::string> outputs;
};

/// One bind group entry of a pass.
struct PlannedBinding {
  std::uint32_t slot = 0;             ///< @binding(slot), @group(0)
  const contract::Binding* binding = nullptr;   ///< into the contract
  std::string wgsl_type;              ///< resolved element type (tensor bindings) or the struct name
  std::vector<std::byte> uniform;     ///< kUniform: the struct packed by WGSL uniform layout, size % 16 == 0
};

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

struct PlannedOutput {
  std::string name;  ///< argument name (`y`)
  DType dtype = DType::kFloat32;
  Shape shape;
};

/// An input's `valueRange` evaluated for this call: every host element must lie in [min, max].
struct ValueRange {
  std::string input;
  std::int64_t min = 0, max = 0;
  /// The bound expressions' texts, for the runtime's error messages (views into the contract, which a
  /// plan's user keeps alive).
  std::string_view min_text, max_text;
};

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

/// Appends a compact, unambiguous encoding of `call` to `key`: two calls with equal keys get equal plans
/// on one Planner (the runtime's plan cache key).
void append_signature_key(std::string& key, const CallSignature& call);

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
  /// Boundary + scope + selection (and optionally derive values and an unrendered plan), uncached.
  /// Throws like plan() for boundary errors and failing `checks`; a call no variant accepts is
  /// reported in Selection::failure instead.
  Selection select(const CallSignature& call, SelectOptions options = {}) const;

  const contract::Contract& contract() const { return *contract_; }
  const DeviceCaps& device() const { return device_; }
 private:
  struct CallState;
  friend struct CallState;
  std::unique_ptr<CallState> begin_call(const CallSignature& call) const;
  const contract::Variant* choose(CallState& state, std::string* failure) const;
  Plan make_plan(CallState& state, const contract::Variant& variant, bool render) const;
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
