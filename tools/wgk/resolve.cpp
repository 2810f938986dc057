#include "resolve.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "option_values.h"
#include "store/store.h"
#include "wgk/error.h"
#include "wgk/introspect.h"

namespace wgk::cli {

void add_package_options(CLI::App& sub, PackageSelector& s, bool with_package) {
  s.version_option = integer_in(sub.add_option("--version", s.version, "version: the Hub branch vN (default 1)"), 0,
                                std::numeric_limits<int>::max());
  non_empty(sub.add_option("--revision", s.revision, "a Hub commit (40 hex digits) instead of --version"));
  non_empty(sub.add_option("--content", s.content, "a content pin: git blob id of build/webgpu/metadata.json (40 hex)"));
  if (with_package)
    non_empty(sub.add_option("--package", s.package,
                             "load this package folder: refused unless it holds this id, the version of a --version given "
                             "(its declared version) and the bytes of a --revision or --content given"));
}

void add_device_options(CLI::App& sub, double& gpu_timeout_s) {
  number_in(sub.add_option("--gpu-timeout-s", gpu_timeout_s,
                           "seconds one wait for the GPU (a read, a flush, timestamps) may take before it fails (default 10)"),
            1e-9, 1e9);
}

std::shared_ptr<Device> cli_device(double gpu_timeout_s) {
  const auto timeout = std::chrono::round<std::chrono::nanoseconds>(std::chrono::duration<double>(gpu_timeout_s));
  if (timeout == DeviceOptions{}.gpu_timeout) return Device::default_device();
  static std::shared_ptr<Device> device;
  if (!device) {
    DeviceOptions options;
    options.gpu_timeout = timeout;
    device = Device::create(options);
  }
  return device;
}

Kernel resolve_kernel(const std::string& id, const PackageSelector& s, std::shared_ptr<Device> device) {
  if (!s.revision.empty() && !s.content.empty())
    throw Error(ErrorKind::kInvalidArgument, "give at most one of --revision " + s.revision + " and --content " + s.content);
  auto check_version = [&](const Kernel& k, const std::string& what, const std::string& rule) {
    if (s.version_given() && k.version() != s.version)
      throw Error(ErrorKind::kInvalidArgument, "--version " + std::to_string(s.version) + " but " + what + " holds " +
                                                   k.id() + " version " + std::to_string(k.version()) + rule);
  };
  if (!s.package.empty()) {
    package_folder(s.package);
    Kernel k = load_kernel_directory(s.package, device);
    if (k.id() != id)
      throw Error(ErrorKind::kInvalidArgument, "--package " + s.package + " holds " + k.id() + ", not " + id);
    // A version is a line (the Hub branch vN moves), not a byte pin: with a folder it checks the declared version.
    check_version(k, "--package " + s.package, " (--version checks a folder's declared version; --revision or --content checks its bytes)");
    if (!s.content.empty() && k.content_id() != s.content)
      throw Error(ErrorKind::kIntegrity, "--package " + s.package + " has content " + k.content_id() +
                                             ", not the --content " + s.content + " given; refusing other bytes");
    if (!s.revision.empty()) {
      // The folder must hold exactly the bytes of that commit (as the store has or fetches them).
      auto pinned = store::Store::default_store().load(id, {std::nullopt, s.revision, std::nullopt});
      const auto& mine = introspect::package(k)->files;
      std::string differ;
      for (const auto& [path, bytes] : pinned->files) {
        auto it = mine.find(path);
        if (it == mine.end() || it->second != bytes) differ += " " + path;
      }
      for (const auto& [path, bytes] : mine)
        if (!pinned->files.count(path) && path != "README.md") differ += " " + path;
      if (!differ.empty())
        throw Error(ErrorKind::kIntegrity, "--package " + s.package + " differs from " + id + " at --revision " +
                                               s.revision + " (" + pinned->origin + ") in:" + differ +
                                               "; refusing to run other bytes than the revision");
    }
    return k;
  }
  if (!s.revision.empty()) {
    Kernel k = get_kernel(id, {.revision = s.revision}, device);
    check_version(k, "revision " + s.revision, "");
    return k;
  }
  if (!s.content.empty()) {
    Kernel k = get_kernel(id, {.content = s.content}, device);
    check_version(k, "content " + s.content, "");
    return k;
  }
  return get_kernel(id, {.version = s.version}, device);
}

namespace {

// The rule by which `arg` names a path (names_a_path), or none for a Hub id. `org` is set when the rule is a
// folder of the id's org name here, which hides the id: the error then says how to reach the id instead.
struct PathRule {
  std::string why;
  std::string org;
};

std::optional<PathRule> path_rule(const std::string& arg) {
  std::error_code ec;
  if (arg.empty()) return PathRule{"it is empty", ""};
  if (std::filesystem::exists(arg, ec)) return PathRule{"it exists here", ""};
  if (arg[0] == '.' || arg[0] == '/' || arg[0] == '~') return PathRule{std::string("it starts with '") + arg[0] + "'", ""};
  if (arg.back() == '/') return PathRule{"it ends with '/'", ""};
  const auto slash = arg.find('/');
  if (slash == std::string::npos) return std::nullopt;  // no '/': a malformed id, as the store says
  if (arg.find('/', slash + 1) != std::string::npos) return PathRule{"it holds more than one '/'", ""};
  const std::string first = arg.substr(0, slash);
  if (first == "kernels") return PathRule{"it starts with kernels/, the folder of package folders", ""};
  if (std::filesystem::is_directory(first, ec)) return PathRule{"./" + first + " exists here", first};
  return std::nullopt;
}

// Why `arg` (which names_a_path) was read as a path, then `rest`, or how to reach the id a folder hides.
std::string path_reason(const std::string& arg, const std::string& rest) {
  const PathRule rule = path_rule(arg).value_or(PathRule{"it names a path", ""});
  if (rule.org.empty()) return rule.why + rest;
  return rule.why + "; for the Hub id " + arg + ", run wgk from a folder without " + rule.org;
}

}  // namespace

bool names_a_path(const std::string& arg) { return path_rule(arg).has_value(); }

std::filesystem::path package_folder(const std::string& arg, const std::string& mark) {
  std::error_code ec;
  if (!std::filesystem::exists(arg, ec))
    throw Error(ErrorKind::kNotFound, "no such package folder: " + arg + " (give the path of a folder holding " + mark + ")");
  if (!std::filesystem::is_directory(arg, ec))
    throw Error(ErrorKind::kInvalidArgument, arg + " is a file, not a package folder (a folder holding " + mark + ")");
  return arg;
}

std::filesystem::path package_folder_to_write(const std::string& arg, const std::string& what) {
  // No '/' and no such path: not an id either (an id is <org>/<name>, as the store says), so no "not the id".
  if (!names_a_path(arg) && arg.find('/') != std::string::npos)
    throw Error(ErrorKind::kInvalidArgument, what + " takes a package folder, not the id " + arg +
                                                 ": it writes into the folder (give its path, e.g. kernels/<package>)");
  if (!names_a_path(arg))
    throw Error(ErrorKind::kNotFound, "no such package folder: " + arg + " (" + what +
                                          " takes a package folder: give its path, e.g. kernels/<package>)");
  std::error_code ec;
  if (!std::filesystem::exists(arg, ec))
    throw Error(ErrorKind::kNotFound, "no such package folder: " + arg + " (read as a path because " + path_reason(arg, "") + ")");
  package_folder(arg);
  store::check_package_folder(arg);
  return arg;
}

const std::string& package_id(const std::string& arg, const std::string& what) {
  if (names_a_path(arg))
    throw Error(ErrorKind::kInvalidArgument, what + " takes a package id <org>/<name>, not the path " + arg +
                                                 " (read as a path because " + path_reason(arg, "") + ")");
  return arg;
}

Kernel resolve_package(const std::string& arg, const PackageSelector& s, std::shared_ptr<Device> device) {
  if (!names_a_path(arg)) return resolve_kernel(arg, s, device);
  std::error_code ec;
  if (!std::filesystem::exists(arg, ec))
    throw Error(ErrorKind::kNotFound, "no such package folder: " + arg + " (read as a path, not a Hub id, because " +
                                          path_reason(arg, "; give a folder holding build/webgpu/, or an id <org>/<name>") + ")");
  package_folder(arg);
  if (!s.package.empty() && std::filesystem::path(s.package) != std::filesystem::path(arg))
    throw Error(ErrorKind::kInvalidArgument, "two package folders given: " + arg + " and --package " + s.package);
  PackageSelector folder = s;
  folder.package = arg;
  return resolve_kernel(store::load_package_directory(arg)->id, folder, device);
}

std::vector<Kernel> selected_kernels(const std::vector<std::string>& args, const PackageSelector& s,
                                     std::shared_ptr<Device> device) {
  std::vector<Kernel> out;
  for (const auto& a : args) out.push_back(resolve_package(a, s, device));
  if (!args.empty()) return out;
  if (!s.package.empty()) return {resolve_package(s.package, s, device)};
  for (const auto& id : store::Store::default_store().embedded_ids()) out.push_back(resolve_kernel(id, s, device));
  return out;
}

void print_kernel(const Kernel& kernel) {
  std::cout << "kernel:  " << kernel.id() << " version " << kernel.version() << " commit "
            << (kernel.commit().empty() ? "none" : kernel.commit()) << " content " << kernel.content_id() << " ("
            << introspect::package(kernel)->origin << ")\n";
}

}  // namespace wgk::cli
