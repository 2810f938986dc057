#include "io/safetensors.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <nlohmann/json.hpp>

#include "io/file_bytes.h"
#include "wgk/error.h"

namespace wgk::io {
namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;  // safetensors crate: MAX_HEADER_SIZE
constexpr std::size_t kPrefix = 8;

[[noreturn]] void fail(std::string_view source, const std::string& what) {
  throw Error(ErrorKind::kIo, std::string(source) + ": " + what);
}

std::optional<DType> dtype_from_string(std::string_view s) {
  if (s == "F32") return DType::kFloat32;
  if (s == "F16") return DType::kFloat16;
  if (s == "I64") return DType::kInt64;
  if (s == "U32") return DType::kUInt32;
  return std::nullopt;
}

// The JSON header of `bytes` (the 8-byte length, then the header; the buffer may follow), or the fault naming
// `source`; its length in *length.
nlohmann::json parse_header(std::span<const std::byte> bytes, std::string_view source, std::uint64_t* length) {
  if (bytes.size() < kPrefix)
    fail(source, "not a .safetensors file: " + std::to_string(bytes.size()) + " bytes, shorter than the 8-byte header length");
  std::uint64_t header_len = 0;
  for (std::size_t i = 0; i < kPrefix; ++i) header_len |= std::to_integer<std::uint64_t>(bytes[i]) << (8 * i);
  if (header_len > kMaxHeaderBytes)
    fail(source, ".safetensors header length " + std::to_string(header_len) + " exceeds the limit of " +
                     std::to_string(kMaxHeaderBytes) + " bytes");
  if (header_len > bytes.size() - kPrefix)
    fail(source, "truncated .safetensors header: header length " + std::to_string(header_len) + " but only " +
                     std::to_string(bytes.size() - kPrefix) + " bytes follow");
  const auto* text = reinterpret_cast<const char*>(bytes.data() + kPrefix);
  nlohmann::json header;
  try {
    // nlohmann keeps the last of two equal keys; the safetensors crate refuses such a file (its offsets then
    // leave a hole: safetensors issue #401), so a repeated tensor name (top-level key) is refused by name.
    int depth = 0;
    std::set<std::string> names;
    std::optional<std::string> repeated;
    const auto callback = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
      if (event == nlohmann::json::parse_event_t::object_start) ++depth;
      if (event == nlohmann::json::parse_event_t::object_end) --depth;
      if (event == nlohmann::json::parse_event_t::key && depth == 1 && !names.insert(parsed.get<std::string>()).second &&
          !repeated)
        repeated = parsed.get<std::string>();
      return true;
    };
    header = nlohmann::json::parse(text, text + header_len, callback);
    if (repeated) fail(source, ".safetensors header names tensor '" + *repeated + "' twice (each name must be unique)");
  } catch (const nlohmann::json::exception& e) {
    fail(source, std::string(".safetensors header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail(source, ".safetensors header is not a JSON object but " + std::string(header.type_name()));

  *length = header_len;
  return header;
}

struct Entry {
  std::string name;
  std::uint64_t begin = 0, end = 0;
};

}  // namespace

std::string_view safetensors_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "F32";
    case DType::kFloat16: return "F16";
    case DType::kInt64: return "I64";
    case DType::kUInt32: return "U32";
  }
  return "?";
}

SafetensorsFile decode_safetensors(std::span<const std::byte> bytes, std::string_view source) {
  std::uint64_t header_len = 0;
  const nlohmann::json header = parse_header(bytes, source, &header_len);
  const std::span<const std::byte> buffer = bytes.subspan(kPrefix + header_len);
  SafetensorsFile file;
  std::vector<Entry> entries;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) fail(source, "__metadata__ is not a JSON object but " + std::string(value.type_name()));
      for (const auto& [key, v] : value.items()) {
        if (!v.is_string()) fail(source, "__metadata__." + key + " is not a string but " + std::string(v.type_name()));
        file.metadata[key] = v.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + name + "'";
    if (!value.is_object()) fail(source, where + " is not a JSON object");
    for (const auto& [key, unused] : value.items())
      if (key != "dtype" && key != "shape" && key != "data_offsets") fail(source, where + " has unexpected key '" + key + "'");
    const auto dtype_it = value.find("dtype");
    if (dtype_it == value.end() || !dtype_it->is_string()) fail(source, where + ": \"dtype\" missing or not a string");
    const std::string dtype_string = dtype_it->get<std::string>();
    const std::optional<DType> dtype = dtype_from_string(dtype_string);
    if (!dtype) fail(source, where + ": unsupported dtype \"" + dtype_string + "\" (supported: F32, F16, I64, U32)");

    const auto shape_it = value.find("shape");
    if (shape_it == value.end() || !shape_it->is_array()) fail(source, where + ": \"shape\" missing or not an array");
    Shape shape;
    for (const auto& d : *shape_it) {
      if (!d.is_number_unsigned()) fail(source, where + ": shape " + shape_it->dump() + " has an entry that is not a non-negative integer");
      const auto dim = d.get<std::uint64_t>();
      if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail(source, where + ": shape " + shape_it->dump() + " has a dimension past int64");
      shape.push_back(static_cast<std::int64_t>(dim));
    }
    std::int64_t count = 0;
    try {
      count = numel(shape);
    } catch (const Error& e) {
      fail(source, where + ": " + e.what());
    }

    const auto offsets_it = value.find("data_offsets");
    if (offsets_it == value.end() || !offsets_it->is_array() || offsets_it->size() != 2 ||
        !(*offsets_it)[0].is_number_unsigned() || !(*offsets_it)[1].is_number_unsigned())
      fail(source, where + ": \"data_offsets\" missing or not two non-negative integers");
    const auto begin = (*offsets_it)[0].get<std::uint64_t>();
    const auto end = (*offsets_it)[1].get<std::uint64_t>();
    if (begin > end) fail(source, where + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "] has begin > end");
    if (end > buffer.size())
      fail(source, where + ": data_offsets end " + std::to_string(end) + " is past the data buffer of " +
                       std::to_string(buffer.size()) + " bytes (file truncated?)");
    const std::uint64_t element = dtype_size(*dtype);
    if (static_cast<std::uint64_t>(count) > (end - begin) / element || static_cast<std::uint64_t>(count) * element != end - begin)
      fail(source, where + ": shape " + shape_string(shape) + " of " + dtype_string + " needs " + std::to_string(count) + " * " +
                       std::to_string(element) + " bytes, data_offsets [" + std::to_string(begin) + ", " +
                       std::to_string(end) + "] span " + std::to_string(end - begin));
    HostTensor t{*dtype, std::move(shape), {}};
    t.data.assign(buffer.begin() + static_cast<std::ptrdiff_t>(begin), buffer.begin() + static_cast<std::ptrdiff_t>(end));
    file.tensors.emplace(name, std::move(t));
    entries.push_back({name, begin, end});
  }

  // The format requires the buffer to be indexed entirely, without holes or overlaps.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < covered)
      fail(source, "tensor '" + e.name + "' data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                       "] overlap tensor '" + previous->name + "' [" + std::to_string(previous->begin) + ", " +
                       std::to_string(previous->end) + "]");
    if (e.begin > covered)
      fail(source, "data buffer bytes [" + std::to_string(covered) + ", " + std::to_string(e.begin) +
                       ") belong to no tensor (hole before tensor '" + e.name + "')");
    covered = e.end;
    previous = &e;
  }
  if (covered != buffer.size())
    fail(source, "data buffer has " + std::to_string(buffer.size()) + " bytes but tensors cover only [0, " +
                     std::to_string(covered) + ")");
  return file;
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  return decode_safetensors(read_file_bytes(path), path.string());
}

