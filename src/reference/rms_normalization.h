#pragma once
// CPU reference of ai.onnx::RMSNormalization-23 in double precision, written from the ONNX operator spec
// (Operators.md, RMSNormalization; its function body):
//   normalized dims: axis..rank-1 (a negative axis counts from the end), N = their element count;
//   per row r:  rms = sqrt(sum(x[r, j]^2) / N + epsilon),   y[r, j] = x[r, j] / rms * scale[j']
// where scale broadcasts (ONNX unidirectional broadcasting) to the normalized dims X.shape[axis:].
// Inputs are read exactly (float16 widened); arithmetic is double. stash_type 1 (float32): each square rounded to
// float32 (tiny ones underflow to 0), their sum exact with float32's range (past FLT_MAX it is infinite, so y = 0,
// NaN where x is infinite, as ONNX Runtime 1.30's CPU provider gives; with epsilon 0 a row of squares that all
// underflow gives +-Inf, as there); 11 (double): exact. stash_type 10 (float16) and 16 (bfloat16) as the
// function body computes stage one in that type:
// XU = x rounded to it, each XU^2 rounded, their mean (exact, then rounded), mean + epsilon (epsilon rounded
// to it) rounded, its sqrt RMS rounded, XU / RMS rounded; y = that * scale (exact: the caller rounds y to T).
// Another stash_type is an error (the function body admits only these four).
//
// Inputs are validated before any element is read: a violation throws wgk::Error (kInvalidArgument)
// naming the input, the rule and the values.
#include <cstdint>
#include <vector>

#include "wgk/tensor.h"

namespace wgk::reference {

/// RMSNormalization's attributes, with their ONNX names and defaults.
struct RmsNormalizationAttributes {
  std::int64_t axis = -1;     ///< first normalized dim, in [-rank, rank)
  double epsilon = 1e-5;      ///< added to the mean of squares
  std::int64_t stash_type = 1;  ///< ONNX TensorProto type of stage one: 1, 10, 11 or 16 (see above)
};

/// Every output of the op: `y` (ONNX `Y`), row-major with x's shape.
struct RmsNormalizationOutputs {
  std::vector<double> y;
};

/// x (`X`): float32/float16, rank >= 1. scale (`scale`): x's dtype, broadcastable to x.shape[axis:].
RmsNormalizationOutputs rms_normalization(const HostTensor& x, const HostTensor& scale,
                                          const RmsNormalizationAttributes& attributes);

}  // namespace wgk::reference
