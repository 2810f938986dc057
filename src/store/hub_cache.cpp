#include "store/hub_cache.h"

#include <nlohmann/json.hpp>

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "store/digest.h"
#include "wgk/error.h"

namespace wgk::store::hub {
namespace {

constexpr std::uintmax_t kMaxFileBytes = 16u << 20;
constexpr std::size_t kMaxFiles = 1024;

bool is_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Printable, bounded rendering of untrusted bytes for an error message.
std::string shown(std::string_view s) {
  std::string out = "\"";
  for (char c : s.substr(0, 64)) {
    if (c >= 0x20 && c < 0x7f && c != '"') out += c;
    else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[(c >> 4) & 15];
      out += kHex[c & 15];
    }
  }
  if (s.size() > 64) out += "...";
  return out + "\"";
}

}  // namespace

std::string read_capped(const fs::path& path, ErrorKind missing) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw Error(missing, "cannot read " + path.string() + ": " + ec.message());
  if (size > kMaxFileBytes)
    throw Error(ErrorKind::kIntegrity, path.string() + ": " + std::to_string(size) + " bytes, over the " +
                                           std::to_string(kMaxFileBytes) + "-byte limit for a package file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in && !in.eof()) throw Error(ErrorKind::kIo, "cannot read " + path.string());
  return bytes.str();
}

namespace {

std::string blob_hash(std::string_view name, std::string_view bytes) {
  return name.size() == 64 ? sha256_hex(bytes) : git_blob_id(bytes);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// trees/<commit>.json: {"format_version": 1, "files": {path: {"size", "blob_id", ["lfs_sha256"]}}}.
std::optional<nlohmann::json> read_tree_listing(const fs::path& repo, std::string_view commit) {
  const fs::path file = repo / "trees" / (std::string(commit) + ".json");
  std::error_code ec;
  const auto st = fs::symlink_status(file, ec);
  if (ec || !fs::exists(st)) return std::nullopt;
  if (!fs::is_regular_file(st))
    throw Error(ErrorKind::kIntegrity, file.string() + " is not a regular file");
  nlohmann::json tree = nlohmann::json::parse(read_capped(file), nullptr, false);
  if (!tree.is_object() || tree.value("format_version", 0) != 1 || !tree.contains("files") ||
      !tree["files"].is_object())
    throw Error(ErrorKind::kIntegrity, file.string() + " is not a format_version 1 tree listing");
  return tree["files"];
}

}  // namespace

void check_repo_id(std::string_view id) {
  auto fail = [&](const std::string& rule) {
    return Error(ErrorKind::kInvalidArgument, "package id " + shown(id) + ": " + rule +
                                                  " (Hub repo ids are \"<org>/<name>\", e.g. "
                                                  "webgpu-kernels/ai.onnx.RotaryEmbedding)");
  };
  const auto slash = id.find('/');
  if (slash == std::string_view::npos || id.find('/', slash + 1) != std::string_view::npos)
    throw fail("needs exactly one '/'");
  for (std::string_view part : {id.substr(0, slash), id.substr(slash + 1)}) {
    if (part.empty() || part.size() > 96) throw fail("each part must have 1 to 96 characters");
    for (char c : part)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
            c == '-'))
        throw fail("only letters, digits, '.', '_' and '-' are allowed");
    if (part.find("--") != std::string_view::npos || part.find("..") != std::string_view::npos)
      throw fail("\"--\" and \"..\" are not allowed");
    if (part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.')
      throw fail("a part cannot start or end with '-' or '.'");
  }
}

bool is_sha1_hex(std::string_view s) { return s.size() == 40 && is_hex(s); }
bool is_blob_name(std::string_view s) { return (s.size() == 40 || s.size() == 64) && is_hex(s); }

bool is_safe_path(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.size() > 1024) return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.find('\\') != std::string_view::npos ||
        part.find('\0') != std::string_view::npos)
      return false;
    start = end + 1;
  }
  return true;
}

bool is_package_path(std::string_view path) { return path == "README.md" || path.starts_with("build/webgpu/"); }

