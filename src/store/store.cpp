#include "store/store.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "store/digest.h"
#include "store/embedded.h"
#include "store/hub_cache.h"
#include "wgk/error.h"

namespace wgk::store {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kMetadata = "build/webgpu/metadata.json";
using hub::is_safe_path;

std::map<std::string, std::string, std::less<>> read_tree(const fs::path& folder) {
  std::map<std::string, std::string, std::less<>> files;
  std::error_code ec;
  const fs::path root = fs::canonical(folder, ec);
  if (ec) throw Error(ErrorKind::kNotFound, "package folder " + folder.string() + ": " + ec.message());
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory()) continue;
    // lexically: fs::relative would follow a symlink and name its target instead of the link.
    const std::string rel = it->path().lexically_relative(root).generic_string();
    if (it->is_symlink()) {
      const fs::path target = fs::canonical(it->path(), ec);
      const std::string target_rel = target.lexically_relative(root).generic_string();
      if (ec || !is_safe_path(target_rel))
        throw Error(ErrorKind::kIntegrity, "package " + folder.string() + ": " + rel + " links outside the package (to " +
                                               (ec ? ec.message() : target.string()) + ")");
    }
    if (!it->is_regular_file()) continue;
    if (files.size() >= 1024) throw Error(ErrorKind::kIntegrity, "package " + folder.string() + " has over 1024 files");
    files.emplace(rel, hub::read_capped(it->path(), ErrorKind::kNotFound));
  }
  if (ec) throw Error(ErrorKind::kIo, "listing " + folder.string() + ": " + ec.message());
  return files;
}

const std::map<std::string, std::map<std::string, std::string, std::less<>>>& embedded_trees() {
  static const auto trees = [] {
    std::map<std::string, std::map<std::string, std::string, std::less<>>> t;
    for (const EmbeddedFile& f : embedded_files())
      t[f.folder].emplace(f.path, std::string(reinterpret_cast<const char*>(f.data), f.size));
    return t;
  }();
  return trees;
}

}  // namespace

const std::string& Package::file(std::string_view path) const {
  auto it = files.find(path);
  if (it == files.end())
    throw Error(ErrorKind::kNotFound, "package " + id + " has no file " + std::string(path));
  return it->second;
}

const std::string& Package::webgpu_file(std::string_view name) const {
  return file("build/webgpu/" + std::string(name));
}

std::shared_ptr<const Package> verify_package(std::map<std::string, std::string, std::less<>> files,
                                              std::string origin, std::string_view expected_id) {
  auto meta_it = files.find(kMetadata);
  if (meta_it == files.end())
    throw Error(ErrorKind::kNotFound, origin + ": no " + std::string(kMetadata));
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(meta_it->second);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kContract, origin + ": " + std::string(kMetadata) + ": " + e.what());
  }
  auto fail = [&](const std::string& what) {
    return Error(ErrorKind::kContract, origin + ": " + std::string(kMetadata) + ": " + what);
  };
  if (!meta.is_object() || !meta.contains("id") || !meta["id"].is_string()) throw fail("`id` must be a string");
  if (!meta.contains("version") || !meta["version"].is_number_integer()) throw fail("`version` must be an integer");
  if (!meta.contains("files") || !meta["files"].is_object()) throw fail("`files` must be an object");

  auto package = std::make_shared<Package>();
  package->id = meta["id"].get<std::string>();
  package->version = meta["version"].get<int>();
  package->content_id = git_blob_id(meta_it->second);
  package->origin = std::move(origin);
  if (!expected_id.empty() && package->id != expected_id)
    throw Error(ErrorKind::kIntegrity, package->origin + ": metadata.json names package " + package->id +
                                           ", expected " + std::string(expected_id));

  std::set<std::string, std::less<>> listed;
  for (const auto& [path, entry] : meta["files"].items()) {
    if (!entry.is_object() || !entry.contains("sha256") || !entry["sha256"].is_string())
      throw fail("files[\"" + path + "\"].sha256 must be a string");
    if (!is_safe_path(path) || path == kMetadata) throw fail("files lists an invalid path \"" + path + "\"");
    listed.insert(path);
    auto it = files.find(path);
    // The card is not a runtime input; kernels-style partial downloads (build/webgpu/* only) omit it.
    if (it == files.end() && path == "README.md") continue;
    if (it == files.end())
      throw Error(ErrorKind::kIntegrity, package->origin + ": " + path + " is listed in metadata.json but missing");
    const std::string actual = sha256_hex(it->second);
    const std::string expected = entry["sha256"].get<std::string>();
    if (actual != expected)
      throw Error(ErrorKind::kIntegrity, package->origin + ": " + path + ": sha256 " + actual +
                                             " differs from metadata.json's " + expected + "; refusing to load it");
  }
  for (const auto& [path, bytes] : files)
    if (path != kMetadata && !listed.count(path))
      throw Error(ErrorKind::kIntegrity, package->origin + ": " + path + " is not listed in metadata.json");
  package->files = std::move(files);
  return package;
}

