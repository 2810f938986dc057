#include "io/file_bytes.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "wgk/error.h"

namespace wgk::io {

std::string special_file_kind(const std::filesystem::file_status& status) {
  switch (status.type()) {
    case std::filesystem::file_type::fifo: return "a named pipe (FIFO)";
    case std::filesystem::file_type::socket: return "a socket";
    case std::filesystem::file_type::block:
    case std::filesystem::file_type::character: return "a device";
    default: return "not a plain file";
  }
}

std::ifstream open_file(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status)) throw Error(ErrorKind::kIo, path.string() + ": a folder, not a file");
  // A named pipe with no writer would block open() for ever; devices and sockets are not files either.
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw Error(ErrorKind::kIo, path.string() + ": " + special_file_kind(status) + ", not a regular file");
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

std::string read_file_text(const std::filesystem::path& path) {
  const std::vector<std::byte> bytes = read_file_bytes(path);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorKind::kIo, path.string() + ": cannot open for writing (" + std::strerror(errno) + ")");
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error(ErrorKind::kIo, path.string() + ": write failed after " + std::to_string(bytes.size()) + " bytes");
}

}  // namespace wgk::io
