// `wgk contract <manifest.json>`: loads a manifest (either format) and prints what the loader
// understood (src/contract/describe.h). Exit code 1 with the loader's error on a bad manifest.
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "contract/contract.h"
#include "contract/describe.h"
#include "contract_eval.h"

WGK_COMMAND("contract", "Load a kernel manifest (current or legacy format) and print the contract it describes") {
  struct Options {
    std::string manifest;
    bool no_shader_check = false;
    wgk::cli::ContractEvalOptions eval;
  };
  auto options = std::make_shared<Options>();
  sub.add_option("manifest", options->manifest, "path to manifest.json")->required();
  sub.add_flag("--no-shader-check", options->no_shader_check,
               "do not require the passes' shader files beside the manifest");
  wgk::cli::add_contract_eval_options(sub, options->eval);
  return [options]() -> int {
    // wgk::Error propagates to main, which prints it and exits with 1.
    const auto contract = wgk::contract::load_contract_file(options->manifest, !options->no_shader_check);
    if (options->eval.requested()) {
      return wgk::cli::run_contract_eval(std::make_shared<const wgk::contract::Contract>(contract), options->eval,
                                         std::cout);
    }
    wgk::contract::print_contract(contract, std::cout);
    return 0;
  };
}
