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
  std::string json = "{\"cases\": [";
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const OrtCase& c = cases[k];
    json += std::string(k ? "," : "") + "{\"name\": \"" + c.name + "\", \"op\": \"" + c.op + "\", \"domain\": \"" + c.domain +
            "\", \"dtype\": \"" + std::string(dtype_name(c.dtype)) + "\", \"floatAttributes\": [\"epsilon\"], \"attributes\": {";
    char eps[64];
    std::snprintf(eps, sizeof eps, "%.9g", c.epsilon);
    json += std::string("\"epsilon\": ") + eps + (c.op == "RMSNormalization" ? ", \"axis\": " + std::to_string(c.axis) : "");
    json += "}, \"inputs\": {";
    bool first = true;
    for (const auto& [name, t] : c.inputs) {
      const fs::path p = dir / (c.name + "_" + name + ".npy");
      io::write_npy(p, t);
      json += std::string(first ? "" : ",") + "\"" + name + "\": \"" + p.string() + "\"";
      first = false;
    }
    json += "}, \"outputs\": {";
    first = true;
    for (const auto& name : c.outputs) {
      json += std::string(first ? "" : ",") + "\"" + name + "\": \"" + (dir / (c.name + "_out_" + name + ".npy")).string() + "\"";
      first = false;
    }
    json += "}}";
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
