#pragma once
// Whole-file byte I/O shared by the .npy and .safetensors readers and writers.
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <span>
#include <vector>

namespace wgk::io {

/// The file opened for binary reading. Throws wgk::Error (kIo) naming the path when it is a folder ("a folder,
/// not a file") or cannot be opened (the system's reason).
std::ifstream open_file(const std::filesystem::path& path);
/// Reads the whole file. Throws wgk::Error (kIo) naming the path when it cannot be opened or read.
std::vector<std::byte> read_file_bytes(const std::filesystem::path& path);
/// Writes (truncating) the whole file. Throws wgk::Error (kIo) naming the path on failure.
void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace wgk::io
