#pragma once
// Subcommand registry of the wgk CLI: each tools/wgk/<name>.cpp registers itself with
// WGK_COMMAND(name, description) { ... set up `sub`, return the function that runs it ... }.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace wgk::cli {

/// Runs a parsed subcommand; returns the process exit code.
using Run = std::function<int()>;
/// Adds options to `sub` and returns the function that runs the subcommand once parsed.
using Setup = std::function<Run(CLI::App& sub)>;

struct Command {
  std::string name;
  std::string description;
  Setup setup;
};

std::vector<Command>& commands();

struct Registrar {
  Registrar(std::string name, std::string description, Setup setup) {
    commands().push_back({std::move(name), std::move(description), std::move(setup)});
  }
};

}  // namespace wgk::cli

#define WGK_COMMAND_CAT2(a, b) a##b
#define WGK_COMMAND_CAT(a, b) WGK_COMMAND_CAT2(a, b)
#define WGK_COMMAND(name, description)                                                                    \
  static ::wgk::cli::Run WGK_COMMAND_CAT(wgk_command_setup_, __LINE__)(CLI::App & sub);                   \
  static ::wgk::cli::Registrar WGK_COMMAND_CAT(wgk_command_registrar_, __LINE__)(                         \
      name, description, WGK_COMMAND_CAT(wgk_command_setup_, __LINE__));                                  \
  static ::wgk::cli::Run WGK_COMMAND_CAT(wgk_command_setup_, __LINE__)(CLI::App & sub)
