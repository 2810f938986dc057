// wgk test [PACKAGE ...] [--package DIR] [--cases DIR] [--tunable NAME=VALUE]: runs the bundled packages'
// test.json, the test.json of packages named by id or folder, or case folders in the format of
// ../shared/cases/README.md (each case's `kernel` id, served by --package DIR when given).
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "cases.h"
#include "command.h"
#include "option_values.h"
#include "resolve.h"
#include "store/store.h"
#include "wgk/error.h"
#include "wgk/introspect.h"

namespace wgk::cli {
namespace {

struct Tally {
  int passed = 0, failed = 0;
  void report(const std::string& kernel, const Case& c, const CaseResult& r) {
    (r.passed ? passed : failed)++;
    std::cout << (r.passed ? "PASS " : "FAIL ") << kernel << " " << c.name;
    if (!r.variant.empty()) std::cout << " [" << r.variant << "]";
    std::cout << ": " << r.message << "\n";
  }
};

void run_package(const Kernel& kernel, Tally& tally, const std::string& filter, const Attributes& tunables) {
  const std::string& text = introspect::package_file(kernel, "test.json");
  nlohmann::json tests;
  try {
    tests = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kContract, kernel.id() + ": test.json: " + e.what());
  }
  const auto& cases = tests.at("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Case c;
    CaseResult r;
    try {
      const std::string where = kernel.id() + ": test.json: cases[" + std::to_string(i) + "]";
      check_case_input_dtypes(*introspect::contract(kernel), cases[i], where);
      c = case_from_json(cases[i], where);
      if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
      for (const auto& [name, v] : tunables) c.tunables.insert_or_assign(name, v);
      r = run_case(kernel, c);
    } catch (const Error& e) {
      if (c.name.empty() && cases[i].is_object() && cases[i].contains("name") && cases[i]["name"].is_string())
        c.name = cases[i]["name"].get<std::string>();
      if (c.name.empty()) c.name = "cases[" + std::to_string(i) + "]";
      r.message = std::string("error: ") + e.what();
    }
    tally.report(kernel.id(), c, r);
  }
}

}  // namespace

WGK_COMMAND("test", "Run packages' test.json cases or ../shared/cases folders against the CPU reference or oracle outputs") {
  struct Options {
    std::vector<std::string> ids;
    std::string cases, filter;
    PackageSelector pin;
    std::vector<std::string> tunables;
    double gpu_timeout_s = 10;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("package", o->ids, "package ids or folders (default: every bundled package)");
  add_package_options(sub, o->pin);
  add_device_options(sub, o->gpu_timeout_s);
  non_empty(sub.add_option("--cases", o->cases, "a folder of case folders (case.json + .npy), searched recursively"));
  sub.add_option("--filter", o->filter, "only cases whose name contains this");
  sub.add_option("--tunable", o->tunables, "NAME=VALUE: a tunable override for every case (repeatable or comma-separated)")
      ->delimiter(',');
  return [o]() -> int {
    const Attributes tunables = parse_name_values(o->tunables, "--tunable");
    auto device = cli_device(o->gpu_timeout_s);
    std::cout << "adapter: " << device->description() << (device->has_shader_f16() ? " [shader-f16]" : " [no shader-f16]")
              << "\n";
    Tally tally;
    if (!o->cases.empty()) {
      if (!std::filesystem::is_directory(o->cases))
        throw Error(ErrorKind::kIo, "--cases " + o->cases + ": not a folder");
      std::vector<std::filesystem::path> folders;
      for (const auto& e : std::filesystem::recursive_directory_iterator(o->cases))
        if (e.is_regular_file() && e.path().filename() == "case.json") folders.push_back(e.path().parent_path());
      std::sort(folders.begin(), folders.end());
      std::map<std::string, Kernel> kernels;
      auto kernel_of = [&](const std::string& id) -> const Kernel& {
        auto it = kernels.find(id);
        if (it == kernels.end()) {
          it = kernels.emplace(id, resolve_kernel(id, o->pin, device)).first;
          print_kernel(it->second);
        }
        return it->second;
      };
      for (const auto& folder : folders) {
        Case c;
        CaseResult r;
        if (!o->filter.empty() && folder.filename().string().find(o->filter) == std::string::npos) continue;  // its name
        try {
          // The .npy files' dtypes by the contract's type constraints, as `wgk run --input` checks them.
          c = case_from_folder(folder, [&](const std::string& id) -> const contract::Contract& {
            return *introspect::contract(kernel_of(id));
          });
          for (const auto& [name, v] : tunables) c.tunables.insert_or_assign(name, v);
          r = run_case(kernel_of(c.kernel), c);
        } catch (const Error& e) {
          c.name = folder.filename().string();
          r.message = std::string("error: ") + e.what();
        }
        tally.report(c.kernel, c, r);
      }
    } else {
      // Every id through the store (or --package, checked against any pin), printed as run.
      for (const Kernel& kernel : selected_kernels(o->ids, o->pin, device)) {
        print_kernel(kernel);
        run_package(kernel, tally, o->filter, tunables);
      }
    }
    if (tally.passed + tally.failed == 0)
      std::cout << "no case ran" << (o->filter.empty() ? "" : " (no case name contains \"" + o->filter + "\")") << "\n";
    std::cout << tally.passed << " passed, " << tally.failed << " failed\n";
    return tally.failed == 0 && tally.passed > 0 ? 0 : 1;
  };
}

}  // namespace wgk::cli
