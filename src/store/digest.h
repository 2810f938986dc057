#pragma once
// Digests of package bytes (OpenSSL): sha256 for metadata.json's per-file digests, and the git blob
// id (sha1 of "blob <size>\0" + bytes) that names a revision.
#include <filesystem>
#include <string>
#include <string_view>

namespace wgk::store {

/// Lower-case hex sha256 of `bytes`.
std::string sha256_hex(std::string_view bytes);
/// Lower-case hex git blob id of `bytes` (what `git hash-object` prints): 40 hex digits.
std::string git_blob_id(std::string_view bytes);
/// The same of a file's bytes, read in pieces (a cache's blobs may be gigabytes): git's blob id when
/// `git_blob`, else sha256. Throws wgk::Error kIo when the file cannot be read.
std::string file_digest_hex(const std::filesystem::path& path, bool git_blob);

}  // namespace wgk::store
