#pragma once
// One way for every subcommand to turn "ID [--version N | --revision COMMIT | --content BLOB] [--package DIR]"
// into a kernel: through the store (store/store.h), and a --package folder only when its bytes match
// the pin given with it. Every subcommand prints what it ran with print_kernel().
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "wgk/kernel.h"

namespace wgk::cli {

struct PackageSelector {
  int version = 1;
  std::string revision, content, package;
  CLI::Option* version_option = nullptr;
  /// True when --version was given on the command line (not the default 1).
  bool version_given() const { return version_option && version_option->count() > 0; }
};

/// Adds --version, --revision, --content and (when `with_package`) --package to `sub`.
void add_package_options(CLI::App& sub, PackageSelector& s, bool with_package = true);

/// Loads `id` as `s` says. --revision with --content is refused; --version with a pin must agree with
/// the pinned package's version; --package DIR is refused (kIntegrity) unless its metadata.json names
/// `id`, its version equals a given --version, its content id equals a given --content, and its bytes
/// equal those of a given --revision (as the store serves it). Throws wgk::Error.
Kernel resolve_kernel(const std::string& id, const PackageSelector& s, std::shared_ptr<Device> device = nullptr);

/// The ids a subcommand runs: `ids` when given, else the id of `s.package` when given, else every embedded
/// package. Throws wgk::Error as store::load_package_directory.
std::vector<std::string> selected_ids(const std::vector<std::string>& ids, const PackageSelector& s);

/// "kernel:  <id> version <N> commit <C|none> content <blob id> (<origin>)".
void print_kernel(const Kernel& kernel);

}  // namespace wgk::cli
