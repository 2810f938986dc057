// wgk assemble <family>: builds the files a kernel family shares into the packages that use them and
// rewrites those packages' metadata.json, so each package stays a self-contained folder (a Hub repo) while
// each shared template and manifest block has one source (docs/kernel-conventions.md "Kernel families").
// A file is either a copy of one source or, for a list of sources, the JSON object merged from them (a
// package's manifest.json from the family's shared fragment and the package's own). Everything is read,
// merged and checked (the assembled manifest loads, every shader is there) before anything is written; then
// each changed file is written to a temporary file beside it and renamed over it. --check (CI) changes
// nothing and fails when a package's file or metadata.json is out of date.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.h"
#include "io/file_bytes.h"
#include "metadata.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace fs = std::filesystem;

namespace {

using Json = nlohmann::ordered_json;

// A plain file or package name: no path separators, not "." or "..".
void check_plain(const std::string& name, const std::string& what) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\\') != std::string::npos)
    throw Error(ErrorKind::kInvalidArgument, what + " '" + name + "' must be a plain name (no '/', '\\', '.', '..')");
}

// The JSON object merged from `sources` (family folder files), in order. A top-level key in one source is
// taken as it is; in several, objects join their members and arrays their elements, in source order (a
// member in two sources is an error). Key order: the first source's, then each later key right before
// the first key that follows it in its own source and is already placed (at the end if none).
std::string merge_json(const fs::path& dir, const std::vector<std::string>& sources, const std::string& where) {
  Json merged = Json::object();
  std::map<std::string, std::string> first_source;               // top-level key -> source that gave it
  std::map<std::string, std::map<std::string, std::string>> member_source;  // key -> member -> source
  for (const std::string& source : sources) {
    Json part;
    try {
      part = Json::parse(io::read_file_text(dir / source));
    } catch (const nlohmann::json::exception& e) {
      throw Error(ErrorKind::kInvalidArgument, (dir / source).string() + ": not valid JSON: " + e.what());
    }
    if (!part.is_object()) throw Error(ErrorKind::kInvalidArgument, (dir / source).string() + ": a fragment must be a JSON object");
    std::vector<std::string> order;
    for (const auto& [key, value] : part.items()) order.push_back(key);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::string& key = order[i];
      Json& value = part[key];
      if (!merged.contains(key)) {
        // Insert before the first key after it in this source that is already placed.
        Json next = Json::object();
        std::string before;
        for (std::size_t j = i + 1; j < order.size() && before.empty(); ++j)
          if (merged.contains(order[j])) before = order[j];
        for (auto it = merged.begin(); it != merged.end(); ++it) {
          if (it.key() == before) next[key] = value;
          next[it.key()] = std::move(*it);
        }
        if (before.empty()) next[key] = value;
        merged = std::move(next);
        first_source[key] = source;
        if (value.is_object())
          for (const auto& [member, v] : value.items()) member_source[key][member] = source;
        continue;
      }
      Json& have = merged[key];
      if (have.is_object() && value.is_object()) {
        for (const auto& [member, v] : value.items()) {
          auto [it, fresh] = member_source[key].emplace(member, source);
          if (!fresh)
            throw Error(ErrorKind::kInvalidArgument, where + ": " + key + "." + member + " is in both " + it->second + " and " +
                                                         source + " (a block has one source)");
          have[member] = v;
        }
      } else if (have.is_array() && value.is_array()) {
        for (auto& v : value) have.push_back(std::move(v));
      } else {
        throw Error(ErrorKind::kInvalidArgument, where + ": " + key + " is in both " + first_source[key] + " and " + source +
                                                     " (only objects and arrays are joined)");
      }
    }
  }
  return merged.dump(2) + "\n";
}

struct PendingWrite {
  fs::path target;
  std::string bytes;
};

// Writes every file to a temporary beside it, then renames each over its target; a failure before the
// renames removes the temporaries and leaves every target as it was.
void write_all(const std::vector<PendingWrite>& writes) {
  std::vector<fs::path> temps;
  auto remove_temps = [&] {
    std::error_code ignored;
    for (const auto& t : temps) fs::remove(t, ignored);
  };
  for (const auto& w : writes) {
    const fs::path temp = w.target.parent_path() / ("." + w.target.filename().string() + ".wgk-assemble");
    temps.push_back(temp);
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << w.bytes;
    out.close();
    if (!out) {
      remove_temps();
      throw Error(ErrorKind::kIo, "cannot write " + temp.string() + " (nothing was changed)");
    }
  }
  for (std::size_t i = 0; i < writes.size(); ++i) {
    std::error_code ec;
    fs::rename(temps[i], writes[i].target, ec);
    if (ec) {
      remove_temps();
      throw Error(ErrorKind::kIo, "cannot rename " + temps[i].string() + " to " + writes[i].target.string() + ": " + ec.message());
    }
    std::cout << "wrote " << writes[i].target.string() << "\n";
  }
}

}  // namespace