std::map<std::string, std::string> read_safetensors_dtype_names(const std::filesystem::path& path) {
  std::ifstream in = open_file(path);
  std::vector<std::byte> head(kPrefix);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(kPrefix));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.size() == kPrefix) {
    std::uint64_t header_len = 0;
    for (std::size_t i = 0; i < kPrefix; ++i) header_len |= std::to_integer<std::uint64_t>(head[i]) << (8 * i);
    head.resize(kPrefix + std::min(header_len, kMaxHeaderBytes + 1));
    in.read(reinterpret_cast<char*>(head.data() + kPrefix), static_cast<std::streamsize>(head.size() - kPrefix));
    head.resize(kPrefix + static_cast<std::size_t>(in.gcount()));
  }
  std::uint64_t header_len = 0;
  std::map<std::string, std::string> out;
  const nlohmann::json header = parse_header(head, path.string(), &header_len);
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__" || !value.is_object()) continue;
    const auto dtype = value.find("dtype");
    if (dtype == value.end() || !dtype->is_string()) continue;
    // numpy's names: F64 float64, I32 int32, U8 uint8, BF16 bfloat16, BOOL bool; another (F8_E4M3) as it is.
    const std::string s = dtype->get<std::string>();
    const std::size_t digits = s.find_first_of("0123456789");
    const std::string kind = s.substr(0, digits == std::string::npos ? s.size() : digits);
    const std::string bits = digits == std::string::npos ? "" : s.substr(digits);
    const bool plain = !bits.empty() && bits.find_first_not_of("0123456789") == std::string::npos;
    if (s == "BOOL") out[name] = "bool";
    else if (plain && kind == "F") out[name] = "float" + bits;
    else if (plain && kind == "BF") out[name] = "bfloat" + bits;
    else if (plain && kind == "I") out[name] = "int" + bits;
    else if (plain && kind == "U") out[name] = "uint" + bits;
    else out[name] = s;
  }
  return out;
}

std::vector<std::byte> encode_safetensors(const std::map<std::string, HostTensor>& tensors,
                                          const std::map<std::string, std::string>& metadata) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (name.empty() || name == "__metadata__")
      throw Error(ErrorKind::kInvalidArgument, "encode_safetensors: tensor name \"" + name + "\" is reserved or empty");
    const std::int64_t count = numel(t.shape);
    const std::uint64_t size = static_cast<std::uint64_t>(count) * dtype_size(t.dtype);
    if (t.data.size() != size)
      throw Error(ErrorKind::kInvalidArgument, "encode_safetensors: tensor '" + name + "' of shape " + shape_string(t.shape) +
                                                   " and dtype " + std::string(dtype_name(t.dtype)) + " needs " +
                                                   std::to_string(size) + " data bytes, has " + std::to_string(t.data.size()));
    header[name] = {{"dtype", safetensors_dtype(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + size}}};
    offset += size;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<std::byte> out;
  out.reserve(kPrefix + text.size() + offset);
  for (std::size_t i = 0; i < kPrefix; ++i) out.push_back(static_cast<std::byte>((text.size() >> (8 * i)) & 0xff));
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  for (const auto& [name, t] : tensors) out.insert(out.end(), t.data.begin(), t.data.end());
  return out;
}

void write_safetensors(const std::filesystem::path& path, const std::map<std::string, HostTensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  write_file_bytes(path, encode_safetensors(tensors, metadata));
}

}  // namespace wgk::io
