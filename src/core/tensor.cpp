#include "wgk/tensor.h"

#include <bit>
#include <cmath>
#include <limits>

#include "wgk/error.h"

namespace wgk {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kInt64: return "int64";
    case DType::kUInt32: return "uint32";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "float32") return DType::kFloat32;
  if (name == "float16") return DType::kFloat16;
  if (name == "int64") return DType::kInt64;
  if (name == "uint32") return DType::kUInt32;
  return std::nullopt;
}

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return 4;
    case DType::kFloat16: return 2;
    case DType::kInt64: return 8;
    case DType::kUInt32: return 4;
  }
  return 0;
}

std::int64_t numel(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) throw Error(ErrorKind::kInvalidArgument, "shape " + shape_string(shape) + " has a negative dimension");
    if (d != 0 && n > (std::int64_t{1} << 62) / d)
      throw Error(ErrorKind::kInvalidArgument, "shape " + shape_string(shape) + " has more than 2^62 elements");
    n *= d;
  }
  return n;
}

std::uint64_t tensor_bytes(DType dtype, const Shape& shape) {
  const std::int64_t n = numel(shape);
  const auto size = static_cast<std::int64_t>(dtype_size(dtype));
  if (n > (std::int64_t{1} << 62) / size)
    throw Error(ErrorKind::kInvalidArgument, std::string(dtype_name(dtype)) + " shape " + shape_string(shape) +
                                                 " needs more than 2^62 bytes");
  return static_cast<std::uint64_t>(n * size);
}

std::string shape_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

double HostTensor::element(std::int64_t i) const {
  const std::byte* p = data.data() + static_cast<std::size_t>(i) * dtype_size(dtype);
  switch (dtype) {
    case DType::kFloat32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::kFloat16: { std::uint16_t v; std::memcpy(&v, p, 2); return half_to_float(v); }
    case DType::kInt64: { std::int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::kUInt32: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
  }
  return 0;
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

std::uint16_t float_to_half(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7e00u;  // NaN (quiet)
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: Inf
  if (abs < 0x38800000u) {                      // below 2^-14: subnormal half (or zero)
    // value = m * 2^-24 with m rounded to nearest even.
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // exact: times 2^24
    return sign | static_cast<std::uint16_t>(std::nearbyint(scaled));
  }
  // Normal: drop 13 mantissa bits with round-to-nearest-even; a carry into the exponent is correct.
  const std::uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return sign | static_cast<std::uint16_t>((rounded - (112u << 23)) >> 13);
}

}  // namespace wgk