WGK_COMMAND("assemble",
            "Build a kernel family's shared files (kernels/families/<family>/family.json) into its packages and "
            "rewrite their metadata.json; --check fails when a package is out of date") {
  auto family = std::make_shared<std::string>();
  auto check = std::make_shared<bool>(false);
  sub.add_option("family", *family, "family folder holding family.json and the shared sources")->required();
  sub.add_flag("--check", *check, "change nothing; exit 1 if a package's file or metadata.json differs");
  return [family, check]() -> int {
    if (family->empty())
      throw Error(ErrorKind::kInvalidArgument, "wgk assemble: the family folder '' is empty: name a folder holding family.json");
    // Absolute and normal, without a trailing separator: "families/RotaryEmbedding/" and "." name the family too.
    fs::path dir = fs::absolute(fs::path(*family)).lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();
    const fs::path spec_path = dir / "family.json";
    const std::string spec_name = spec_path.string();
    Json spec;
    try {
      spec = Json::parse(io::read_file_text(spec_path));
    } catch (const nlohmann::json::exception& e) {
      throw Error(ErrorKind::kInvalidArgument, spec_name + ": not valid JSON: " + e.what());
    }
    if (!spec.contains("packages") || !spec["packages"].is_object() || spec["packages"].empty())
      throw Error(ErrorKind::kInvalidArgument,
                  spec_name + ": \"packages\" must be an object {package: {file: source or [fragment, ...]}}");
    const fs::path kernels = dir.parent_path().parent_path();  // kernels/families/<family> -> kernels/

    // Everything is read, built and checked first; nothing is written until every package can be.
    std::vector<PendingWrite> writes;
    std::vector<std::string> stale;
    for (const auto& [package, files] : spec["packages"].items()) {
      check_plain(package, spec_name + ": package");
      const fs::path root = kernels / package;
      const fs::path webgpu = root / "build" / "webgpu";
      if (!fs::is_directory(webgpu))
        throw Error(ErrorKind::kNotFound, spec_name + ": package " + package + " has no folder " + webgpu.string());
      if (!files.is_object())
        throw Error(ErrorKind::kInvalidArgument, spec_name + ": packages." + package + " must be {file: source or [fragment, ...]}");
      std::map<std::string, std::string> overlay;  // build/webgpu/<file> -> bytes, for the metadata
      for (const auto& [file, source] : files.items()) {
        const std::string where = spec_name + ": packages." + package + "." + file;
        check_plain(file, spec_name + ": packages." + package + ": file");
        std::string bytes, from;
        if (source.is_string()) {
          check_plain(source.get<std::string>(), where + ": source");
          bytes = io::read_file_text(dir / source.get<std::string>());
          from = (dir / source.get<std::string>()).string();
        } else if (source.is_array() && !source.empty() && file.size() > 5 && file.substr(file.size() - 5) == ".json") {
          std::vector<std::string> fragments;
          for (const auto& f : source) {
            if (!f.is_string()) throw Error(ErrorKind::kInvalidArgument, where + ": a fragment is a file name, got " + f.dump());
            check_plain(f.get<std::string>(), where + ": fragment");
            fragments.push_back(f.get<std::string>());
            from += (from.empty() ? "" : " + ") + f.get<std::string>();
          }
          bytes = merge_json(dir, fragments, where);
        } else {
          throw Error(ErrorKind::kInvalidArgument,
                      where + " must name a source file, or list the JSON fragments a .json file is merged from");
        }
        overlay["build/webgpu/" + file] = bytes;
        const fs::path target = webgpu / file;
        if (fs::exists(target) && io::read_file_text(target) == bytes) continue;
        stale.push_back(target.string() + " differs from " + from);
        writes.push_back({target, bytes});
      }
      // The metadata of the files as they will be (this also loads the assembled manifest).
      const fs::path meta_path = webgpu / "metadata.json";
      std::string meta;
      try {
        meta = package_metadata(root, overlay);
      } catch (Error& e) {
        e.add_context("assembling " + package + " from " + spec_name);
        throw;
      }
      if (!fs::exists(meta_path) || io::read_file_text(meta_path) != meta) {
        stale.push_back(meta_path.string() + " is out of date");
        writes.push_back({meta_path, meta});
      }
    }
    if (*check) {
      for (const auto& s : stale) std::cout << s << "\n";
      std::cout << (stale.empty() ? dir.string() + ": every package is up to date\n"
                                  : "out of date: run wgk assemble " + dir.string() + " (after wgk card for a new file or variant, assemble again)\n");
      return stale.empty() ? 0 : 1;
    }
    write_all(writes);
    return 0;
  };
}

}  // namespace wgk::cli
