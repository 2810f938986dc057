#pragma once
// .safetensors files (format: huggingface/safetensors README): an 8-byte little-endian header length N,
// N bytes of JSON header {"<name>": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}},
// then the byte buffer the offsets index (relative to the buffer's start).
// Supported dtypes: "F32", "F16", "I64", "U32" (float32, float16, int64, uint32); others are rejected.
#include <cstddef>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgk/tensor.h"

namespace wgk::io {

/// The contents of one .safetensors file: tensors by name, and the free-form string map `__metadata__`.
struct SafetensorsFile {
  std::map<std::string, HostTensor> tensors;
  std::map<std::string, std::string> metadata;
};

/// The safetensors dtype string: "F32", "F16", "I64", "U32".
std::string_view safetensors_dtype(DType dtype);

/// Reads every tensor. Throws wgk::Error (kIo) naming the file, the tensor and the fault: file shorter than
/// 8 bytes; header length past the file or past 100 MB (the safetensors crate's limit); header not valid JSON
/// or not an object; an entry missing or mistyping dtype/shape/data_offsets; unsupported dtype; negative or
/// overflowing shape; begin > end; end past the buffer; end - begin != numel * element size; and, as the
/// format requires, a buffer not covered exactly once (overlapping tensors, holes, or trailing bytes).
/// `__metadata__` must be an object of strings; it is returned in `metadata`.
SafetensorsFile read_safetensors(const std::filesystem::path& path);
/// Same as read_safetensors on bytes already in memory; `source` names them in error messages.
SafetensorsFile decode_safetensors(std::span<const std::byte> bytes, std::string_view source);

/// The dtype of every tensor of the .safetensors file at `path` as numpy names it ("F32" float32, "I32" int32,
/// "F64" float64, "BF16" bfloat16, "BOOL" bool; another as the file spells it), from its header alone: for a
/// caller that refuses a tensor by the rules of its use (an input's type constraint) before the file is read.
/// Entries without a string dtype are left out (read_safetensors names their fault). Throws wgk::Error (kIo) as
/// read_safetensors for a file that cannot be opened or a header that is truncated, too long or not JSON.
std::map<std::string, std::string> read_safetensors_dtype_names(const std::filesystem::path& path);

/// Writes `tensors` (laid out in name order, contiguous) and `metadata` as `__metadata__` (omitted when
/// empty). The JSON header is padded with spaces to a multiple of 8 bytes, as the reference writer does.
/// Throws wgk::Error (kInvalidArgument) when a tensor's data is not numel * element size bytes or a name is
/// "__metadata__" or empty, (kIo) when the file cannot be written.
void write_safetensors(const std::filesystem::path& path, const std::map<std::string, HostTensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});
/// The bytes write_safetensors writes.
std::vector<std::byte> encode_safetensors(const std::map<std::string, HostTensor>& tensors,
                                          const std::map<std::string, std::string>& metadata = {});

}  // namespace wgk::io