std::string repo_folder(std::string_view type, std::string_view id) {
  std::string name(type);
  name += "--";
  for (char c : id) {
    if (c == '/') name += "--";
    else name += c;
  }
  return name;
}

const std::vector<std::string>& repo_types() {
  static const std::vector<std::string> types{"kernels", "models"};
  return types;
}

std::vector<fs::path> kernel_path_roots() {
  std::vector<fs::path> roots;
  std::string_view rest;
  const std::string value = env("WGK_KERNEL_PATH");
  rest = value;
  while (!rest.empty()) {
    const std::size_t colon = rest.find(':');
    const std::string_view part = rest.substr(0, colon);
    if (!part.empty()) roots.emplace_back(std::string(part));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return roots;
}

namespace {

// posixpath.expanduser: the home of "~" or "~user", nullopt where posixpath leaves the text unchanged.
std::optional<std::string> user_home(const std::string& user) {
  if (user.empty()) {
    if (const char* home = std::getenv("HOME")) return std::string(home);
    if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return std::string(pw->pw_dir);
    return std::nullopt;
  }
  if (const passwd* pw = ::getpwnam(user.c_str()); pw && pw->pw_dir) return std::string(pw->pw_dir);
  return std::nullopt;
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string expand_user_and_vars(std::string_view value) {
  std::string path(value);
  if (path.starts_with('~')) {
    const std::size_t end = std::min(path.find('/', 1), path.size());
    if (auto home = user_home(path.substr(1, end - 1))) {
      while (!home->empty() && home->back() == '/') home->pop_back();
      path = *home + path.substr(end);
      if (path.empty()) path = "/";
    }
  }
  // posixpath.expandvars: \$(\w+|\{[^}]*\}) (ASCII), searched left to right, each value inserted as is.
  std::string out;
  std::size_t i = 0;
  for (;;) {
    const std::size_t dollar = path.find('$', i);
    if (dollar == std::string::npos) {
      out.append(path, i, std::string::npos);
      return out;
    }
    out.append(path, i, dollar - i);
    std::size_t end = dollar + 1;  // past the match
    std::optional<std::string> name;
    if (end < path.size() && path[end] == '{') {
      if (const std::size_t close = path.find('}', end + 1); close != std::string::npos) {
        name = path.substr(end + 1, close - end - 1);
        end = close + 1;
      }
    } else {
      while (end < path.size() && is_name_char(path[end])) ++end;
      if (end > dollar + 1) name = path.substr(dollar + 1, end - dollar - 1);
    }
    if (!name) {  // a '$' that starts no match
      out += '$';
      i = dollar + 1;
      continue;
    }
    const char* v = name->empty() ? nullptr : std::getenv(name->c_str());
    out.append(v ? std::string(v) : path.substr(dollar, end - dollar));
    i = end;
  }
}

fs::path hf_home() {
  if (auto v = env("HF_HOME"); !v.empty()) return expand_user_and_vars(v);
  if (auto v = env("XDG_CACHE_HOME"); !v.empty()) return expand_user_and_vars(v + "/huggingface");
  const std::string home = expand_user_and_vars("~/.cache/huggingface");
  return home.starts_with('~') ? fs::path() : fs::path(home);  // "~" stays where no home is known
}

namespace {
fs::path hf_hub_cache() {
  std::string cache = env("HF_HUB_CACHE");
  if (cache.empty()) cache = env("HUGGINGFACE_HUB_CACHE");
  if (cache.empty()) {
    const fs::path home = hf_home();
    return home.empty() ? fs::path() : home / "hub";
  }
  return expand_user_and_vars(cache);
}
}  // namespace

std::vector<fs::path> official_roots() {
  std::vector<fs::path> roots;
  if (auto v = env("KERNELS_CACHE"); !v.empty()) roots.emplace_back(v);
  if (fs::path hf = hf_hub_cache(); !hf.empty()) roots.push_back(hf);
  return roots;
}

fs::path download_root() {
  if (auto v = env("KERNELS_CACHE"); !v.empty()) return v;
  return hf_hub_cache();
}

std::optional<std::string> read_ref(const fs::path& repo, std::string_view name) {
  if (!is_safe_path(name))
    throw Error(ErrorKind::kInvalidArgument, "ref name " + shown(name) + " is not a safe relative path");
  const fs::path file = repo / "refs" / std::string(name);
  std::error_code ec;
  const auto st = fs::symlink_status(file, ec);
  if (ec || !fs::exists(st)) return std::nullopt;
  if (!fs::is_regular_file(st))
    throw Error(ErrorKind::kIntegrity, file.string() + " is not a regular file; a ref holds a 40-hex commit");
  if (fs::file_size(file, ec) > 256 || ec)
    throw Error(ErrorKind::kIntegrity, file.string() + " is too large to be a ref (a 40-hex commit)");
  std::string value = read_capped(file);
  const std::string raw = value;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!value.empty() && space(value.back())) value.pop_back();
  std::size_t lead = 0;
  while (lead < value.size() && space(value[lead])) ++lead;
  value.erase(0, lead);
  if (!is_sha1_hex(value))
    throw Error(ErrorKind::kIntegrity, file.string() + " holds " + shown(raw) +
                                           ", not a commit (40 lower-case hex digits, as the Hub clients write it)");
  return value;
}

bool marked_absent(const fs::path& repo, std::string_view commit, std::string_view path) {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(repo / ".no_exist" / std::string(commit) / std::string(path), ec));
}

std::optional<Snapshot> read_snapshot(const fs::path& repo_in, std::string_view commit) {
  if (!is_sha1_hex(commit))
    throw Error(ErrorKind::kInvalidArgument, "snapshot name " + shown(commit) + " is not a commit (40 hex)");
  std::error_code ec;
  // Canonical once, as huggingface_hub resolves its cache dir: links are then resolved lexically.
  const fs::path repo = fs::canonical(repo_in, ec);
  if (ec) return std::nullopt;
  for (const fs::path& dir : {repo / "snapshots", repo / "snapshots" / std::string(commit)}) {
    const auto st = fs::symlink_status(dir, ec);
    if (ec || !fs::exists(st)) return std::nullopt;
    if (!fs::is_directory(st))
      throw Error(ErrorKind::kIntegrity, dir.string() + " is not a directory (a symlink or file where the Hub "
                                                        "cache has a folder)");
  }
  Snapshot snap;
  snap.commit = std::string(commit);
  snap.folder = repo / "snapshots" / snap.commit;
  const fs::path blobs = repo / "blobs";
  const auto tree = read_tree_listing(repo, commit);
  std::size_t entries = 0;

  for (auto it = fs::recursive_directory_iterator(snap.folder, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path& entry = it->path();
    const std::string rel = entry.lexically_relative(snap.folder).generic_string();
    const fs::path shown_path = snap.folder / rel;
    const auto st = it->symlink_status(ec);
    if (ec) break;
    if (++entries > kMaxFiles)
      throw Error(ErrorKind::kIntegrity, snap.folder.string() + " has over " + std::to_string(kMaxFiles) + " entries");
    if (fs::is_directory(st)) continue;  // a real directory: the iterator descends (it never follows links)
    std::string blob_name;  // for links: the blob the bytes must hash to
    if (fs::is_symlink(st)) {
      const fs::path target = fs::read_symlink(entry, ec);
      if (ec) break;
      const fs::path resolved = (target.is_absolute() ? target : entry.parent_path() / target).lexically_normal();
      blob_name = resolved.filename().string();
      if (resolved.parent_path() != blobs || !is_blob_name(blob_name))
        throw Error(ErrorKind::kIntegrity, shown_path.string() + " links to " + target.string() + " (" +
                                               resolved.string() + "), not to a blob of this repo (" + blobs.string() +
                                               "/<40 or 64 hex>); refusing the snapshot");
      const fs::path real = fs::canonical(entry, ec);
      if (ec)
        throw Error(ErrorKind::kIntegrity, shown_path.string() + " links to missing blob " + resolved.string());
      if (real != resolved || !fs::is_regular_file(fs::symlink_status(real)))
        throw Error(ErrorKind::kIntegrity, shown_path.string() + ": blob " + resolved.string() +
                                               " is not a regular file (it resolves to " + real.string() + ")");
    } else if (!fs::is_regular_file(st)) {
      throw Error(ErrorKind::kIntegrity, shown_path.string() + " is neither a file, a folder nor a link into blobs/");
    }
    if (!is_package_path(rel)) {
      snap.ignored.push_back(rel);
      continue;
    }
    std::string bytes = read_capped(entry);
    std::string expected_name = blob_name;
    if (expected_name.empty() && tree && tree->contains(rel)) {  // a copy: the listing names its blob
      const nlohmann::json& info = (*tree)[rel];
      if (info.contains("lfs_sha256") && info["lfs_sha256"].is_string())
        expected_name = info["lfs_sha256"].get<std::string>();
      else if (info.contains("blob_id") && info["blob_id"].is_string())
        expected_name = info["blob_id"].get<std::string>();
    }
    if (!expected_name.empty()) {
      const std::string actual = blob_hash(expected_name, bytes);
      if (actual != expected_name)
        throw Error(ErrorKind::kIntegrity,
                    shown_path.string() + ": bytes hash to " + actual + ", not to its blob name " + expected_name +
                        (blob_name.empty() ? " (trees/" + snap.commit + ".json)" : "") +
                        " (" + (expected_name.size() == 64 ? "sha256" : "git blob sha1") + "); the cache is corrupt");
    }
    snap.files.emplace(rel, std::move(bytes));
  }
  if (ec) throw Error(ErrorKind::kIo, "listing " + snap.folder.string() + ": " + ec.message());
  if (tree) {
    for (const auto& [path, info] : tree->items())
      if (path.starts_with("build/webgpu/") && !snap.files.count(path)) snap.missing.push_back(path);
  }
  return snap;
}

std::vector<CachedRepo> scan_root(const fs::path& root) {
  std::vector<CachedRepo> repos;
  std::error_code ec;
  for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    for (const std::string& type : repo_types()) {
      const std::string prefix = type + "--";
      if (!name.starts_with(prefix)) continue;
      const std::string rest = name.substr(prefix.size());
      const auto sep = rest.find("--");
      if (sep == std::string::npos) continue;
      CachedRepo repo;
      repo.folder = it->path();
      repo.type = type;
      repo.id = rest.substr(0, sep) + "/" + rest.substr(sep + 2);
      std::error_code ec2;
      const fs::path refs = repo.folder / "refs";
      for (auto r = fs::recursive_directory_iterator(refs, ec2); !ec2 && r != fs::recursive_directory_iterator();
           r.increment(ec2)) {
        const std::string ref = r->path().lexically_relative(refs).generic_string();
        if (r->is_directory()) {
          // A folder holds refs (refs/pr/1); an empty one where a ref should be makes its load fail: shown as such.
          if (fs::is_empty(r->path(), ec2)) repo.refs[ref] = "(an empty folder, not a ref file)";
          ec2.clear();
          continue;
        }
        if (!fs::is_regular_file(fs::symlink_status(r->path()))) {  // a FIFO would block the read
          repo.refs[ref] = "(not a regular file)";
          continue;
        }
        std::ifstream in(r->path(), std::ios::binary);
        std::string value(256, '\0');
        in.read(value.data(), 256);
        value.resize(static_cast<std::size_t>(in.gcount()));
        repo.refs[ref] = value;
      }
      for (auto s = fs::directory_iterator(repo.folder / "snapshots", ec2); !ec2 && s != fs::directory_iterator();
           s.increment(ec2))
        repo.snapshots.push_back(s->path().filename().string());
      std::sort(repo.snapshots.begin(), repo.snapshots.end());
      repos.push_back(std::move(repo));
    }
  }
  std::sort(repos.begin(), repos.end(), [](const CachedRepo& a, const CachedRepo& b) { return a.folder < b.folder; });
  return repos;
}

}  // namespace wgk::store::hub
