#include "store/store.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "store/digest.h"
#include "store/embedded.h"
#include "wgk/error.h"

namespace wgk::store {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kMetadata = "build/webgpu/metadata.json";
constexpr std::uintmax_t kMaxFileBytes = 16u << 20;

bool is_revision(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// A package path is relative, uses '/', and has no empty, "." or ".." component.
bool is_safe_path(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.find('\\') != std::string_view::npos) return false;
    start = end + 1;
  }
  return true;
}

std::string read_file(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw Error(ErrorKind::kNotFound, "cannot read " + path.string() + ": " + ec.message());
  if (size > kMaxFileBytes)
    throw Error(ErrorKind::kIntegrity, path.string() + ": " + std::to_string(size) + " bytes, over the " +
                                           std::to_string(kMaxFileBytes) + "-byte limit for a package file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in && !in.eof()) throw Error(ErrorKind::kIo, "cannot read " + path.string());
  return bytes.str();
}

// Hub-cache folder name of an id: "webgpu-kernels/ai.onnx.RotaryEmbedding" -> "models--webgpu-kernels--ai.onnx.RotaryEmbedding".
std::string hub_folder(std::string_view id) {
  std::string name = "models--";
  for (char c : id) {
    if (c == '/') name += "--";
    else name += c;
  }
  return name;
}

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
    files.emplace(rel, read_file(it->path()));
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
  package->revision = git_blob_id(meta_it->second);
  package->origin = std::move(origin);
  if (!expected_id.empty() && package->id != expected_id)
    throw Error(ErrorKind::kIntegrity, package->origin + ": metadata.json names package " + package->id +
                                           ", expected " + std::string(expected_id));

  std::set<std::string, std::less<>> listed;
  for (const auto& [path, entry] : meta["files"].items()) {
    if (!entry.is_object() || !entry.contains("sha256") || !entry["sha256"].is_string())
      throw fail("files[\"" + path + "\"].sha256 must be a string");
    if (!is_safe_path(path) || path == kMetadata) throw fail("files lists an invalid path \"" + path + "\"");
    auto it = files.find(path);
    if (it == files.end())
      throw Error(ErrorKind::kIntegrity, package->origin + ": " + path + " is listed in metadata.json but missing");
    const std::string actual = sha256_hex(it->second);
    const std::string expected = entry["sha256"].get<std::string>();
    if (actual != expected)
      throw Error(ErrorKind::kIntegrity, package->origin + ": " + path + ": sha256 " + actual +
                                             " differs from metadata.json's " + expected + "; refusing to load it");
    listed.insert(path);
  }
  for (const auto& [path, bytes] : files)
    if (path != kMetadata && !listed.count(path))
      throw Error(ErrorKind::kIntegrity, package->origin + ": " + path + " is not listed in metadata.json");
  package->files = std::move(files);
  return package;
}

std::shared_ptr<const Package> load_package_directory(const std::filesystem::path& folder) {
  return verify_package(read_tree(folder), folder.string());
}

Store::Store(std::vector<std::filesystem::path> roots, bool include_embedded)
    : roots_(std::move(roots)), include_embedded_(include_embedded) {}

const Store& Store::default_store() {
  static const Store store = [] {
    std::vector<fs::path> roots;
    if (const char* env = std::getenv("WGK_KERNEL_PATH")) {
      std::string_view rest(env);
      while (!rest.empty()) {
        const std::size_t colon = rest.find(':');
        const std::string_view part = rest.substr(0, colon);
        if (!part.empty()) roots.emplace_back(std::string(part));
        if (colon == std::string_view::npos) break;
        rest.remove_prefix(colon + 1);
      }
    }
    return Store(std::move(roots));
  }();
  return store;
}

// Older revisions (kernels/revisions/) are served only by their revision pin, never by version.
namespace {
bool is_pinned_only(std::string_view folder) { return folder.starts_with("revisions/"); }
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

std::shared_ptr<const Package> Store::load(std::string_view id, const PackageRef& ref) const {
  const std::string id_text(id);
  if (ref.version.has_value() == ref.revision.has_value())
    throw Error(ErrorKind::kInvalidArgument,
                "loading " + id_text + ": give exactly one of `version` (e.g. 1) or `revision` (40 hex digits)");
  if (ref.revision && !is_revision(*ref.revision))
    throw Error(ErrorKind::kInvalidArgument, "loading " + id_text + ": revision \"" + *ref.revision +
                                                 "\" is not 40 lower-case hex digits");
  const std::string wanted = ref.version ? "version " + std::to_string(*ref.version) : "revision " + *ref.revision;
  std::vector<std::string> seen;  // what exists, for the not-found message

  for (const fs::path& root : roots_) {
    const fs::path repo = root / hub_folder(id);
    std::error_code ec;
    if (!fs::is_directory(repo, ec)) continue;
    std::string revision;
    if (ref.revision) {
      revision = *ref.revision;
    } else {
      const fs::path ref_file = repo / "refs" / ("v" + std::to_string(*ref.version));
      if (!fs::is_regular_file(ref_file, ec)) {
        seen.push_back(repo.string() + " (no refs/v" + std::to_string(*ref.version) + ")");
        continue;
      }
      revision = read_file(ref_file);
      while (!revision.empty() && (revision.back() == '\n' || revision.back() == '\r' || revision.back() == ' '))
        revision.pop_back();
      if (!is_revision(revision))
        throw Error(ErrorKind::kIntegrity, ref_file.string() + " does not hold a 40-hex revision");
    }
    const fs::path snapshot = repo / "snapshots" / revision;
    if (!fs::is_directory(snapshot, ec)) {
      seen.push_back(repo.string() + " (no snapshot " + revision + ")");
      continue;
    }
    auto package = verify_package(read_tree(snapshot), snapshot.string(), id);
    if (package->revision != revision)
      throw Error(ErrorKind::kIntegrity, snapshot.string() + ": metadata.json hashes to revision " + package->revision +
                                             ", not " + revision + "; refusing bytes that differ from the pin");
    if (ref.version && package->version != *ref.version)
      throw Error(ErrorKind::kIntegrity, snapshot.string() + ": refs/v" + std::to_string(*ref.version) +
                                             " points at a package of version " + std::to_string(package->version));
    return package;
  }

  if (include_embedded_) {
    for (const auto& [folder, files] : embedded_trees()) {
      auto it = files.find(kMetadata);
      if (it == files.end()) continue;
      nlohmann::json meta = nlohmann::json::parse(it->second, nullptr, false);
      if (!meta.is_object() || meta.value("id", "") != id_text) continue;
      const int version = meta.value("version", 0);
      const std::string revision = git_blob_id(it->second);
      seen.push_back("embedded version " + std::to_string(version) + " revision " + revision +
                     (is_pinned_only(folder) ? " (older, by revision only)" : ""));
      if ((ref.version && version == *ref.version && !is_pinned_only(folder)) || (ref.revision && revision == *ref.revision))
        return verify_package(files, "embedded " + folder, id);
    }
  }
  std::string message = "no package " + id_text + " at " + wanted;
  if (seen.empty()) {
    message += "; known packages:";
    for (const std::string& known : embedded_ids()) message += " " + known;
  } else {
    message += "; found:";
    for (const std::string& s : seen) message += " " + s + ";";
  }
  throw Error(ErrorKind::kNotFound, message);
}

}  // namespace wgk::store