void check_package_folder(const std::filesystem::path& folder) {
  std::error_code ec;
  if (fs::is_directory(folder, ec) && !fs::is_regular_file(folder / kMetadata, ec))
    throw Error(ErrorKind::kNotFound, folder.string() + ": no " + std::string(kMetadata) +
                                          ", so not a package folder (one holds README.md and build/webgpu/ with "
                                          "metadata.json, manifest.json and the shaders)");
}

std::shared_ptr<const Package> load_package_directory(const std::filesystem::path& folder) {
  // Checked before the files are walked: a folder that is no package is not named by one of its files' size or links.
  check_package_folder(folder);
  return verify_package(read_tree(folder), folder.string());
}

Store::Store(std::vector<std::filesystem::path> roots, bool include_embedded)
    : Store(StoreOptions{.roots = std::move(roots), .official_roots = false, .include_embedded = include_embedded,
                         .hub = std::nullopt}) {}

Store::Store(StoreOptions options) : options_(std::move(options)) {
  std::vector<fs::path> all = options_.roots;
  if (options_.official_roots)
    for (fs::path& r : hub::official_roots()) all.push_back(std::move(r));
  std::set<fs::path> seen;
  for (const fs::path& r : all) {
    std::error_code ec;
    fs::path key = fs::weakly_canonical(r, ec);
    if (ec) key = r;
    if (seen.insert(key).second) roots_.push_back(r);
  }
}

const Store& Store::default_store() {
  static const Store store = [] {
    StoreOptions o;
    o.roots = hub::kernel_path_roots();
    o.official_roots = true;
    o.hub = HubOptions::from_environment();
    return Store(std::move(o));
  }();
  return store;
}

// Older revisions (kernels/revisions/) are served only by their content pin, never by version.
namespace {
bool is_pinned_only(std::string_view folder) { return folder.starts_with("revisions/"); }
}  // namespace

namespace {
// Whether an embedded package answers `ref` (without verifying it).
bool embedded_has(const std::string& id, const PackageRef& ref) {
  if (!ref.version && !ref.content) return false;
  for (const auto& [folder, files] : embedded_trees()) {
    auto it = files.find(kMetadata);
    if (it == files.end()) continue;
    nlohmann::json meta = nlohmann::json::parse(it->second, nullptr, false);
    if (!meta.is_object() || meta.value("id", "") != id) continue;
    if ((ref.version && meta.value("version", 0) == *ref.version && !is_pinned_only(folder)) ||
        (ref.content && git_blob_id(it->second) == *ref.content))
      return true;
  }
  return false;
}
}  // namespace

std::vector<std::string> Store::embedded_ids() const {
  std::vector<std::string> ids;
  for (const auto& [folder, files] : embedded_trees()) {
    if (is_pinned_only(folder)) continue;
    auto it = files.find(kMetadata);
    if (it == files.end()) continue;
    try {
      ids.push_back(nlohmann::json::parse(it->second).at("id").get<std::string>());
    } catch (const nlohmann::json::exception&) {
    }
  }
  return ids;
}

