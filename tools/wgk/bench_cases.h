#pragma once
// Benchmark cases as packages' bench.json lists them (kernels/*/build/webgpu/bench.json):
//   {"cases": [{"name", "dtype": "float32"|"float16", "attrs": {..}, "tunables": {..}?,
//               "inputs": {"<name>": {"shape": [..], "randomInt": [lo, hi]? | "values": [..]?}},
//               "tags": ["decode"|"prefill"|"partial", ..]}]}
// Float inputs are uniform in [-1, 1) in the case's dtype; integer inputs are int64 from randomInt or
// values (valid positions by construction of the case).
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

/// Bytes one call must move in device memory, by the ops' definitions (ONNX RotaryEmbedding opset 23,
/// com.microsoft.RotaryEmbedding): x read once, y (x's shape and dtype) written once, each distinct
/// cos and sin row gathered once (a row is cos.shape[-1] elements; distinct rows = distinct position
/// ids, or the sequence length when position_ids is a single offset), position ids read once as the
/// u32 the device stores.
struct MovedBytes {
  std::uint64_t x = 0, y = 0, cos_sin = 0, position_ids = 0;
  std::uint64_t total() const { return x + y + cos_sin + position_ids; }
};
MovedBytes moved_bytes(const std::map<std::string, HostTensor, std::less<>>& inputs);

}  // namespace wgk::cli
