#pragma once
// The `--inputs/--attr/--device` part of `wgk contract`: evaluate a manifest for one call signature
// without a GPU and print every manifest derive value, the variant chosen and its plan (bindings with
// resolved element types, uniform field values, dispatch), or the clause that failed.
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "plan/plan.h"

namespace wgk::cli {

struct ContractEvalOptions {
  /// "x=float32:2x4x3x8,cos=float32:50x4,positionIds=int64:2x3" (a rank-0 input: "x=float32:").
  std::string inputs;
  /// "interleaved=1" (repeatable, or comma-separated); integers, floats, anything else as text.
  std::vector<std::string> attrs;
  /// "tunable NAME=VALUE" overrides (repeatable, or comma-separated).
  std::vector<std::string> tunables;
  /// "webgpu-default", "lavapipe", "h200", or a limits JSON file (plan::DeviceCaps::from_json); empty:
  /// the limits and features of the adapter in use (the one `wgk run` would plan for).
  std::string device;

  bool requested() const { return !inputs.empty(); }
};

/// Adds --inputs, --attr, --tunable, --device to `sub`, writing into `options` (which must outlive parsing).
void add_contract_eval_options(CLI::App& sub, ContractEvalOptions& options);

/// Parses --inputs text into a call signature. Throws wgk::Error (kInvalidArgument) naming the item.
plan::CallSignature parse_call(const std::string& inputs, const std::vector<std::string>& attrs,
                                   const std::vector<std::string>& tunables = {});
/// A preset name or a JSON file path; empty: the default adapter's caps. Throws wgk::Error (kInvalidArgument / kIo).
plan::DeviceCaps parse_device(const std::string& device);

/// Prints the evaluation to `out`. Returns 0 when a variant is chosen and planned, 1 otherwise.
/// Boundary errors (unknown input, wrong dtype, ...) propagate as wgk::Error.
int run_contract_eval(std::shared_ptr<const contract::Contract> contract, const ContractEvalOptions& options,
                      std::ostream& out);

}  // namespace wgk::cli
