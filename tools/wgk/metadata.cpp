// wgk metadata <package>: writes build/webgpu/metadata.json (id, contract version, every file's
// sha256, each variant's templates, provenance) so the store can verify the package's bytes.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "command.h"
#include "io/file_bytes.h"
#include "resolve.h"
#include "metadata.h"
#include "contract/contract.h"
#include "store/digest.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace fs = std::filesystem;

namespace {
}  // namespace

std::string package_metadata(const fs::path& root, const std::map<std::string, std::string>& overlay) {
  const fs::path webgpu = root / "build" / "webgpu";
  const fs::path meta_path = webgpu / "metadata.json";
  auto text = [&](const std::string& p) {
    auto it = overlay.find(p);
    return it != overlay.end() ? it->second : io::read_file_text(root / p);
  };
  nlohmann::ordered_json old = nlohmann::ordered_json::object();
  if (fs::exists(meta_path)) old = nlohmann::ordered_json::parse(io::read_file_text(meta_path));
  std::vector<std::string> paths;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) paths.push_back(fs::relative(e.path(), root).generic_string());
  for (const auto& [p, bytes] : overlay)
    if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
  std::sort(paths.begin(), paths.end());
  const std::string manifest = "build/webgpu/manifest.json";
  const bool overlaid = overlay.count(manifest) != 0;
  const auto contract = overlaid ? contract::load_contract(text(manifest), (webgpu / "manifest.json").string())
                                 : contract::load_contract_file((webgpu / "manifest.json").string());
  if (overlaid)  // load_contract_file checks the shaders on disk; here they may be about to be written too
    for (const auto& v : contract.variants)
      for (const auto& pass : v.passes)
        if (std::find(paths.begin(), paths.end(), "build/webgpu/" + pass.shader) == paths.end())
          throw Error(ErrorKind::kNotFound, (webgpu / "manifest.json").string() + ": variant " + v.id + " pass " + pass.id +
                                                ": shader " + pass.shader + " is not in the package");
  nlohmann::ordered_json meta;
  meta["id"] = old.value("id", "webgpu-kernels/" + contract.domain + "." + contract.name);
  meta["version"] = old.value("version", 1);
  meta["contract"] = {{"domain", contract.domain}, {"name", contract.name}, {"sinceVersion", contract.since_version},
                      {"format", contract.format == contract::ManifestFormat::kLegacy ? "legacy" : "current"}};
  nlohmann::ordered_json files = nlohmann::ordered_json::object();
  for (const auto& p : paths)
    if (p != "build/webgpu/metadata.json") files[p] = {{"sha256", store::sha256_hex(text(p))}};
  meta["files"] = files;
  nlohmann::ordered_json variants = nlohmann::ordered_json::object();
  for (const auto& v : contract.variants) {
    nlohmann::ordered_json templates = nlohmann::ordered_json::array();
    for (const auto& p : v.passes) templates.push_back(p.shader);
    variants[v.id] = {{"priority", v.priority}, {"templates", templates}};
  }
  meta["variants"] = variants;
  meta["provenance"] = old.value("provenance", nlohmann::ordered_json{{"builtBy", "wgk metadata"}});
  return meta.dump(2) + "\n";
}

WGK_COMMAND("metadata", "Write a package's build/webgpu/metadata.json (sha256 of every file, variants, provenance)") {
  auto root = std::make_shared<std::string>();
  auto check = std::make_shared<bool>(false);
  sub.add_option("package", *root, "package folder (README.md + build/webgpu/)")->required();
  sub.add_flag("--check", *check, "fail if metadata.json differs from what would be written");
  return [root, check]() -> int {
    const fs::path meta_path = package_folder(*root, "build/webgpu/manifest.json") / "build" / "webgpu" / "metadata.json";
    const std::string text = package_metadata(*root);
    if (*check) {
      const bool same = fs::exists(meta_path) && io::read_file_text(meta_path) == text;
      std::cout << meta_path.string() << (same ? " is up to date\n" : " is out of date: run wgk metadata\n");
      return same ? 0 : 1;
    }
    std::ofstream(meta_path, std::ios::binary) << text;
    std::cout << "wrote " << meta_path.string() << "\n";
    return 0;
  };
}

}  // namespace wgk::cli