namespace {

// One repo folder of one root: the package at `ref`, nullopt (with a note) when this source lacks it; the content
// id (metadata.json's git blob id) of each incomplete snapshot met is added to *incomplete. Tampering throws
// (hub::read_snapshot, verify_package).
std::shared_ptr<const Package> load_from_repo(const fs::path& repo, std::string_view id, const PackageRef& ref,
                                              std::vector<std::string>& seen,
                                              std::vector<std::string>* incomplete = nullptr) {
  std::vector<std::string> commits;
  if (ref.version) {
    const std::string branch = "v" + std::to_string(*ref.version);
    auto commit = hub::read_ref(repo, branch);
    if (!commit) {
      seen.push_back(repo.string() + " (no refs/" + branch + ")");
      return nullptr;
    }
    commits.push_back(*commit);
  } else if (ref.revision) {
    commits.push_back(*ref.revision);
  } else {  // a content pin: any snapshot whose metadata.json has that blob id
    std::error_code ec;
    for (auto it = fs::directory_iterator(repo / "snapshots", ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (hub::is_sha1_hex(it->path().filename().string())) commits.push_back(it->path().filename().string());
    std::sort(commits.begin(), commits.end());
  }
  for (const std::string& commit : commits) {
    if (hub::marked_absent(repo, commit, kMetadata)) {
      seen.push_back(repo.string() + " (.no_exist: " + std::string(kMetadata) + " does not exist at " + commit + ")");
      continue;
    }
    auto snap = hub::read_snapshot(repo, commit);
    if (!snap) {
      seen.push_back(repo.string() + " (no snapshot " + commit + ")");
      continue;
    }
    if (!snap->files.count(kMetadata)) {
      seen.push_back(snap->folder.string() + " (not a WebGPU package: no " + std::string(kMetadata) + ")");
      continue;
    }
    // A file the package lists but the snapshot lacks is an interrupted or partial download, not a
    // tampered one: the next source may answer (the Hub completes the snapshot; an embedded package only when it
    // is this very package, the same metadata.json).
    std::vector<std::string> missing = snap->missing;
    if (auto meta = nlohmann::json::parse(snap->files.at(std::string(kMetadata)), nullptr, false);
        meta.is_object() && meta.contains("files") && meta["files"].is_object())
      for (const auto& [path, entry] : meta["files"].items())
        if (path != "README.md" && is_safe_path(path) && !snap->files.count(path) &&
            std::find(missing.begin(), missing.end(), path) == missing.end())
          missing.push_back(path);
    if (!missing.empty()) {
      std::string list;
      for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
      seen.push_back(snap->folder.string() + " (incomplete: lacks " + list + "; `wgk download " + std::string(id) +
                     " --revision " + commit + "` completes it)");
      if (incomplete) incomplete->push_back(git_blob_id(snap->files.at(std::string(kMetadata))));
      continue;
    }
    auto verified = verify_package(std::move(snap->files), snap->folder.string(), id);
    auto package = std::make_shared<Package>(*verified);
    package->commit = commit;
    if (ref.content && package->content_id != *ref.content) {
      seen.push_back(snap->folder.string() + " (content " + package->content_id + ")");
      continue;
    }
    if (ref.version && package->version != *ref.version)
      throw Error(ErrorKind::kIntegrity, snap->folder.string() + ": refs/v" + std::to_string(*ref.version) +
                                             " points at a package of version " + std::to_string(package->version));
    return package;
  }
  return nullptr;
}

}  // namespace

std::shared_ptr<const Package> Store::load(std::string_view id, const PackageRef& ref) const {
  const std::string id_text(id);
  const int pins = ref.version.has_value() + ref.revision.has_value() + ref.content.has_value();
  if (pins != 1)
    throw Error(ErrorKind::kInvalidArgument,
                "loading " + id_text + ": give exactly one of `version` (e.g. 1: the Hub branch v1), `revision` (a "
                                       "Hub commit, 40 hex digits) or `content` (the git blob id of metadata.json)");
  for (const auto* pin : {&ref.revision, &ref.content})
    if (pin->has_value() && !hub::is_sha1_hex(**pin))
      throw Error(ErrorKind::kInvalidArgument, "loading " + id_text + ": " +
                                                   (pin == &ref.revision ? "revision" : "content pin") + " \"" +
                                                   **pin + "\" is not 40 lower-case hex digits");
  if (ref.version && *ref.version < 0)
    throw Error(ErrorKind::kInvalidArgument, "loading " + id_text + ": version " + std::to_string(*ref.version) +
                                                 " names no Hub branch (a version is N >= 0 of the branch vN)");
  hub::check_repo_id(id);
  const std::string wanted = ref.version    ? "version " + std::to_string(*ref.version)
                             : ref.revision ? "revision " + *ref.revision
                                            : "content " + *ref.content;
  std::vector<std::string> seen;  // what exists, for the not-found message
  // Content ids of the incomplete snapshots the cache's refs/vN or the revision named: the package the caller's
  // cache says this ref is. An embedded package of another content is not served in its place.
  std::vector<std::string> incomplete;

  if (ref.version && options_.hub && options_.hub->refresh_versions && !options_.hub->offline) {
    HubOptions quick = *options_.hub;
    quick.max_retries = 0;  // a local copy may answer: do not wait for a struggling network
    try {
      const HubDownload d = hub_download(id, ref.version, std::nullopt, quick);
      if (auto package = load_from_repo(d.repo, id, PackageRef{.revision = d.commit}, seen)) return package;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kNotFound) throw;
      seen.push_back(std::string("the Hub (WGK_HUB_REFRESH): ") + e.what());
    }
  }

  std::string roots_without;  // the cache roots that hold no folder of this repo, for the message
  for (const fs::path& root : roots_) {
    bool has_repo = false;
    for (const std::string& type : hub::repo_types()) {
      const fs::path repo = root / hub::repo_folder(type, id);
      std::error_code ec;
      if (!fs::is_directory(repo, ec)) continue;
      has_repo = true;
      if (auto package = load_from_repo(repo, id, ref, seen, ref.content ? nullptr : &incomplete)) return package;
    }
    std::error_code ec;
    if (!has_repo) roots_without += (roots_without.empty() ? "" : ", ") + root.string() + (fs::is_directory(root, ec) ? "" : " (absent)");
  }
  if (!roots_without.empty())
    seen.push_back("no " + hub::repo_folder(hub::repo_types().front(), id) + " (nor " +
                   hub::repo_folder(hub::repo_types().back(), id) + ") folder in the Hub cache " + roots_without);
  else if (roots_.empty())
    seen.push_back("no Hub cache root to search");

  if (options_.hub && (ref.version || ref.revision)) {
    // With an embedded package to fall back on, one attempt only (huggingface_hub: no retry when a
    // cached copy may exist), so that a machine without a network serves it at once.
    HubOptions o = *options_.hub;
    if (options_.include_embedded && embedded_has(id_text, ref)) o.max_retries = 0;
    try {
      HubDownload d = hub_download(id, ref.version, ref.revision, o);
      std::vector<std::string> ignored;
      if (auto package = load_from_repo(d.repo, id, PackageRef{std::nullopt, d.commit, std::nullopt}, ignored)) {
        if (ref.version && package->version != *ref.version)
          throw Error(ErrorKind::kIntegrity, d.snapshot.string() + ": branch v" + std::to_string(*ref.version) +
                                                 " holds a package of version " + std::to_string(package->version));
        return package;
      }
      seen.push_back(d.snapshot.string() + " (fetched, but not loadable)");
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kNotFound) throw;
      seen.push_back(std::string("the Hub: ") + e.what());
    }
  }

