#pragma once
// Whole-file byte I/O shared by the .npy and .safetensors readers and writers.
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

namespace wgk::io {

/// What a path that exists but is neither a folder nor a regular file is, in words ("a named pipe (FIFO)",
/// "a socket", "a device", else "not a plain file").
std::string special_file_kind(const std::filesystem::file_status& status);
/// The file opened for binary reading. Throws wgk::Error (kIo) naming the path when it is a folder ("a folder,
/// not a file"), not a regular file (a FIFO, socket or device: "a named pipe (FIFO), not a regular file"; a FIFO
/// without a writer would block for ever) or cannot be opened (the system's reason).
std::ifstream open_file(const std::filesystem::path& path);
/// Reads the whole file. Throws wgk::Error (kIo) naming the path when it cannot be opened or read.
std::vector<std::byte> read_file_bytes(const std::filesystem::path& path);
/// Reads the whole file as text (bytes unchanged), with read_file_bytes's errors.
std::string read_file_text(const std::filesystem::path& path);
/// Writes (truncating) the whole file. Throws wgk::Error (kIo) naming the path on failure.
void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace wgk::io
