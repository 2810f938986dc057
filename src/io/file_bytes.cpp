#include "io/file_bytes.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "wgk/error.h"

namespace wgk::io {

std::ifstream open_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(ErrorKind::kIo, path.string() + ": a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::kIo, path.string() + ": cannot open for reading (" + std::strerror(errno) + ")");
  return in;
}

std::vector<std::byte> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in = open_file(path);
  std::vector<std::byte> bytes;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    const auto got = static_cast<std::size_t>(in.gcount());
    const auto* first = reinterpret_cast<const std::byte*>(buffer);
    bytes.insert(bytes.end(), first, first + got);
  }
  if (in.bad()) throw Error(ErrorKind::kIo, path.string() + ": read failed");
  return bytes;
}

void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorKind::kIo, path.string() + ": cannot open for writing (" + std::strerror(errno) + ")");
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error(ErrorKind::kIo, path.string() + ": write failed after " + std::to_string(bytes.size()) + " bytes");
}

}  // namespace wgk::io
