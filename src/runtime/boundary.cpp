#include "runtime/boundary.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <variant>

#include "wgk/error.h"

namespace wgk::runtime {
namespace {

std::int64_t element_as_int(const HostTensor& host, std::int64_t i) {
  if (host.dtype == DType::kInt64) {
    std::int64_t v;
    std::memcpy(&v, host.data.data() + i * 8, 8);
    return v;
  }
  std::uint32_t v;
  std::memcpy(&v, host.data.data() + i * 4, 4);
  return v;
}

// "positionIds[4] = -1 (element [1, 1] of shape [2, 3])": the flat index, the value and, past rank 1, the
// element's index.
std::string element_text(std::string_view input, const Shape& shape, std::int64_t index, std::int64_t value) {
  std::string label = std::string(input) + "[" + std::to_string(index) + "] = " + std::to_string(value);
  if (shape.size() < 2) return label;
  std::vector<std::int64_t> at(shape.size());
  std::int64_t rest = index;
  for (std::size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] ? rest % shape[d] : 0;
    rest = shape[d] ? rest / shape[d] : 0;
  }
  std::string text;
  for (auto v : at) text += (text.empty() ? "" : ", ") + std::to_string(v);
  return label + " (element [" + text + "] of shape " + shape_string(shape) + ")";
}

void check_range_element(std::string_view input, const Shape& shape, std::int64_t index, std::int64_t value,
                         const plan::ValueRange& range) {
  if (value < range.min || value > range.max)
    throw Error(ErrorKind::kInvalidArgument,
                "input " + element_text(input, shape, index, value) + " is out of range: " +
                    (value < range.min ? "below " + std::to_string(range.min) : "above " + std::to_string(range.max)) +
                    "; it must lie in [" + std::to_string(range.min) + ", " + std::to_string(range.max) +
                    "] (valueRange: min " + std::string(range.min_text) + " = " + std::to_string(range.min) + ", max " +
                    std::string(range.max_text) + " = " + std::to_string(range.max) + ")");
}

}  // namespace

expr::Value attribute_value(const AttributeValue& value) {
  return std::visit(
      [](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::int64_t> || std::is_same_v<X, double> || std::is_same_v<X, std::string>) {
          return expr::Value(x);
        } else {
          expr::List list;
          list.reserve(x.size());
          for (const auto& e : x) list.emplace_back(e);
          return expr::Value(std::move(list));
        }
      },
      value);
}

void check_data_size(std::string_view input, const HostTensor& host) {
  const std::uint64_t want = with_context([&] { return tensor_bytes(host.dtype, host.shape); },
                                          [&] { return "checking input " + std::string(input); });
  if (host.data.size() != want)
    throw Error(ErrorKind::kInvalidArgument,
                "input " + std::string(input) + ": " + std::string(dtype_name(host.dtype)) + " shape " +
                    shape_string(host.shape) + " needs " + std::to_string(want) + " bytes of data, got " +
                    std::to_string(host.data.size()));
}

std::vector<std::byte> narrow_to_u32(std::string_view input, const HostTensor& host,
                                     const plan::ValueRange* range) {
  if (host.dtype != DType::kInt64 && host.dtype != DType::kUInt32)
    throw Error(ErrorKind::kInvalidArgument, "input " + std::string(input) + ": " +
                                                 std::string(dtype_name(host.dtype)) +
                                                 " cannot be narrowed to uint32; expected int64");
  const std::int64_t n = numel(host.shape);
  std::vector<std::byte> words(static_cast<std::size_t>(n) * 4);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t v = element_as_int(host, i);
    // A value below the range's minimum is reported as such (a negative position is below 0, not a narrowing fault).
    if (range && v < range->min) check_range_element(input, host.shape, i, v, *range);
    if (v < 0)
      throw Error(ErrorKind::kInvalidArgument, "input " + element_text(input, host.shape, i, v) +
                                                   " is below 0: the values must be >= 0 (stored as uint32 on the device)");
    if (v > std::int64_t{0xffffffff})
      throw Error(ErrorKind::kInvalidArgument,
                  "input " + element_text(input, host.shape, i, v) +
                      ": checked int64 -> uint32 narrowing needs 0 <= value < 2^32 (WebGPU storage is uint32)");
    if (range) check_range_element(input, host.shape, i, v, *range);
    const auto word = static_cast<std::uint32_t>(v);
    std::memcpy(words.data() + i * 4, &word, 4);
  }
  return words;
}

void check_value_range(std::string_view input, const HostTensor& host, const plan::ValueRange& range) {
  const std::int64_t n = numel(host.shape);
  for (std::int64_t i = 0; i < n; ++i) check_range_element(input, host.shape, i, element_as_int(host, i), range);
}

std::optional<IntRange> int_range(const HostTensor& host) {
  const std::int64_t n = numel(host.shape);
  if ((host.dtype != DType::kInt64 && host.dtype != DType::kUInt32) || n == 0 ||
      host.data.size() != static_cast<std::size_t>(n) * dtype_size(host.dtype))
    return std::nullopt;
  IntRange r{element_as_int(host, 0), element_as_int(host, 0), host.dtype};
  for (std::int64_t i = 1; i < n; ++i) {
    const std::int64_t v = element_as_int(host, i);
    r.min = std::min(r.min, v);
    r.max = std::max(r.max, v);
  }
  return r;
}

}  // namespace wgk::runtime
