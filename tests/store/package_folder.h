#pragma once
// Test helpers that write package folders to a temporary directory: copy a package tree, write
// files, and (re)generate build/webgpu/metadata.json with each file's sha256 (src/store/digest.h), so
// that store verification passes and what the test wants to reach the loader does reach it.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "store/digest.h"

namespace wgk::testing {

namespace fs = std::filesystem;

inline std::string read_bytes(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path.string());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void write_bytes(const fs::path& path, std::string_view bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

/// A fresh directory under the system temp dir, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = fs::temp_directory_path() / ("wgk-test-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// Writes build/webgpu/metadata.json in `folder` listing every regular file under it (except
/// metadata.json) with its sha256, as `wgk metadata` does. Returns the metadata bytes.
inline std::string write_metadata(const fs::path& folder, const std::string& id, int version = 1) {
  nlohmann::json files = nlohmann::json::object();
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (!entry.is_regular_file() || entry.is_symlink()) continue;
    const std::string rel = fs::relative(entry.path(), folder).generic_string();
    if (rel == "build/webgpu/metadata.json") continue;
    files[rel] = {{"sha256", store::sha256_hex(read_bytes(entry.path()))}};
  }
  const nlohmann::json meta = {{"id", id}, {"version", version}, {"files", files},
                               {"provenance", {{"builtBy", "tests/store/package_folder.h"}}}};
  const std::string bytes = meta.dump(2) + "\n";
  write_bytes(folder / "build/webgpu/metadata.json", bytes);
  return bytes;
}

/// Copies the package folder `from` to `to` (regular files only).
inline void copy_package(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

/// What `git hash-object FILE` prints (the git blob id), run as a separate process: an oracle
/// independent of src/store/digest.cpp.
inline std::string git_hash_object(const fs::path& file) {
  const std::string command = "git hash-object '" + file.string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  char buf[128] = {};
  std::string out;
  while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace wgk::testing
