#pragma once
// The metadata.json `wgk metadata` writes, for other subcommands (assemble).
#include <filesystem>
#include <map>
#include <string>

namespace wgk::cli {

/// The metadata.json text for the package folder `root` (README.md + build/webgpu/): every file's
/// sha256, the variants' templates; keeps `id`, `version` and `provenance` of an existing one.
/// `overlay` (paths relative to `root`, '/'-separated, e.g. "build/webgpu/manifest.json") gives files as
/// they are about to be written: they are read from it instead of the disk, and count even when not on
/// disk yet (`wgk assemble` computes the metadata before it writes anything).
/// Throws wgk::Error when a file cannot be read, the manifest does not load or a pass's shader is missing.
std::string package_metadata(const std::filesystem::path& root, const std::map<std::string, std::string>& overlay = {});

}  // namespace wgk::cli
