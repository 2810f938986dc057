// Plug-in of com.microsoft::SkipSimplifiedLayerNormalization (ORT ContribOperators.md): the CPU reference
// (skip_simplified_layer_normalization, every output) and the random cases of `wgk diff`.
#include "reference/op.h"
#include "reference/random.h"
#include "reference/skip_simplified_layer_normalization.h"

namespace wgk::reference {
namespace {

constexpr const char* kOp = "com.microsoft::SkipSimplifiedLayerNormalization";
// epsilon when the node has none: ONNX Runtime's contrib schema default, kDefaultSkipLayerNormEpsilon = 1e-12f
// (onnxruntime/core/graph/contrib_ops/contrib_defs.h), held as a float: 9.999999960041972e-13.
constexpr double kDefaultEpsilon = static_cast<double>(1e-12f);

// Returns exactly the outputs asked for (y; invStdVar and inputSkipBiasSum when named).
Results reference(const Tensors& inputs, const Attributes& attrs, const std::vector<std::string>& outputs) {
  const HostTensor& x = required_input(inputs, "x", kOp);
  auto bias = inputs.find("bias");
  const auto out = skip_simplified_layer_normalization(x, required_input(inputs, "skip", kOp),
                                                       required_input(inputs, "gamma", kOp),
                                                       bias == inputs.end() ? nullptr : &bias->second,
                                                       float_attr(attrs, "epsilon", kDefaultEpsilon));
  Results all{{"y", {x.shape, out.y}},
              {"invStdVar", {out.inv_std_var_shape, out.inv_std_var}},
              {"inputSkipBiasSum", {x.shape, out.input_skip_bias_sum}}};
  Results asked;
  for (const auto& name : outputs)
    if (auto it = all.find(name); it != all.end()) asked.insert(*it);
  return asked;
}

void set_tolerance(RandomCase& c) {
  const bool f16 = c.dtype == DType::kFloat16;
  c.tolerance = f16 ? Tolerance{2e-5, 2e-3} : Tolerance{2e-6, 2e-5};
  c.tolerance_why = f16 ? "f32 arithmetic, one f16 rounding on each side (one f16 unit, 2^-10 relative)"
                        : "f32 sums and reductions in different orders: <= 1e-5 relative each";
}

// input (B, S, H) or (S, H), H in 1-64 (now and then 1,000-5,000; odd ones too, in both f16 storages),
// skip of input's shape, (1, S, H) or (S, H), bias or not.
RandomCase generate(std::mt19937_64& rng, int index) {
  RandomCase c;
  c.dtype = coin(rng) ? DType::kFloat16 : DType::kFloat32;
  const std::int64_t h = pick(rng, 0, 9) == 0 ? pick(rng, 1000, 5000) : pick(rng, 1, 64);
  const std::int64_t b = pick(rng, 1, 3), seq = pick(rng, 1, 4);
  const bool rank3 = pick(rng, 0, 3) != 0;
  const Shape in = rank3 ? Shape{b, seq, h} : Shape{seq, h};
  const auto form = pick(rng, 0, 2);
  const Shape skip = !rank3 || form == 0 ? in : form == 1 ? Shape{1, seq, h} : Shape{seq, h};
  c.attrs["epsilon"] = pick(rng, 0, 2) == 0 ? 0.25 : 1e-5;
  c.inputs["x"] = random_float(c.dtype, in, rng);
  c.inputs["skip"] = random_float(c.dtype, skip, rng);
  c.inputs["gamma"] = random_float(c.dtype, {h}, rng);
  const bool bias = coin(rng);
  if (bias) c.inputs["bias"] = random_float(c.dtype, {h}, rng);
  c.name = "skip_" + std::to_string(index) + (c.dtype == DType::kFloat16 ? "_f16_" : "_f32_") + shape_string(in) +
           "_skip" + shape_string(skip) + (bias ? "_bias" : "");
  set_tolerance(c);
  return c;
}

OpPlugin plugin() {
  return {"com.microsoft", "SkipSimplifiedLayerNormalization", reference,
          // The node's outputs are positional (output, mean, inv_std_var, input_skip_bias_sum; ORT
          // ContribOperators.md): every one but mean, which the package does not produce, is compared.
          {"SkipSimplifiedLayerNormalization", "com.microsoft", 1, {"x", "skip", "gamma", "bias"},
           {"y", "", "invStdVar", "inputSkipBiasSum"}},
          generate, set_tolerance, nullptr};
}

}  // namespace

WGK_REGISTER_OP(plugin());

}  // namespace wgk::reference
