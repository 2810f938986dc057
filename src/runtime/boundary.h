#pragma once
// The data-level half of the host boundary (the signature-level half is plan::Planner): data
// length against shape, checked int64 -> uint32 narrowing, and `valueRange` bounds (ONNX spec:
// position_ids index rows of the caches; seed card: negative positions are rejected at the boundary).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "plan/plan.h"
#include "expr/value.h"
#include "wgk/kernel.h"
#include "wgk/tensor.h"

namespace wgk::runtime {

/// The smallest and largest element of an integer tensor of `dtype`.
struct IntRange {
  std::int64_t min = 0, max = 0;
  DType dtype = DType::kUInt32;
};

/// An attribute or tunable value as the contract's expressions and templates see it: int64, float or
/// string, and the lists (INTS, FLOATS, STRINGS) as expression lists of those. The planner checks it
/// against the declared type (contract::attribute_value).
expr::Value attribute_value(const AttributeValue& value);

/// Throws wgk::Error (kInvalidArgument) when `host.data` is not numel(shape) * dtype_size bytes,
/// naming the input, the shape and both byte counts.
void check_data_size(std::string_view input, const HostTensor& host);

/// The uint32 words of an int64 (or uint32) tensor. Every element must satisfy 0 <= v < 2^32
/// (checked narrowing), then lie in `range` when given. Errors (kInvalidArgument) name the input,
/// the flat index, the value and the rule (with the bound's expression for a range).
std::vector<std::byte> narrow_to_u32(std::string_view input, const HostTensor& host,
                                     const plan::ValueRange* range);

/// Checks an already-uint32 or int64 tensor against `range` without narrowing.
void check_value_range(std::string_view input, const HostTensor& host, const plan::ValueRange& range);

/// [min, max] of an int64 or uint32 tensor's elements; nullopt for other dtypes or no elements.
std::optional<IntRange> int_range(const HostTensor& host);

}  // namespace wgk::runtime
