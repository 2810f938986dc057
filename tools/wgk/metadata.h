#pragma once
// The metadata.json `wgk metadata` writes, for other subcommands (assemble).
#include <filesystem>
#include <string>

namespace wgk::cli {

/// The metadata.json text for the package folder `root` (README.md + build/webgpu/): every file's
/// sha256, the variants' templates; keeps `id`, `version` and `provenance` of an existing one.
/// Throws wgk::Error when a file cannot be read or the manifest does not load.
std::string package_metadata(const std::filesystem::path& root);

}  // namespace wgk::cli
