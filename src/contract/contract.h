#pragma once
// The typed contract of a kernel package (manifest.json), for both manifest formats:
// the current one (seed 004: `inputs` object, `bindings` object, variant `derive`, pass `dispatch`
// x/y/z) and the legacy one (seed 000: `args` with semantic names, `bindingSets`, variant
// `constants`, `source.inputs`, 1-D `threads` + `workgroupSize` dispatch, attribute defaults as a
// plain object). Both load into this one model; every expression is parsed at load time and every
// name it reads is resolved then, not at the first call.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expression.h"
#include "expr/value.h"
#include "wgk/tensor.h"

namespace wgk::contract {

/// A tensor input of the op. `name` is the kernel's argument name (`x`, `cos`, `positionIds`);
/// `onnx_name` is the upstream name (`X`, `cos_cache`, `position_ids`). Expressions may use either
/// spelling (`shapes.x`, `shapes.X`): the runtime's scope binds both.
struct Input {
  std::string name;
  std::string onnx_name;
  std::string dtype;                ///< a type-constraint variable ("T", "M")
  std::vector<int> ranks;           ///< ranks the boundary accepts (`rank`: a number or a list); empty: any
  bool optional = false;
  std::optional<DType> storage;     ///< WebGPU storage when it differs from the logical dtype (uint32)
  bool checked_narrowing = false;   ///< int64 -> storage narrowing checked element by element
  std::string description;
  /// `valueRange` (docs/kernel-conventions.md): inclusive bounds every host element must satisfy.
  std::optional<expr::Expression> value_min, value_max;
};

/// A manifest-level `checks` entry: evaluated after the boundary, before variant selection.
struct Check {
  expr::Expression when;
  std::string message;
};

/// A tensor output; `rank` and `shape` are expressions over the scope (`ranks.x`, `shapes.x`).
/// An `optional` output (ONNX's optional outputs, e.g. SkipSimplifiedLayerNormalization's inv_std_var)
/// is planned, allocated and bound only when the call asks for it (CallSignature::outputs).
struct Output {
  std::string name;
  std::string onnx_name;
  std::string dtype;  ///< a type-constraint variable; one bound by no input is fixed by a one-type constraint (U: float32)
  bool optional = false;
  expr::Expression rank;
  expr::Expression shape;
  std::string description;
};

/// ONNX AttributeProto types a contract can declare (onnx.proto AttributeType): manifest `attributes.<name>.type`
/// "INT", "FLOAT", "STRING", or the lists "INTS", "FLOATS", "STRINGS"; when absent, the default's kind
/// (attribute_type_of).
enum class AttributeType { kInt, kFloat, kString, kInts, kFloats, kStrings };

/// "INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS".
const char* attribute_type_name(AttributeType type);
/// The type named by its ONNX spelling ("INTS"); nullopt for any other text.
std::optional<AttributeType> parse_attribute_type(std::string_view name);
/// INTS, FLOATS, STRINGS.
bool is_list_type(AttributeType type);
/// The type a manifest default implies when no `type` is declared: a float FLOAT, a string STRING, a list
/// STRINGS when its first element is a string, FLOATS when any element is a float, else INTS (an empty
/// list too); anything else INT.
AttributeType attribute_type_of(const expr::Value& default_value);

struct Attribute;
/// `value` as attribute `a` takes it: INT an integer (onnx.proto AttributeProto.i, an int64: a float is refused
/// even when integral, 4.0, and so are bools), FLOAT any number (as a float: 1 is 1.0), STRING a string; INTS, FLOATS, STRINGS a list whose every
/// element is such a value. Then the allowed values (attributeConstraints), of each element for a list.
/// Throws wgk::Error kInvalidArgument naming the attribute, the rule and the value (and the element's
/// index for a list).
expr::Value attribute_value(const Attribute& a, const expr::Value& value);

struct Attribute {
  std::string name;
  AttributeType type = AttributeType::kInt;
  std::optional<expr::Value> default_value;  ///< absent: the attribute is undefined unless given
  std::vector<expr::Value> allowed_values;   ///< from attributeConstraints.<name>.values (per element of a list); empty: any
  std::string description;
};

struct TypeConstraint {
  std::string name;            ///< "T", "M"
  std::vector<DType> allowed;  ///< in manifest order
};

struct Tunable {
  std::string name;
  expr::Value default_value;
};

/// `value` as tunable `t` takes it: of its default's type, by attribute_value's rule for that type (onnx.proto
/// AttributeProto): an integer default takes an integer only (a float is refused even when integral, 64.0 or
/// 6.4e1, and so is a bool), a float default any number (as a float), a string default a string; a default of
/// another kind (a list) any value. Throws wgk::Error kInvalidArgument naming the tunable, the value, its default
/// and the rule: "tunable 'WORKGROUP_SIZE' = 64.0 (float) is not an integer (its default is 256; a tunable takes
/// its default's type, by the rule of an ONNX INT attribute: AttributeProto.i, an int64; a float is refused even
/// when integral)".
expr::Value tunable_value(const Tunable& t, const expr::Value& value);

/// A named derived value. In Contract::derive the list is in dependency (evaluation) order.
struct Derive {
  std::string name;
  expr::Expression expression;
};

/// One field of a uniform params struct; `type` is a WGSL scalar type ("u32", "i32", "f32").
struct StructField {
  std::string name;
  std::string type;
  expr::Expression value;
};

enum class BindingKind { kReadOnlyStorage, kStorage, kUniform };

/// A bind group entry. Tensor bindings name an input or output (`arg`) and a WGSL element type:
/// `$T`/`$M` (a type constraint's WGSL storage type: f32, f16, u32), `$<derive>` (a variant or pass
/// derive value such as `$vector`), or a literal WGSL type. Uniform bindings carry a struct.
struct Binding {
  std::string id;           ///< key in `bindings` (current format) or generated (legacy)
  std::string name;         ///< the WGSL variable name
  BindingKind kind = BindingKind::kReadOnlyStorage;
  std::string arg;          ///< tensor argument name (input or output); empty for a struct
  std::string element_type; ///< as written: "$T", "$vector", "vec4<f32>"
  std::string struct_name = "Params";
  std::vector<StructField> fields;  ///< non-empty for kUniform
};

struct Dispatch {
  expr::Expression x, y, z;  ///< workgroup counts (legacy 1-D dispatch is converted to the 2-D split)
};

/// The name a fused pass's template reads for the number of calls its dispatch serves (1 unfused).
inline constexpr std::string_view kFusedCallsName = "fusedCalls";

/// A pass's `fusion` (docs/kernel-conventions.md "Fused calls"): up to `max_calls` calls of one plan in a
/// Batch may share one dispatch. The bindings in `per_call` (indices into Contract::bindings, each one of the
/// pass's tensor bindings, every output binding among them) are declared once per call; every other binding
/// (inputs, uniforms) must be the same buffer or bytes for the calls to fuse. The runtime sets dispatch.z to
/// the number of calls (`z` must be 1 in the manifest): workgroup_id.z is the call.
struct Fusion {
  std::uint32_t max_calls = 1;           ///< in [1, kMaxFusedCalls]
  std::vector<std::size_t> per_call;     ///< indices into Contract::bindings, in the pass's binding order
  static constexpr std::uint32_t kMaxFusedCalls = 64;
};

struct Pass {
  std::string id;
  std::string name;
  std::string shader;                 ///< template file name, relative to the manifest
  std::vector<Derive> derive;         ///< pass derive (legacy: source.inputs), in evaluation order
  std::vector<std::size_t> bindings;  ///< indices into Contract::bindings, in @binding order
  Dispatch dispatch;
  std::optional<Fusion> fusion;       ///< current format only; absent: every call its own dispatch
  /// Whether Contract::bindings[index] is one of `fusion`'s per-call bindings.
  bool per_call(std::size_t index) const;
};

struct Variant {
  std::string id;
  int priority = 0;
  std::vector<expr::Expression> when;  ///< every clause must hold
  std::vector<Derive> derive;          ///< variant derive (legacy: constants), in evaluation order
  std::vector<Pass> passes;
};

enum class ManifestFormat { kCurrent, kLegacy };

struct Contract {
  ManifestFormat format = ManifestFormat::kCurrent;
  std::string domain;  ///< "ai.onnx", "com.microsoft"
  std::string name;    ///< "RotaryEmbedding"
  int since_version = 0;
  std::string description;
  std::vector<Input> inputs;
  std::vector<Output> outputs;
  std::vector<Attribute> attributes;
  std::vector<TypeConstraint> type_constraints;
  std::vector<Tunable> tunables;
  std::vector<Derive> derive;  ///< manifest derive, in evaluation (dependency) order
  std::vector<Check> checks;
  std::vector<Binding> bindings;
  std::vector<Variant> variants;  ///< in file order (ties in priority go to the earlier one)

  const Input* find_input(std::string_view name_or_onnx_name) const;
  const Output* find_output(std::string_view name_or_onnx_name) const;
  const Attribute* find_attribute(std::string_view name) const;
  const TypeConstraint* find_type_constraint(std::string_view name) const;
  const Tunable* find_tunable(std::string_view name) const;
};

/// Parses and validates manifest JSON text. `source` names the file in errors. Throws wgk::Error
/// (kContract) naming the JSON path (e.g. "manifest.json: variants[3].passes[0].bindings[2]: unknown
/// binding 'y_vec'"): unknown keys, wrong types, unknown names in expressions, derive cycles (the
/// cycle named), duplicate ids, missing templates are checked by load_contract_file only.
Contract load_contract(std::string_view json_text, const std::string& source = "manifest.json");
/// Reads `path` and loads it. With `check_shader_files`, also checks that every pass's shader file
/// exists beside it and resolves inside the package folder (symbolic links included): kNotFound for
/// a missing file, kContract for one outside; kNotFound/kIo when the manifest cannot be read.
Contract load_contract_file(const std::string& path, bool check_shader_files = true);

}  // namespace wgk::contract
