#pragma once
// Conversions between host tensors and the reference's double values.
#include <cstdint>
#include <span>
#include <vector>

#include "wgk/tensor.h"

namespace wgk::reference {

/// Every element of `t` as double (float16 and float32 exactly; int64 rounds above 2^53).
std::vector<double> to_doubles(const HostTensor& t);

/// IEEE binary16 nearest to `value` (round to nearest, ties to even, in one rounding: not via float32);
/// |value| >= 65520 gives +-Inf; NaN gives a quiet NaN with value's sign.
std::uint16_t double_to_half(double value);

/// `value` rounded once to ONNX TensorProto floating type `type` (round to nearest, ties to even; past the
/// largest finite value: +-Inf): 1 float32, 10 float16, 11 double (unchanged), 16 bfloat16 (8 significant bits,
/// float32's exponent range). The stash types of RMSNormalization-23's function body. Throws wgk::Error
/// (kInvalidArgument) for another type.
double round_to_onnx_type(double value, std::int64_t type);

/// `value` with float32's range but not its precision: +-Inf where rounding it to float32 overflows
/// (|value| >= 2^128 - 2^103), else `value` unchanged. For a stage computed in float32 (RMSNormalization-23's
/// stash_type 1, ORT's float kernels) whose exact result the reference keeps: a float32 sum of squares that
/// passes FLT_MAX is infinite there, whatever the order of its terms (they are not negative).
double float32_range(double value);

/// Rounds `values` once to `dtype` (float32 or float16) into a tensor of `shape`. Throws wgk::Error
/// (kInvalidArgument) when values.size() != numel(shape) or dtype is not a float type.
HostTensor round_to_tensor(std::span<const double> values, DType dtype, Shape shape);

}  // namespace wgk::reference
