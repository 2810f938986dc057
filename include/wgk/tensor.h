#pragma once
// Element types, shapes and host tensors: the data a caller hands to a kernel and gets back.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wgk {

/// Logical element types. Names follow ONNX's type-constraint spelling ("float32", "float16", "int64")
/// plus "uint32", the WebGPU storage of checked-narrowed int64 inputs.
enum class DType { kFloat32, kFloat16, kInt64, kUInt32 };

/// "float32", "float16", "int64", "uint32".
std::string_view dtype_name(DType dtype);
/// Parses the names above (and numpy's "<f4", "<f2", "<i8", "<u4" are not accepted here: see src/io).
std::optional<DType> parse_dtype(std::string_view name);
/// Bytes per element: 4, 2, 8, 4.
std::size_t dtype_size(DType dtype);

/// Dimensions, outermost first. Rank 0 is a scalar with one element.
using Shape = std::vector<std::int64_t>;
/// Product of the dimensions (1 for rank 0). Throws wgk::Error (kInvalidArgument) on a negative
/// dimension or an element count past 2^62.
std::int64_t numel(const Shape& shape);
/// numel(shape) * dtype_size(dtype): the bytes such a tensor holds. Throws wgk::Error (kInvalidArgument) as
/// numel does, and past 2^62 bytes.
std::uint64_t tensor_bytes(DType dtype, const Shape& shape);
/// "[2, 4, 3, 8]".
std::string shape_string(const Shape& shape);

/// A tensor in host memory: `data` holds numel(shape) * dtype_size(dtype) bytes, little-endian,
/// row-major (C order). Float16 elements are IEEE binary16 bit patterns.
struct HostTensor {
  DType dtype = DType::kFloat32;
  Shape shape;
  std::vector<std::byte> data;

  std::int64_t numel() const { return wgk::numel(shape); }
  /// Copies `values` into a new tensor; the element type must match `dtype`'s size.
  template <typename T>
  static HostTensor from(DType dtype, Shape shape, const std::vector<T>& values) {
    HostTensor t{dtype, std::move(shape), {}};
    t.data.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
    return t;
  }
  /// Element `i` as double (float16 widened exactly; int64 may round above 2^53).
  double element(std::int64_t i) const;
};

/// IEEE binary16 <-> binary32. float_to_half rounds to nearest even; overflow gives +-Inf; NaN stays NaN.
float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);

}  // namespace wgk
