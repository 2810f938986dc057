#pragma once
// Reading the Hugging Face Hub cache as the official clients write it (huggingface_hub
// file_download.py, @huggingface/hub, hub-docs local-cache.md; docs/hub.md):
//
//   <root>/kernels--<org>--<name>/        (repo type "kernel", huggingface_hub >= 1.10), or models--<org>--<name>/
//     blobs/<etag>                        git blob sha1 (40 hex) or, for LFS files, sha256 (64 hex) of the bytes
//     refs/<branch>                       the commit, 40 hex, no newline (refs/v1 for `version: 1`)
//     snapshots/<commit>/<path>           relative symlink to ../../blobs/<etag> (depth-adjusted), or a copy
//     trees/<commit>.json                 the commit's full listing (huggingface_hub >= PR #4394)
//     .no_exist/<commit>/<path>           "path does not exist at commit"
//
// Package files in a snapshot are build/webgpu/** and README.md; every other repo file (.gitattributes,
// other build variants) is ignored, but its entry must still be a regular file or a link into blobs/.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wgk/error.h"

namespace wgk::store::hub {

namespace fs = std::filesystem;

/// Refuses an id that is not "<org>/<name>" with segments of [A-Za-z0-9._-], no "--" and no leading
/// or trailing '-' or '.' (the Hub's repo id rules, huggingface_hub validate_repo_id). kInvalidArgument.
void check_repo_id(std::string_view id);
/// 40 lower-case hex digits: a commit or a git blob id.
bool is_sha1_hex(std::string_view s);
/// A blob name: 40 (git blob sha1) or 64 (sha256, LFS) lower-case hex digits.
bool is_blob_name(std::string_view s);
/// A repo-relative path with '/' separators and no empty, "." or ".." component, no '\\', not absolute.
bool is_safe_path(std::string_view path);
/// build/webgpu/** or README.md: the files of a package in a Hub repo.
bool is_package_path(std::string_view path);
/// The bytes of a package file on disk, at most 16 MiB (kIntegrity past that). A file that cannot be read
/// is `missing` (kIo in a Hub cache, where the layout promised it; kNotFound in a package folder).
std::string read_capped(const fs::path& path, ErrorKind missing = ErrorKind::kIo);
/// "kernels--org--name" for type "kernels" (repo_folder_name in huggingface_hub).
std::string repo_folder(std::string_view type, std::string_view id);
/// The types probed, in order: "kernels" (the Kernel Hub), then "models" (legacy kernel repos).
const std::vector<std::string>& repo_types();

/// os.path.expandvars(os.path.expanduser(value)) as Python's posixpath does it, which huggingface_hub applies to
/// HF_HOME, HF_HUB_CACHE and HF_TOKEN_PATH (constants.py): a leading "~" (alone or before '/') is $HOME, or the
/// passwd entry's home when HOME is unset; "~user" that user's home, unchanged when there is no such user; then
/// every $NAME or ${NAME} (NAME of ASCII letters, digits, '_'; any text but '}' inside braces) of a set variable is
/// its value, once (a value's own '$' is not expanded again), and one of an unset variable stays as written.
std::string expand_user_and_vars(std::string_view value);
/// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface, expanded as above (constants.py);
/// an empty variable counts as unset. Empty when nothing gives a home (no HOME and no passwd entry).
fs::path hf_home();

/// WGK_KERNEL_PATH entries (colon-separated).
std::vector<fs::path> kernel_path_roots();
/// KERNELS_CACHE (as written: kernels passes it on unexpanded), then the first of HF_HUB_CACHE,
/// HUGGINGFACE_HUB_CACHE, hf_home()/hub, expanded as constants.py expands HF_HUB_CACHE (kernels hf_hub.py).
std::vector<fs::path> official_roots();
/// Where downloads go: KERNELS_CACHE if set, else the HF cache of the chain above.
fs::path download_root();

/// Reads refs/<name> of `repo`. nullopt when absent; kIntegrity when it is not a regular file or does
/// not hold a commit (surrounding ASCII whitespace is tolerated on read, as kernels' _versions.py does).
std::optional<std::string> read_ref(const fs::path& repo, std::string_view name);

/// A snapshot's package files, checked against their blob names.
struct Snapshot {
  std::string commit;
  fs::path folder;                                        ///< <repo>/snapshots/<commit>
  std::map<std::string, std::string, std::less<>> files;  ///< package path -> bytes
  std::vector<std::string> ignored;                       ///< repo files that are not the package's
  /// Files of build/webgpu/ that trees/<commit>.json lists but the snapshot lacks (an interrupted download).
  std::vector<std::string> missing;
};

/// Reads snapshots/<commit> of `repo` (a folder under a cache root). nullopt when the snapshot does
/// not exist. Throws kIntegrity naming the file for: a symlinked directory, a link that does not
/// resolve to <repo>/blobs/<40|64 hex> as a regular file, bytes that do not hash to the blob name (or
/// to trees/<commit>.json's blob_id for copies), more than 1024 files, a file over 16 MiB. A file of
/// build/webgpu/ that trees/<commit>.json lists but the snapshot lacks is recorded in Snapshot::missing.
std::optional<Snapshot> read_snapshot(const fs::path& repo, std::string_view commit);

/// True when .no_exist/<commit>/<path> marks the path as absent at that commit.
bool marked_absent(const fs::path& repo, std::string_view commit, std::string_view path);

/// A repo folder of a cache root, for `wgk cache list` / `verify`.
struct CachedRepo {
  fs::path folder;
  std::string type;  ///< "kernels" or "models"
  std::string id;    ///< "org/name"
  std::map<std::string, std::string> refs;  ///< branch -> commit (as read; may be malformed)
  std::vector<std::string> snapshots;       ///< commit folder names
};
/// Lists the kernels-- and models-- folders of `root` (other repo types are not packages).
std::vector<CachedRepo> scan_root(const fs::path& root);

}  // namespace wgk::store::hub
