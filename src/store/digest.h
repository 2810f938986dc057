#pragma once
// Digests of package bytes (OpenSSL): sha256 for metadata.json's per-file digests, and the git blob
// id (sha1 of "blob <size>\0" + bytes) that names a revision.
#include <string>
#include <string_view>

namespace wgk::store {

/// Lower-case hex sha256 of `bytes`.
std::string sha256_hex(std::string_view bytes);
/// Lower-case hex git blob id of `bytes` (what `git hash-object` prints): 40 hex digits.
std::string git_blob_id(std::string_view bytes);

}  // namespace wgk::store
