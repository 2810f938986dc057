// wgk assemble <family>: copies a kernel family's shared template sources into the packages that use
// them and rewrites those packages' metadata.json, so each package stays a self-contained folder (a Hub
// repo) while its templates have one source. --check (CI) changes nothing and fails when a package's copy
// or metadata.json is out of date.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "command.h"
#include "metadata.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorKind::kIo, "cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A plain file or package name: no path separators, not "." or "..".
void check_plain(const std::string& name, const std::string& what) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\\') != std::string::npos)
    throw Error(ErrorKind::kInvalidArgument, what + " '" + name + "' must be a plain name (no '/', '\\', '.', '..')");
}

}  // namespace

WGK_COMMAND("assemble",
            "Copy a kernel family's shared templates (kernels/families/<family>/family.json) into its packages and "
            "rewrite their metadata.json; --check fails when a package is out of date") {
  auto family = std::make_shared<std::string>();
  auto check = std::make_shared<bool>(false);
  sub.add_option("family", *family, "family folder holding family.json and the template sources")->required();
  sub.add_flag("--check", *check, "change nothing; exit 1 if a package's copy or metadata.json differs");
  return [family, check]() -> int {
    // Absolute and normal, without a trailing separator: "families/RotaryEmbedding/" and "." name the family too.
    fs::path dir = fs::absolute(fs::path(*family)).lexically_normal();
    if (dir.filename().empty()) dir = dir.parent_path();
    const fs::path spec_path = dir / "family.json";
    nlohmann::json spec;
    try {
      spec = nlohmann::json::parse(read_file(spec_path));
    } catch (const nlohmann::json::exception& e) {
      throw Error(ErrorKind::kInvalidArgument, spec_path.string() + ": not valid JSON: " + e.what());
    }
    if (!spec.contains("packages") || !spec["packages"].is_object() || spec["packages"].empty())
      throw Error(ErrorKind::kInvalidArgument, spec_path.string() + ": \"packages\" must be an object {package: {file: source}}");
    const fs::path kernels = dir.parent_path().parent_path();  // kernels/families/<family> -> kernels/
    int stale = 0;
    for (const auto& [package, files] : spec["packages"].items()) {
      check_plain(package, spec_path.string() + ": package");
      const fs::path root = kernels / package;
      const fs::path webgpu = root / "build" / "webgpu";
      if (!fs::is_directory(webgpu))
        throw Error(ErrorKind::kNotFound, spec_path.string() + ": package " + package + " has no folder " + webgpu.string());
      if (!files.is_object())
        throw Error(ErrorKind::kInvalidArgument, spec_path.string() + ": packages." + package + " must be {file: source}");
      for (const auto& [file, source] : files.items()) {
        check_plain(file, spec_path.string() + ": packages." + package + ": file");
        if (!source.is_string())
          throw Error(ErrorKind::kInvalidArgument, spec_path.string() + ": packages." + package + "." + file + " must name a source file");
        check_plain(source.get<std::string>(), spec_path.string() + ": packages." + package + "." + file + ": source");
        const std::string bytes = read_file(dir / source.get<std::string>());
        const fs::path target = webgpu / file;
        if (fs::exists(target) && read_file(target) == bytes) continue;
        ++stale;
        if (*check) {
          std::cout << target.string() << " differs from " << (dir / source.get<std::string>()).string() << "\n";
        } else {
          std::ofstream(target, std::ios::binary) << bytes;
          std::cout << "wrote " << target.string() << "\n";
        }
      }
      // The metadata as it would be after the copies (in --check mode the copies are not written, so a
      // stale copy already fails; the metadata compares against the files as they are).
      const fs::path meta_path = webgpu / "metadata.json";
      const std::string meta = package_metadata(root);
      if (!fs::exists(meta_path) || read_file(meta_path) != meta) {
        ++stale;
        if (*check) {
          std::cout << meta_path.string() << " is out of date\n";
        } else {
          std::ofstream(meta_path, std::ios::binary) << meta;
          std::cout << "wrote " << meta_path.string() << "\n";
        }
      }
    }
    if (*check) {
      std::cout << (stale ? "out of date: run wgk assemble " + dir.string() + " (then wgk card for a new file)\n"
                          : dir.string() + ": every package is up to date\n");
      return stale ? 1 : 0;
    }
    return 0;
  };
}

}  // namespace wgk::cli
