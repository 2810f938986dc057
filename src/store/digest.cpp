#include "store/digest.h"

#include <openssl/evp.h>

#include <fstream>
#include <istream>
#include <memory>
#include <vector>

#include "wgk/error.h"

namespace wgk::store {
namespace {

// `parts`, then (when given) the rest of `stream` read in 1 MiB pieces, through `md`, as hex.
std::string digest_hex(const EVP_MD* md, std::initializer_list<std::string_view> parts, std::istream* stream = nullptr) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  bool ok = ctx && EVP_DigestInit_ex(ctx.get(), md, nullptr) == 1;
  for (std::string_view part : parts) ok = ok && EVP_DigestUpdate(ctx.get(), part.data(), part.size()) == 1;
  if (stream) {
    std::vector<char> piece(1 << 20);
    while (ok && *stream) {
      stream->read(piece.data(), static_cast<std::streamsize>(piece.size()));
      ok = EVP_DigestUpdate(ctx.get(), piece.data(), static_cast<std::size_t>(stream->gcount())) == 1;
    }
    ok = ok && stream->eof();
  }
  ok = ok && EVP_DigestFinal_ex(ctx.get(), out, &size) == 1;
  if (!ok) throw Error(ErrorKind::kInternal, "OpenSSL digest failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[out[i] >> 4];
    hex += kHex[out[i] & 15];
  }
  return hex;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) { return digest_hex(EVP_sha256(), {bytes}); }

std::string git_blob_id(std::string_view bytes) {
  const std::string header = "blob " + std::to_string(bytes.size());
  return digest_hex(EVP_sha1(), {header, std::string_view("\0", 1), bytes});
}

std::string file_digest_hex(const std::filesystem::path& path, bool git_blob) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) throw Error(ErrorKind::kIo, "cannot read " + path.string() + (ec ? ": " + ec.message() : ""));
  if (!git_blob) return digest_hex(EVP_sha256(), {}, &in);
  const std::string header = "blob " + std::to_string(size);
  return digest_hex(EVP_sha1(), {header, std::string_view("\0", 1)}, &in);
}

}  // namespace wgk::store
