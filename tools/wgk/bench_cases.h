#pragma once
// Benchmark cases as packages' bench.json lists them (kernels/*/build/webgpu/bench.json):
//   {"cases": [{"name", "dtype": "float32"|"float16", "attrs": {..}, "tunables": {..}?,
//               "inputs": {"<name>": {"shape": [..], "randomInt": [lo, hi]? | "values": [..]?}},
//               "tags": ["decode"|"prefill"|"partial", ..]}]}
// Float inputs are uniform in [-1, 1) in the case's dtype; integer inputs are int64 from randomInt or
// values (valid positions by construction of the case). Bytes moved: the op plug-in's count
// (reference::OpPlugin::moved_bytes), else every input read and every output written once.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "wgk/kernel.h"

namespace wgk::cli {

struct BenchCase {
  std::string name;
  DType dtype = DType::kFloat32;
  Attributes attrs;
  Attributes tunables;  ///< the case's overrides of the manifest's tunables (a `--tunable` overrides these)
  std::vector<std::string> tags;
  nlohmann::json inputs;  ///< the spec; tensors are made by make_inputs (they can be large)
};

/// Parses one bench.json entry. Throws wgk::Error (kContract) naming `where` and the key.
BenchCase bench_case_from_json(const nlohmann::json& entry, const std::string& where);

/// Host tensors for the case (seeded, reproducible: seed 1 per case).
std::map<std::string, HostTensor, std::less<>> make_inputs(const BenchCase& c);

}  // namespace wgk::cli
