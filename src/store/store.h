#pragma once
// Package lookup: id + version line, Hub commit or content pin -> verified package bytes
// (docs/design.md; the Hub side: docs/hub.md).
//
// A package is a folder: README.md (the card) and build/webgpu/{manifest.json, metadata.json,
// test.json, bench.json, *.wgsl.jinja}. metadata.json lists every other file with its sha256; a
// package is served only when every listed file exists with that digest (README.md: checked when
// present) and no unlisted file is present under build/webgpu/.
//
// Three names for package bytes, never mixed:
//   version N  - the Hub branch `vN` (HF `kernels`: `version=N`), for embedded packages metadata.json's version;
//   revision   - a Hub commit (40 hex): what `snapshots/<commit>` and the Hub's pages name;
//   content    - the git blob id of build/webgpu/metadata.json: pins every byte through the digests,
//                whatever commit holds them (the embedded packages have only this pin).
//
// Sources, searched in order: Hub cache roots (WGK_KERNEL_PATH entries, then KERNELS_CACHE, then
// HF_HUB_CACHE | HUGGINGFACE_HUB_CACHE | HF_HOME/hub | XDG_CACHE_HOME/huggingface/hub |
// ~/.cache/huggingface/hub), each in the official layout (src/store/hub_cache.h); then, when allowed, the
// Hub itself (src/store/hub_client.h), into the download cache; finally the embedded packages. Not found
// goes on to the next source; tampering stops the search with kIntegrity.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/hub_client.h"

namespace wgk::store {

/// Which package bytes to load: exactly one of the three.
struct PackageRef {
  std::optional<int> version = std::nullopt;           ///< e.g. 1: the Hub branch v1 (follows it as fixes land)
  std::optional<std::string> revision = std::nullopt;  ///< a Hub commit: 40 lower-case hex digits
  std::optional<std::string> content = std::nullopt;   ///< git blob id of build/webgpu/metadata.json: 40 lower-case hex
};

/// A package whose bytes were verified against its metadata.json (and, from a Hub cache, against
/// the blob names).
struct Package {
  std::string id;          ///< "webgpu-kernels/ai.onnx.RotaryEmbedding"
  int version = 0;         ///< metadata.json "version": the contract's version line
  std::string commit;      ///< the Hub commit it was read at; empty for embedded packages and folders
  std::string content_id;  ///< git blob id of build/webgpu/metadata.json (the content pin)
  std::string origin;      ///< "embedded <folder>", the snapshot folder, or the directory it was read from
  std::map<std::string, std::string, std::less<>> files;  ///< path in the package -> bytes

  /// Bytes of a file of the package (e.g. "build/webgpu/manifest.json"). Throws kNotFound.
  const std::string& file(std::string_view path) const;
  /// Bytes of a file beside the manifest (build/webgpu/<name>), e.g. a template. Throws kNotFound.
  const std::string& webgpu_file(std::string_view name) const;
};

/// Verifies `files` (path -> bytes, metadata.json included) as a package: metadata.json parses,
/// names `expected_id` when given, lists every other file with a matching sha256, nothing missing
/// (README.md may be absent: kernels-style partial downloads omit the card) and nothing unlisted.
/// Throws wgk::Error: kIntegrity (digest mismatch, unlisted or missing file, wrong id), kContract
/// (malformed metadata.json), kNotFound (no metadata.json).
std::shared_ptr<const Package> verify_package(std::map<std::string, std::string, std::less<>> files,
                                              std::string origin, std::string_view expected_id = {});

/// The mark of a package folder, checked before any of its files is read, so that a folder that is none (.., /etc)
/// is named as such: build/webgpu/metadata.json is a file in it. Throws wgk::Error (kNotFound "<folder>: no
/// build/webgpu/metadata.json, so not a package folder (...)") when `folder` is a folder without it.
void check_package_folder(const std::filesystem::path& folder);

/// Reads a package folder from disk (README.md and build/webgpu/ beside it) and verifies it.
/// Paths must stay inside the folder (no symlinks out, no ".."); files over 16 MiB are refused. A folder
/// that is not a package (check_package_folder) is refused first, before any of its files is read.
std::shared_ptr<const Package> load_package_directory(const std::filesystem::path& folder);

/// Where the store looks and whether it may use the network.
struct StoreOptions {
  std::vector<std::filesystem::path> roots;  ///< Hub cache roots searched first (WGK_KERNEL_PATH)
  bool official_roots = false;               ///< then KERNELS_CACHE and the HF cache chain
  bool include_embedded = true;              ///< last, the packages compiled into the build
  std::optional<HubOptions> hub;             ///< before them, the Hub (nullopt: never any network)
};

class Store {
 public:
  /// Hub-cache roots searched before the embedded packages; no official roots, no network.
  explicit Store(std::vector<std::filesystem::path> roots = {}, bool include_embedded = true);
  explicit Store(StoreOptions options);
  /// The process-wide store: WGK_KERNEL_PATH roots, the official roots, the Hub as
  /// HubOptions::from_environment() allows (HF_HUB_OFFLINE=1 or WGK_HUB=off: never), the embedded packages.
  /// A Hub attempt that an embedded package could answer is made once, without retries, and an unreachable
  /// endpoint is not tried again for 60 s (hub_client.cpp), so a machine without a network serves them at once.
  static const Store& default_store();

  /// Loads and verifies `id` at `ref`. Exactly one of version/revision/content must be set. Throws
  /// kInvalidArgument (bad id or pin, a negative version), kNotFound (no source has it: the message lists what each
  /// source holds) or kIntegrity (a cached or downloaded byte differs from its blob name or
  /// metadata.json, a link out of blobs/, a ref that is not a commit: the message names the file).
  std::shared_ptr<const Package> load(std::string_view id, const PackageRef& ref) const;
  /// Ids of the embedded packages.
  std::vector<std::string> embedded_ids() const;
  /// The cache roots searched, in order (deduplicated by canonical path).
  const std::vector<std::filesystem::path>& roots() const { return roots_; }
  const StoreOptions& options() const { return options_; }

 private:
  StoreOptions options_;
  std::vector<std::filesystem::path> roots_;
};

}  // namespace wgk::store
