#pragma once
// NumPy .npy files (format spec: numpy.lib.format, "NEP 1"): one array per file.
// Read: format versions 1.0, 2.0 and 3.0. Write: version 1.0 (2.0 only if the header exceeds 65535 bytes).
// Supported dtypes, little-endian, C order: '<f4' float32, '<f2' float16, '<i8' int64, '<u4' uint32.
// Nothing is converted: any other dtype ('<f8', '<i4', '>f4', structured, object) is rejected.
#include <cstddef>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "wgk/tensor.h"

namespace wgk::io {

/// numpy's descr string for a dtype: "<f4", "<f2", "<i8", "<u4".
std::string_view npy_descr(DType dtype);

/// Reads a .npy file. Throws wgk::Error (kIo) naming the file and the fault: cannot open, bad magic,
/// unsupported format version, header length past the file or past 1 MiB, malformed header dict,
/// unsupported or big-endian dtype, fortran_order True, negative or overflowing shape, and data size
/// mismatch ("expected N data bytes, found M": truncated or trailing bytes).
HostTensor read_npy(const std::filesystem::path& path);
/// Same as read_npy on bytes already in memory; `source` names them in error messages.
HostTensor decode_npy(std::span<const std::byte> bytes, std::string_view source);

/// The dtype of the .npy file at `path` as numpy names it, byte order aside ("float32", "int64", "int32",
/// "float64", "bool"; the descr itself for another kind), from its preamble and header alone: for a caller that
/// refuses a file by the rules of its use (an input's type constraint) before it is read. Throws wgk::Error
/// (kIo) as read_npy for a file that cannot be opened or a malformed preamble or header. `big_endian`, when
/// given, is set to whether the file stores its elements big-endian (descr '>...'), which read_npy refuses.
std::string read_npy_dtype_name(const std::filesystem::path& path, bool* big_endian = nullptr);

/// Writes `tensor` as a version 1.0 .npy file (header padded so data starts at a multiple of 64 bytes,
/// as numpy does). Throws wgk::Error (kInvalidArgument) when tensor.data is not numel * element size
/// bytes, (kIo) when the file cannot be written.
void write_npy(const std::filesystem::path& path, const HostTensor& tensor);
/// The bytes write_npy writes.
std::vector<std::byte> encode_npy(const HostTensor& tensor);

}  // namespace wgk::io
