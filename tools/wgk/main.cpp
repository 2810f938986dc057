// wgk: run, test, benchmark and inspect WebGPU kernel packages.
#include <filesystem>
#include <iostream>

#include "command.h"
#include "wgk/error.h"
#include "wgk/version.h"

namespace wgk::cli {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}
}  // namespace wgk::cli

int main(int argc, char** argv) {
  CLI::App app{"wgk: run, test, benchmark and inspect WebGPU kernel packages"};
  app.set_version_flag("--version", "wgk " + std::string(wgk::version()), "print the library version and exit");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, wgk::cli::Run>> runs;
  for (const auto& command : wgk::cli::commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    runs.emplace_back(sub, command.setup(*sub));
  }
  // Exit status: 0 success (and --help, --version); 1 an error of the call (wgk::Error: bad input, a package, the
  // device, the Hub); 2 a command line CLI11 refuses (an unknown option, a value its validator refuses, a missing
  // subcommand), whose own codes (105, 106, 109, ...) say nothing to a script; 3 an internal error.
  // An unknown command is named (CLI11 would say only "A subcommand is required").
  if (argc > 1 && argv[1][0] != '-') {
    const std::string word = argv[1];
    std::string names;
    bool known = false;
    for (const auto& command : wgk::cli::commands()) {
      known = known || command.name == word;
      names += (names.empty() ? "" : ", ") + command.name;
    }
    if (!known) {
      std::cerr << "wgk: error: unknown command '" << word << "'; commands: " << names << " (wgk --help)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    for (auto& [sub, run] : runs)
      if (sub->parsed()) return run();
  } catch (const wgk::Error& e) {
    std::cerr << "wgk: error: " << e.what() << "\n";
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "wgk: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "wgk: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
