#pragma once
// The host boundary of a kernel call, both halves (docs/design.md "One call, as data"):
// - signature level, no data (bind_signature, called by the Planner before it plans): input names, dtypes
//   (ONNX type constraints bind T and M), ranks and dimensions, attributes (declared ONNX type, allowed
//   values, defaults), tunables, the optional outputs asked for, and the outputs' dtypes and shapes;
// - data level, called by the runtime with the plan's evaluated `valueRange` bounds: data length against
//   shape, checked int64 -> uint32 narrowing, and the value range of host data and of device-resident
//   tensors (ONNX spec: position_ids index rows of the caches; seed card: negative positions are rejected
//   at the boundary).
// One type, ValueRange, is both a bound a plan evaluates and the extent of a tensor's values.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contract/contract.h"
#include "expr/value.h"
#include "wgk/kernel.h"
#include "wgk/tensor.h"

namespace wgk::plan {

/// An inclusive range [min, max] of integer values: an input's `valueRange` evaluated for a call (every
/// element must lie in it), or the extent of a tensor's elements (its smallest and largest).
struct ValueRange {
  std::string input;  ///< the input a plan's range bounds (argument name); empty for an extent
  std::int64_t min = std::numeric_limits<std::int64_t>::min(), max = std::numeric_limits<std::int64_t>::max();
  /// A plan's range: the bound expressions' texts, for error messages (views into the contract, which a
  /// plan's user keeps alive); empty for an extent or an absent bound.
  std::string_view min_text, max_text;
  bool contains(const ValueRange& extent) const { return min <= extent.min && extent.max <= max; }
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
  /// INT, FLOAT, STRING, INTS, FLOATS, STRINGS; INT takes an integer only, not 4.0; FLOAT also an integer). Absent ones
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

struct PlannedOutput {
  std::string name;  ///< argument name (`y`)
  DType dtype = DType::kFloat32;
  Shape shape;
};

/// A call past the signature-level boundary: what it binds, as the scope roots of
/// docs/kernel-conventions.md "Render context" (all but `device`, which the Planner holds).
struct BoundCall {
  std::vector<const TensorSignature*> given;  ///< per Contract::inputs, null when absent
  std::vector<std::optional<DType>> bound;    ///< per Contract::type_constraints
  expr::Value shapes, ranks, dtypes, present, attrs, tunables;
  const expr::Value* device = nullptr;        ///< {limits: {...}, features: {...}}
  expr::Object attr_values;                   ///< resolved attributes (for the signature text)
  expr::Object tunable_overrides;             ///< the call's tunables (for the signature text)
  std::vector<PlannedOutput> outputs;         ///< in manifest order: the required ones and those asked for

  /// The scope root `name` (shapes, ranks, dtypes, device, present, attrs, tunables), or null.
  const expr::Value* root_ref(std::string_view name) const;
  /// "x: float32[2, 4, 3, 8], cos: float32[50, 4]; attrs: interleaved=0, rotary_embedding_dim=0[; tunables: ROW_ORDER="token"]"
  std::string signature_text(const contract::Contract& contract) const;
};

/// The signature-level boundary of `call` against `contract`, in stages (boundary.cpp): input names,
/// dtypes, shapes, the `dtypes` scope, attributes, tunables (over `default_tunables`), outputs (their
/// shapes evaluated over the roots, `device` included). Throws wgk::Error (kInvalidArgument) "<op>: ..."
/// naming the input, attribute, tunable or output, the rule and the values; kContract for a manifest fault
/// (an unknown type name, an output shape that is not a list).
void bind_signature(const contract::Contract& contract, const std::string& op, const CallSignature& call,
                    const expr::Value& device, const expr::Value& default_tunables, BoundCall& out);

/// An attribute or tunable value as the contract's expressions and templates see it: int64, float or
/// string, and the lists (INTS, FLOATS, STRINGS) as expression lists of those. bind_signature checks it
/// against the declared type (contract::attribute_value).
expr::Value attribute_value(const AttributeValue& value);

/// Throws wgk::Error (kInvalidArgument) when `host.data` is not numel(shape) * dtype_size bytes,
/// naming `subject` and the input ("input x: float32 shape [1, 2] needs 8 bytes of data, got 4"; for
/// DeviceTensor::upload, subject "DeviceTensor::upload" and no input), the shape and both byte counts.
void check_data_size(std::string_view input, const HostTensor& host, std::string_view subject = "input");

/// The uint32 words of an int64 (or uint32) tensor. Every element must lie in `range` when given (the
/// manifest's valueRange, checked first, so its rule is the one reported), and satisfy 0 <= v < 2^32 (checked
/// narrowing). Errors (kInvalidArgument) name the input, the flat index, the value and the rule (with the
/// bound's expression for a range).
std::vector<std::byte> narrow_to_u32(std::string_view input, const HostTensor& host, const ValueRange* range);

/// Checks an already-uint32 or int64 tensor against `range` without narrowing; the error names the
/// first element out of range.
void check_value_range(std::string_view input, const HostTensor& host, const ValueRange& range);

/// The extent [min, max] of an int64 or uint32 tensor's elements; nullopt for other dtypes or no elements.
std::optional<ValueRange> int_range(const HostTensor& host);

/// The value range of a device-resident tensor. `extent` is its elements' extent when known (from the
/// upload or an earlier read-back); else `read` reads it back (a wait for the GPU) and `remember` is
/// given what int_range() found, for the caller to keep. A tensor not yet `written` (an output of an
/// earlier call of a recording Batch) cannot be read. Throws wgk::Error (kInvalidArgument) like
/// check_value_range, or naming the unwritten input and the range.
void check_device_value_range(std::string_view input, const ValueRange& range, std::optional<ValueRange> extent,
                              bool written, const std::function<HostTensor()>& read,
                              const std::function<void(const std::optional<ValueRange>&)>& remember);

}  // namespace wgk::plan
