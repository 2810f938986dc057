#pragma once
// ONNX Runtime 1.30's CPU provider as a test oracle for one-node models of any op ort_run.mjs knows
// (tests/oracles/ort_run.mjs): inputs written as .npy, outputs read back. Tests define WGK_NODE (the node
// executable) when node and tests/oracles/node_modules/onnxruntime-node are installed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "io/npy.h"
#include "wgk/tensor.h"

namespace wgk::testing {

namespace fs = std::filesystem;

/// One call of a normalization op, by the contract's argument names: `inputs` (x, scale / skip, gamma, bias),
/// the `outputs` asked for (y, invStdVar, inputSkipBiasSum), `axis` (RMSNormalization only), `epsilon` (FLOAT).
struct OrtCase {
  std::string name, op, domain;
  DType dtype;
  std::map<std::string, HostTensor> inputs;
  std::vector<std::string> outputs;
  std::int64_t axis = -1;
  double epsilon = 1e-5;
};

/// Runs `cases` through tests/oracles/ort_run.mjs in one node process, files in `dir`; returns the outputs by
/// case name and output name. A failed ORT run of a case leaves its outputs missing (at() throws).
inline std::map<std::string, std::map<std::string, HostTensor>> run_ort(const std::vector<OrtCase>& cases, const fs::path& dir) {
  fs::create_directories(dir);
  // The node's inputs and outputs in order, [argument name, ONNX name] (ONNX Operators.md; ORT
  // ContribOperators.md). The Skip node is given all four outputs (ORT's mean included), so every asked-for
  // one sits at its position; the ones not asked for are not read.
  const std::vector<std::pair<std::string, std::string>> rms_in{{"x", "X"}, {"scale", "scale"}}, rms_out{{"y", "Y"}};
  const std::vector<std::pair<std::string, std::string>> skip_in{{"x", "input"}, {"skip", "skip"}, {"gamma", "gamma"}, {"bias", "bias"}};
  const std::vector<std::pair<std::string, std::string>> skip_out{
      {"y", "output"}, {"mean", "mean"}, {"invStdVar", "inv_std_var"}, {"inputSkipBiasSum", "input_skip_bias_sum"}};
  std::string json = "{\"cases\": [";
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const OrtCase& c = cases[k];
    const bool rms = c.op == "RMSNormalization";
    char eps[64];
    std::snprintf(eps, sizeof eps, "%.9g", c.epsilon);
    json += std::string(k ? "," : "") + "{\"name\": \"" + c.name + "\", \"op_type\": \"" + c.op + "\", \"domain\": \"" +
            (c.domain == "ai.onnx" ? "" : c.domain) + "\", \"opset\": " + (rms ? "23" : "1") +
            ", \"attributes\": {\"epsilon\": {\"type\": \"FLOAT\", \"value\": " + eps + "}" +
            (rms ? ", \"axis\": {\"type\": \"INT\", \"value\": " + std::to_string(c.axis) + "}" : "") + "}, \"inputs\": [";
    bool first = true;
    for (const auto& [arg, onnx] : rms ? rms_in : skip_in) {
      auto it = c.inputs.find(arg);
      json += first ? "" : ",";
      first = false;
      if (it == c.inputs.end()) {
        json += "{\"name\": \"\"}";
        continue;
      }
      const fs::path p = dir / (c.name + "_" + arg + ".npy");
      io::write_npy(p, it->second);
      json += "{\"name\": \"" + onnx + "\", \"path\": \"" + p.string() + "\"}";
    }
    json += "], \"outputs\": [";
    first = true;
    for (const auto& [arg, onnx] : rms ? rms_out : skip_out) {
      const bool f32_out = arg == "mean" || arg == "invStdVar";  // ORT's U = float32
      json += std::string(first ? "" : ",") + "{\"name\": \"" + onnx + "\", \"path\": \"" +
              (dir / (c.name + "_out_" + arg + ".npy")).string() + "\", \"dtype\": \"" +
              std::string(dtype_name(f32_out ? DType::kFloat32 : c.dtype)) + "\"}";
      first = false;
    }
    json += "]}";
  }
  json += "]}";
  const fs::path manifest = dir / "cases.json";
  std::ofstream(manifest) << json;
  const std::string command = std::string(WGK_NODE) + " " + WGK_SOURCE_DIR "/tests/oracles/ort_run.mjs " + manifest.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::map<std::string, std::map<std::string, HostTensor>> out;
  for (const OrtCase& c : cases)
    for (const auto& name : c.outputs) out[c.name].emplace(name, io::read_npy(dir / (c.name + "_out_" + name + ".npy")));
  return out;
}

}  // namespace wgk::testing