  if (options_.include_embedded) {
    for (const auto& [folder, files] : embedded_trees()) {
      auto it = files.find(kMetadata);
      if (it == files.end()) continue;
      nlohmann::json meta = nlohmann::json::parse(it->second, nullptr, false);
      if (!meta.is_object() || meta.value("id", "") != id_text) continue;
      const int version = meta.value("version", 0);
      const std::string content = git_blob_id(it->second);
      seen.push_back("embedded version " + std::to_string(version) + " content " + content +
                     (is_pinned_only(folder) ? " (older, by content pin only)" : "") + " (no Hub commit recorded)");
      const bool version_match = ref.version && version == *ref.version && !is_pinned_only(folder);
      if (version_match && !incomplete.empty() && std::find(incomplete.begin(), incomplete.end(), content) == incomplete.end()) {
        seen.push_back("(the embedded version " + std::to_string(version) +
                       " is not served for it: its content differs from the incomplete snapshot's, " + incomplete.front() + ")");
        continue;
      }
      if (version_match || (ref.content && content == *ref.content)) return verify_package(files, "embedded " + folder, id);
    }
  }

  std::string message = "no package " + id_text + " at " + wanted + "; searched:";
  for (std::size_t i = 0; i < seen.size(); ++i) message += (i ? "; " : " ") + seen[i];
  if (seen.empty()) message += " no source that holds it";
  if (std::none_of(seen.begin(), seen.end(), [](const std::string& s) { return s.starts_with("embedded "); })) {
    message += "; known packages:";
    for (const std::string& known : embedded_ids()) message += " " + known;
  }
  if (ref.revision && options_.include_embedded)
    message += " (a revision is a Hub commit; the embedded packages have only a content pin: {.content = \"<git blob id "
               "of metadata.json>\"})";
  throw Error(ErrorKind::kNotFound, message);
}

}  // namespace wgk::store
