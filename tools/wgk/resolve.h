#pragma once
// One way for every subcommand to turn "ID [--version N | --revision COMMIT | --content BLOB] [--package DIR]"
// into a kernel: through the store (store/store.h), and a --package folder only when its bytes match
// the pin given with it. Every subcommand prints what it ran with print_kernel().
#include <CLI/CLI.hpp>

#include <filesystem>
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

/// Adds --gpu-timeout-s to `sub`: seconds one wait for the GPU may take (wgk::DeviceOptions::gpu_timeout,
/// default 10; 1e-9 to 1e9).
void add_device_options(CLI::App& sub, double& gpu_timeout_s);
/// The device a subcommand runs on: Device::default_device() at the default timeout, else a device
/// created with DeviceOptions::gpu_timeout = `gpu_timeout_s` (once per process).
std::shared_ptr<Device> cli_device(double gpu_timeout_s);

/// Loads `id` as `s` says. --revision with --content is refused; --version with a pin must agree with
/// the pinned package's version; --package DIR is refused unless its metadata.json names `id` and its
/// declared version equals a given --version (kInvalidArgument: a version is a line whose bytes move, so it
/// pins no bytes), its content id equals a given --content, and its bytes equal those of a given --revision
/// as the store serves it (kIntegrity). Throws wgk::Error; kNotFound when DIR does not exist (package_folder).
Kernel resolve_kernel(const std::string& id, const PackageSelector& s, std::shared_ptr<Device> device = nullptr);

/// True when `arg` names a path rather than a package id ("<org>/<name>"): it exists; or it starts with '.',
/// '/' or '~', holds more than one '/', or ends with '/'; or its first component is `kernels` (the folder of
/// package folders, as README.md writes them: kernels/<package>) or a folder that exists here. The one rule
/// of every subcommand that takes a package (README.md "The command-line tool").
bool names_a_path(const std::string& arg);

/// `arg` as a package folder: it must exist and be a folder. Throws wgk::Error: kNotFound "no such package
/// folder: <arg> (give the path of a folder holding <mark>)" for a path that does not exist, kInvalidArgument
/// "<arg> is a file, not a package folder (a folder holding <mark>)". `mark`: the file that makes a folder a
/// package for the caller (the store's build/webgpu/metadata.json; `wgk metadata`, which writes that,
/// build/webgpu/manifest.json). An id is never suggested: the callers take folders.
std::filesystem::path package_folder(const std::string& arg, const std::string& mark = "build/webgpu/metadata.json");

/// `arg` as the folder of a package that a subcommand writes into (`wgk card` writes its README.md): a path, not an
/// id (kInvalidArgument "<what> takes a package folder, not the id <arg> ..."; an arg without '/' that is no path
/// is no id either: kNotFound "no such package folder: <arg> (<what> takes a package folder ...)"), then package_folder, then the mark
/// every subcommand that loads a folder checks (store::check_package_folder: kNotFound "<arg>: no
/// build/webgpu/metadata.json, so not a package folder ..."). Its files' digests are not checked: they may be
/// mid-edit.
std::filesystem::path package_folder_to_write(const std::string& arg, const std::string& what);

/// `arg` as a package id, for a subcommand that takes only ids (`wgk download`). Throws wgk::Error
/// (kInvalidArgument) when names_a_path(arg): "<what> takes a package id <org>/<name>, not the path <arg> (read as
/// a path because <the rule that made it one>)".
const std::string& package_id(const std::string& arg, const std::string& what);

/// The kernel a subcommand's positional PACKAGE names: a package folder (README.md + build/webgpu/) checked
/// against any pin in `s`, or an id resolved as `s` says (resolve_kernel). Throws wgk::Error as package_folder
/// for an argument that names_a_path; for one that does not exist, kNotFound "no such package folder: <arg> (read
/// as a path, not a Hub id, because <the rule>...)", e.g. "./webgpu-kernels exists here" for an id whose org is a
/// folder here.
Kernel resolve_package(const std::string& id_or_folder, const PackageSelector& s, std::shared_ptr<Device> device = nullptr);

/// The kernels a subcommand runs: each of `args` (ids or folders, as resolve_package), else `s.package` when
/// given, else every embedded package. Throws wgk::Error as resolve_package.
std::vector<Kernel> selected_kernels(const std::vector<std::string>& args, const PackageSelector& s,
                                     std::shared_ptr<Device> device = nullptr);

/// "kernel:  <id> version <N> commit <C|none> content <blob id> (<origin>)".
void print_kernel(const Kernel& kernel);

}  // namespace wgk::cli
