#pragma once
// Per-op plug-ins of the tools and tests (not the library): a CPU reference in double precision and a
// random-case generator for the ONNX Runtime differential test (`wgk diff`). Each op is one file under
// src/reference/ops/ that registers itself at static initialization with WGK_REGISTER_OP; the tools find it
// by the contract's domain and name and name no op. Both parts are optional: a package without a plug-in
// is tested from expected outputs (test.json `expected`, case folders) and left out of `wgk diff`.
#include <functional>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "reference/compare.h"
#include "wgk/kernel.h"

namespace wgk::reference {

/// Tensors by the contract's input (or output) names: `x`, `positionIds`, ... (not the ONNX names).
using Tensors = std::map<std::string, HostTensor, std::less<>>;

/// One output of a reference: row-major values in double and the shape.
struct Result {
  Shape shape;
  std::vector<double> values;
};
using Results = std::map<std::string, Result, std::less<>>;

/// A CPU reference. `inputs`: by the contract's names; an absent optional input is absent from the map.
/// `attrs`: by ONNX name, every attribute the contract declares a default for already filled in
/// (INT as int64, FLOAT as double, STRING as string). `outputs`: the contract output names the call asks
/// for (an optional one only when asked). Returns at least those outputs. Throws wgk::Error
/// (kInvalidArgument) naming the input or attribute, the rule and the values; never reads out of bounds.
using ReferenceFn =
    std::function<Results(const Tensors& inputs, const Attributes& attrs, const std::vector<std::string>& outputs)>;

/// The one-node ONNX model the differential test asks ONNX Runtime to run.
struct OnnxNode {
  std::string op_type;               ///< "RotaryEmbedding"
  std::string domain;                ///< "" (the default domain, ai.onnx) or "com.microsoft"
  int opset = 0;                     ///< opset version imported for `domain` (23; com.microsoft: 1)
  std::vector<std::string> inputs;   ///< contract input names in the node's input order
  /// Contract output names in the node's output order; "" at the position of an ONNX output the contract
  /// does not have (SkipSimplifiedLayerNormalization's `mean`): left unnamed in the node and not compared.
  std::vector<std::string> outputs;
};

/// One random call inside both the package's contract and ONNX Runtime's kernel.
struct RandomCase {
  std::string name;               ///< unique in a run; says what it covers ("onnx_00012_f16_r3_pos_h2x8")
  DType dtype = DType::kFloat32;  ///< the floating type of the case (float inputs are of it)
  Attributes attrs;               ///< as the ONNX node carries them (absent: the ONNX default)
  Tensors inputs;                 ///< by the contract's names
  Tolerance tolerance;            ///< for all three comparisons (GPU-ORT, ORT-reference, GPU-reference)
  std::string tolerance_why;      ///< its derivation, one line
};
/// Draws case number `index` from `rng` (all draws from `rng` only, so a seed gives the same cases everywhere).
using GeneratorFn = std::function<RandomCase(std::mt19937_64& rng, int index)>;

/// Device-memory traffic of one call, as `wgk bench` reports it (bytes; docs/PERF.md).
struct MovedBytes {
  std::uint64_t total = 0;  ///< bytes one call must read and write, by the op's definition
  std::uint64_t copy = 0;   ///< bytes the same-run copy baseline copies (the main input's)
};
/// An op's count from the call's host inputs (contract names).
using MovedBytesFn = std::function<MovedBytes(const Tensors& inputs)>;

/// Everything the tools know about one op beyond its contract.
struct OpPlugin {
  std::string domain;     ///< the contract's domain: "ai.onnx", "com.microsoft"
  std::string op;         ///< the contract's name: "RotaryEmbedding"
  ReferenceFn reference;  ///< empty: no CPU reference
  OnnxNode node;          ///< used with `generate`
  GeneratorFn generate;   ///< empty: not part of `wgk diff`
  /// Sets c.tolerance and c.tolerance_why for c.dtype (the generator's rule; `wgk diff --dtype` calls it
  /// again after converting a case to another dtype). May be empty.
  std::function<void(RandomCase& c)> set_tolerance;
  /// Empty: `wgk bench` counts every input read once and every output written once, and copies the largest input.
  MovedBytesFn moved_bytes;
};

/// Registers `plugin` (WGK_REGISTER_OP does, at static initialization). Returns true; a second plug-in for
/// the same domain and op is a programming error: it is reported on stderr and the process aborts.
bool register_op(OpPlugin plugin);
/// The plug-in of `domain`::`op`, or nullptr.
const OpPlugin* find_op(std::string_view domain, std::string_view op);
/// Every registered plug-in, ordered by domain then op.
std::vector<const OpPlugin*> all_ops();

/// Runs the reference of `domain`::`op`. Throws wgk::Error (kNotFound) when the op has none, else as the
/// reference does.
Results run_reference(std::string_view domain, std::string_view op, const Tensors& inputs, const Attributes& attrs,
                      const std::vector<std::string>& outputs = {"y"});

/// An INT attribute, an int64 (contract::attribute_value's rule: a double is refused, even 4.0); `fallback` when
/// absent. Throws wgk::Error (kInvalidArgument) naming the attribute for a string or a double.
std::int64_t int_attr(const Attributes& attrs, std::string_view name, std::int64_t fallback);
/// A FLOAT attribute (an int64 is widened); `fallback` when absent. Throws as int_attr for a string.
double float_attr(const Attributes& attrs, std::string_view name, double fallback);
/// A STRING attribute; `fallback` when absent. Throws as int_attr for a number.
std::string string_attr(const Attributes& attrs, std::string_view name, std::string_view fallback);
/// An input the reference requires. Throws wgk::Error (kInvalidArgument) "reference of <op>: missing input <name>".
const HostTensor& required_input(const Tensors& inputs, std::string_view name, std::string_view op);

}  // namespace wgk::reference

#define WGK_REFERENCE_CAT2(a, b) a##b
#define WGK_REFERENCE_CAT(a, b) WGK_REFERENCE_CAT2(a, b)
/// In an op's file: WGK_REGISTER_OP(make_plugin()); with `OpPlugin make_plugin()` defined above it.
#define WGK_REGISTER_OP(plugin) \
  [[maybe_unused]] static const bool WGK_REFERENCE_CAT(wgk_op_registered_, __LINE__) = ::wgk::reference::register_op(plugin)
