#pragma once
// Test support: runs tests/oracles/jinja_eval.mjs (@huggingface/jinja under node) once over a batch
// of requests, and converts our Values to the oracle's typed JSON.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "expr/value.h"

namespace wgk::expr::testing {

/// The oracle's answers, one per request; nullopt when node or the oracle packages are missing.
inline std::optional<std::vector<nlohmann::json>> run_jinja_oracle(const std::vector<nlohmann::json>& requests) {
  std::string script = std::string(WGK_SOURCE_DIR) + "/tests/oracles/jinja_eval.mjs";
  std::string modules = std::string(WGK_SOURCE_DIR) + "/tests/oracles/node_modules/@huggingface/jinja";
  if (std::system("node --version > /dev/null 2>&1") != 0 || !std::ifstream(modules + "/package.json")) return std::nullopt;
  std::string base = "/tmp/wgk_jinja_oracle_" + std::to_string(::getpid());
  {
    std::ofstream in(base + ".in");
    for (const auto& r : requests) in << r.dump() << "\n";
  }
  std::string cmd = "node '" + script + "' < '" + base + ".in' > '" + base + ".out'";
  if (std::system(cmd.c_str()) != 0) return std::nullopt;
  std::vector<nlohmann::json> out;
  std::ifstream result(base + ".out");
  for (std::string line; std::getline(result, line);) out.push_back(nlohmann::json::parse(line));
  std::remove((base + ".in").c_str());
  std::remove((base + ".out").c_str());
  return out;
}

/// A Value as the oracle types it: {"type": ..., "value": ...}.
inline nlohmann::json typed(const Value& v) {
  if (v.is_undefined()) return {{"type", "undefined"}, {"value", nullptr}};
  if (v.is_none()) return {{"type", "none"}, {"value", nullptr}};
  if (v.is_bool()) return {{"type", "bool"}, {"value", v.as_bool()}};
  if (v.is_int()) return {{"type", "int"}, {"value", v.as_int()}};
  if (v.is_float()) return {{"type", "float"}, {"value", v.as_float()}};
  if (v.is_string()) return {{"type", "str"}, {"value", v.as_string()}};
  if (v.is_list()) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& x : v.as_list()) items.push_back(typed(x));
    return {{"type", "list"}, {"value", items}};
  }
  nlohmann::json items = nlohmann::json::object();
  for (const auto& [k, x] : v.as_object()) items[k] = typed(x);
  return {{"type", "dict"}, {"value", items}};
}

/// A context Value as plain JSON for the oracle (ints, non-integral floats, strings, bools, lists, objects).
inline nlohmann::json plain(const Value& v) {
  if (v.is_bool()) return v.as_bool();
  if (v.is_int()) return v.as_int();
  if (v.is_float()) return v.as_float();
  if (v.is_string()) return v.as_string();
  if (v.is_list()) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& x : v.as_list()) items.push_back(plain(x));
    return items;
  }
  if (v.is_object()) {
    nlohmann::json items = nlohmann::json::object();
    for (const auto& [k, x] : v.as_object()) items[k] = plain(x);
    return items;
  }
  return nullptr;
}

}  // namespace wgk::expr::testing
