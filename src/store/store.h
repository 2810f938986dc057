#pragma once
// Package lookup: id + version line or exact revision -> verified package bytes (docs/design.md).
//
// A package is a folder: README.md (the card) and build/webgpu/{manifest.json, metadata.json,
// test.json, bench.json, *.wgsl.jinja}. metadata.json lists every other file with its sha256; a
// package is served only when every listed file exists with that digest and no unlisted file is
// present. A revision is the git blob id of build/webgpu/metadata.json (40 hex digits: what
// `git hash-object` prints), so it pins every byte of the package through the digests.
//
// Sources, searched in order: directories in the hub-cache layout
// (<root>/models--<org>--<name>/refs/v<version> holding a revision, snapshots/<revision>/<files>),
// given explicitly or by WGK_KERNEL_PATH (colon-separated); then the packages embedded in the build.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wgk::store {

/// Which package bytes to load: the newest of a version line, or one exact revision.
struct PackageRef {
  std::optional<int> version;           ///< e.g. 1: follows the v1 line
  std::optional<std::string> revision;  ///< 40 lower-case hex digits
};

/// A package whose bytes were verified against its metadata.json.
struct Package {
  std::string id;        ///< "webgpu-kernels/ai.onnx.RotaryEmbedding"
  int version = 0;       ///< metadata.json "version": the contract's version line
  std::string revision;  ///< git blob id of build/webgpu/metadata.json
  std::string origin;    ///< "embedded" or the directory it was read from
  std::map<std::string, std::string, std::less<>> files;  ///< path in the package -> bytes

  /// Bytes of a file of the package (e.g. "build/webgpu/manifest.json"). Throws kNotFound.
  const std::string& file(std::string_view path) const;
  /// Bytes of a file beside the manifest (build/webgpu/<name>), e.g. a template. Throws kNotFound.
  const std::string& webgpu_file(std::string_view name) const;
};

/// Verifies `files` (path -> bytes, metadata.json included) as a package: metadata.json parses,
/// names `expected_id` when given, lists every other file with a matching sha256 and nothing
/// missing. Throws wgk::Error: kIntegrity (digest mismatch, unlisted or missing file, revision
/// mismatch), kContract (malformed metadata.json), kNotFound.
std::shared_ptr<const Package> verify_package(std::map<std::string, std::string, std::less<>> files,
                                              std::string origin, std::string_view expected_id = {});

/// Reads a package folder from disk (README.md and build/webgpu/ beside it) and verifies it.
/// Paths must stay inside the folder (no symlinks out, no ".."); files over 16 MiB are refused.
std::shared_ptr<const Package> load_package_directory(const std::filesystem::path& folder);

class Store {
 public:
  /// Hub-cache roots searched before the embedded packages.
  explicit Store(std::vector<std::filesystem::path> roots = {}, bool include_embedded = true);
  /// The process-wide store: WGK_KERNEL_PATH roots, then the embedded packages.
  static const Store& default_store();

  /// Loads and verifies `id` at `ref`. Exactly one of version/revision must be set. Throws
  /// kNotFound (unknown id, no such version or revision: the message lists what exists) or
  /// kIntegrity (bytes differ from metadata.json or from the pinned revision).
  std::shared_ptr<const Package> load(std::string_view id, const PackageRef& ref) const;
  /// Ids of the embedded packages.
  std::vector<std::string> embedded_ids() const;

 private:
  std::vector<std::filesystem::path> roots_;
  bool include_embedded_;
};

}  // namespace wgk::store
