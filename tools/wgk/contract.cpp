// `wgk contract <manifest.json | package folder | id>`: loads a manifest (either format) and prints what the
// loader understood (src/contract/describe.h), or with --inputs evaluates one call (contract_eval.h) on the
// adapter in use unless --device names a preset. Exit code 1 with the loader's error on a bad manifest.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "contract/contract.h"
#include "contract/describe.h"
#include "contract_eval.h"
#include "resolve.h"
#include "wgk/introspect.h"

WGK_COMMAND("contract", "Load a kernel manifest (current or legacy format) and print the contract it describes") {
  struct Options {
    std::string manifest;
    wgk::cli::PackageSelector pin;
    bool no_shader_check = false;
    wgk::cli::ContractEvalOptions eval;
  };
  auto options = std::make_shared<Options>();
  sub.add_option("package", options->manifest, "a manifest.json, a package folder, or a package id")->required();
  wgk::cli::add_package_options(sub, options->pin, false);
  sub.add_flag("--no-shader-check", options->no_shader_check,
               "do not require the passes' shader files beside the manifest");
  wgk::cli::add_contract_eval_options(sub, options->eval);
  return [options]() -> int {
    // wgk::Error propagates to main, which prints it and exits with 1.
    std::shared_ptr<const wgk::contract::Contract> contract;
    if (std::filesystem::is_regular_file(options->manifest)) {
      contract = std::make_shared<const wgk::contract::Contract>(
          wgk::contract::load_contract_file(options->manifest, !options->no_shader_check));
    } else {
      const wgk::Kernel kernel = wgk::cli::resolve_package(options->manifest, options->pin);
      wgk::cli::print_kernel(kernel);
      contract = wgk::introspect::contract(kernel);
    }
    if (options->eval.requested()) return wgk::cli::run_contract_eval(contract, options->eval, std::cout);
    wgk::contract::print_contract(*contract, std::cout);
    return 0;
  };
}
