#pragma once
// A human-readable account of what the loader understood from a manifest: `wgk contract` prints it.
#include <ostream>
#include <string_view>

#include "contract/contract.h"

namespace wgk::contract {

/// "current" or "legacy".
std::string_view format_name(ManifestFormat format);
/// "read-only-storage", "storage", "uniform" (WebGPU's GPUBufferBindingType spelling).
std::string_view binding_kind_name(BindingKind kind);

/// Prints the format, inputs (name, onnx name, dtype variable, ranks, optional, storage,
/// valueRange), outputs, attributes with defaults and allowed values, type constraints, tunables,
/// manifest derive names in evaluation order, checks, and each variant with its priority, `when`
/// clauses, derive, passes (shader, bindings with @binding index, kind and element type or
/// struct fields, dispatch). Expressions are printed as written (legacy dispatch: as converted).
void print_contract(const Contract& contract, std::ostream& out);

}  // namespace wgk::contract
