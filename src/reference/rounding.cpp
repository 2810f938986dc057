#include "reference/rounding.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "wgk/error.h"

namespace wgk::reference {

std::vector<double> to_doubles(const HostTensor& t) {
  const std::int64_t count = t.numel();
  if (t.data.size() != static_cast<std::size_t>(count) * dtype_size(t.dtype))
    throw Error(ErrorKind::kInvalidArgument, "to_doubles: tensor of shape " + shape_string(t.shape) + " holds " +
                                                 std::to_string(t.data.size()) + " bytes, not numel * element size");
  std::vector<double> out(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) out[i] = t.element(i);
  return out;
}

std::uint16_t double_to_half(double value) {
  const std::uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) return sign | 0x7e00;
  const double magnitude = std::fabs(value);
  if (magnitude >= 65520.0) return sign | 0x7c00;  // 65520 is halfway between 65504 (max) and 2^16: ties to Inf
  // float32 rounding lands within one half-ulp step of the answer; pick the nearest of it and its neighbours.
  std::uint16_t best = float_to_half(static_cast<float>(magnitude));
  if (best > 0x7bff) best = 0x7bff;
  double best_error = std::fabs(half_to_float(best) - magnitude);
  for (int delta : {-1, 1}) {
    const int candidate = best + delta;
    if (candidate < 0 || candidate > 0x7bff) continue;
    const double error = std::fabs(half_to_float(static_cast<std::uint16_t>(candidate)) - magnitude);
    if (error < best_error || (error == best_error && (candidate & 1) == 0)) {
      best = static_cast<std::uint16_t>(candidate);
      best_error = error;
    }
  }
  return sign | best;
}

double round_to_onnx_type(double value, std::int64_t type) {
  switch (type) {
    case 1: return static_cast<double>(static_cast<float>(value));
    case 10: return half_to_float(double_to_half(value));
    case 11: return value;
    case 16: {
      if (!std::isfinite(value) || value == 0) return value;
      int exponent = 0;
      std::frexp(value, &exponent);  // |value| in [2^(exponent-1), 2^exponent)
      // 8 significant bits; below 2^-126 the subnormal step 2^-133.
      const double step = std::ldexp(1.0, std::max(exponent, -125) - 8);
      const double rounded = std::nearbyint(value / step) * step;  // the default rounding mode: ties to even
      return std::fabs(rounded) >= std::ldexp(1.0, 128) ? std::copysign(INFINITY, value) : rounded;
    }
    default:
      throw Error(ErrorKind::kInvalidArgument, "round_to_onnx_type: type " + std::to_string(type) +
                                                   " is not 1 (float32), 10 (float16), 11 (double) or 16 (bfloat16)");
  }
}

double float32_range(double value) {
  return std::isfinite(value) && std::isinf(static_cast<float>(value)) ? std::copysign(INFINITY, value) : value;
}

HostTensor round_to_tensor(std::span<const double> values, DType dtype, Shape shape) {
  const std::int64_t count = numel(shape);
  if (static_cast<std::int64_t>(values.size()) != count)
    throw Error(ErrorKind::kInvalidArgument, "round_to_tensor: " + std::to_string(values.size()) + " values for shape " +
                                                 shape_string(shape) + " of " + std::to_string(count) + " elements");
  HostTensor t{dtype, std::move(shape), {}};
  t.data.resize(values.size() * dtype_size(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kFloat32) {
      const float v = static_cast<float>(values[i]);
      std::memcpy(t.data.data() + 4 * i, &v, 4);
    } else if (dtype == DType::kFloat16) {
      const std::uint16_t v = double_to_half(values[i]);
      std::memcpy(t.data.data() + 2 * i, &v, 2);
    } else {
      throw Error(ErrorKind::kInvalidArgument, "round_to_tensor: dtype " + std::string(dtype_name(dtype)) + " is not float32 or float16");
    }
  }
  return t;
}

}  // namespace wgk::reference
