#pragma once
// CPU reference of com.microsoft::SkipSimplifiedLayerNormalization (ONNX Runtime contrib op, since 1) in
// double precision, written from ORT's ContribOperators.md and its CPU kernel's semantics:
//   s = input + skip (+ bias),   per row of the last dim (hidden_size H):
//   inv_std_var = 1 / sqrt(sum(s^2) / H + epsilon),   output = s * inv_std_var * gamma
// input_skip_bias_sum is s. The ORT op's `mean` output (zeros for the simplified op) is not produced.
// skip has input's shape, or broadcasts over the batch: (1, S, H) or (S, H) for a rank-3 input (B, S, H).
// Inputs are read exactly (float16 widened). Where ORT's kernel computes in float32 the reference rounds as it does:
// s = (input + skip) + bias with each add rounded to float32 (so past FLT_MAX it is infinite), each square s^2
// rounded to float32 (so tiny ones underflow to 0); their sum is exact, with float32's range (past FLT_MAX it is
// infinite: inv_std_var 0, output 0, as ONNX Runtime 1.30's CPU provider gives); the rest is double.
//
// Inputs are validated before any element is read: a violation throws wgk::Error (kInvalidArgument)
// naming the input, the rule and the values.
#include <vector>

#include "wgk/tensor.h"

namespace wgk::reference {

/// Every output of the op (the contract's names): `y` (`output`, input's shape), `invStdVar` (`inv_std_var`,
/// input's shape with the last dim 1, float32 in ORT), `inputSkipBiasSum` (`input_skip_bias_sum`, input's shape).
struct SkipSimplifiedLayerNormalizationOutputs {
  std::vector<double> y;
  Shape inv_std_var_shape;
  std::vector<double> inv_std_var;
  std::vector<double> input_skip_bias_sum;
};

/// x (`input`): float32/float16, rank 2 (tokens, H) or 3 (B, S, H). skip: x's dtype and shape, or for rank 3
/// (1, S, H) or (S, H). gamma: (H). bias: (H) or null. All of x's dtype.
SkipSimplifiedLayerNormalizationOutputs skip_simplified_layer_normalization(const HostTensor& x, const HostTensor& skip,
                                                                            const HostTensor& gamma,
                                                                            const HostTensor* bias, double epsilon);

}  // namespace wgk::reference
