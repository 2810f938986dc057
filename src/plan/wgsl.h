#pragma once
// The WGSL the runtime writes around a pass's template and the bytes of its uniform structs, one unit
// (docs/kernel-conventions.md "The WGSL the runtime generates before the rendered template"): the scalar type of a dtype, the layout of a
// uniform struct by the WGSL spec's rules (section "Memory Layout": AlignOf, SizeOf, member offsets,
// "Address Space Layout Constraints" for the uniform address space), its packed bytes, and the binding
// declarations before the template.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contract/contract.h"
#include "expr/value.h"
#include "wgk/tensor.h"

namespace wgk::plan {

/// One bind group entry of a pass.
struct PlannedBinding {
  std::uint32_t slot = 0;                     ///< @binding(slot), @group(0)
  const contract::Binding* binding = nullptr;  ///< into the contract
  std::string wgsl_type;                      ///< resolved element type (tensor bindings) or the struct name
  std::vector<std::byte> uniform;             ///< kUniform: the struct's bytes (pack_uniform), size % 16 == 0
  /// In a pass planned for K > 1 fused calls (contract::Fusion): the call a per-call binding belongs to,
  /// declared as `<name>_<call>`; nullopt for a binding every call shares (and in every unfused pass).
  std::optional<std::uint32_t> call;
  /// A per-call read-only tensor binding of a pass with `fusion` that a fused pass may declare in the uniform
  /// address space: its buffer's bytes (storage_buffer_size of the tensor), when the element type is 16 bytes
  /// (vec4<f32>, vec4<u32>, vec4<i32>: WGSL "Address Space Layout Constraints" want a uniform array's stride a
  /// multiple of 16) and they fit the device's maxUniformBufferBindingSize; else 0. Set in every plan.
  std::uint64_t uniform_bytes = 0;
  /// Declared `var<uniform> <name>_<call>: array<T, uniform_bytes / 16>` and bound with uniform_bytes: only in
  /// a pass planned for K > 1 calls whose FusedLayout says so (plan::fused_layout).
  bool as_uniform = false;
};

/// The WGSL scalar type of a tensor dtype: "f32", "f16", "u32"; "i64" for int64, which has no WGSL type
/// (a contract gives such an input a `storage` type).
std::string_view wgsl_scalar(DType dtype);

/// A type a uniform struct member may have (the manifest's `fields[].type`), with its WGSL AlignOf and
/// SizeOf in bytes (WGSL spec "Alignment and Size" table: i32, u32, f32 are 4 and 4).
struct UniformMemberType {
  std::string_view name;
  std::uint32_t align = 0, size = 0;
};

/// The row of `type` ("u32", "i32", "f32"); nullopt for a type uniform structs may not hold.
std::optional<UniformMemberType> uniform_member_type(std::string_view type);

/// Member offsets and the sizes of a uniform struct (WGSL spec "Structure Member Layout"): member i at
/// roundUp(AlignOf(T_i), end of member i-1), from 0; SizeOf(S) = roundUp(AlignOf(S), end of the last
/// member), AlignOf(S) the largest member alignment; the buffer holding it is uniform_buffer_size(SizeOf(S)).
struct UniformLayout {
  std::vector<std::uint32_t> offsets;  ///< per field, bytes
  std::uint32_t struct_size = 0;       ///< SizeOf(S)
  std::uint32_t buffer_size = 0;       ///< bytes of the packed buffer (core/buffer_sizes.h)
};

/// Throws wgk::Error (kContract) naming the field for a type uniform_member_type() does not know.
UniformLayout uniform_layout(std::span<const contract::StructField> fields);

/// The bytes of `binding`'s uniform struct (a kUniform binding), little-endian at uniform_layout()'s
/// offsets, zero-padded to its buffer size. `value(i)` is field i's value, asked for in field order; a u32
/// field takes an integer in [0, 2^32), an i32 one an integer in [-2^31, 2^31) (two's complement), an f32
/// one any number (rounded to the nearest float). Throws wgk::Error (kInvalidArgument) for a value out of
/// its type's range, kContract for a field type other than u32, i32, f32, each
/// "<where()>: <binding>.<field> (<type>, <expression>) = <value> ...".
std::vector<std::byte> pack_uniform(const contract::Binding& binding,
                                    const std::function<expr::Value(std::size_t)>& value,
                                    const std::function<std::string()>& where);

/// The declarations the runtime writes before a pass's template (docs/kernel-conventions.md): `enable f16;`
/// when `enable_f16`, then per binding `@group(0) @binding(slot)` with `var<uniform> name: Struct;` after
/// `struct Struct { field: type, ... }` for a uniform, `var<storage, read> name: array<T>;` for an input
/// and `var<storage, read_write> name: array<T>;` for an output, one a line; a per-call binding of a fused
/// pass (PlannedBinding::call) is named `<name>_<call>`.
std::string binding_declarations(std::span<const PlannedBinding> bindings, bool enable_f16);

/// `declarations` + `body`, with the `enable` directives `body` begins with (`enable subgroups;`) moved
/// before the declarations: WGSL wants every directive before any declaration.
std::string with_enables_first(const std::string& declarations, std::string body);

}  // namespace wgk::plan
