#pragma once
// CPU reference of ai.onnx::RMSNormalization-23 in double precision, written from the ONNX operator spec
// (Operators.md, RMSNormalization; its function body):
//   normalized dims: axis..rank-1 (a negative axis counts from the end), N = their element count;
//   per row r:  rms = sqrt(sum(x[r, j]^2) / N + epsilon),   y[r, j] = x[r, j] / rms * scale[j']
// where scale broadcasts (ONNX unidirectional broadcasting) to the normalized dims X.shape[axis:].
// Inputs are read exactly (float16 widened); arithmetic is double, so stash_type does not change the result.
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
  std::int64_t stash_type = 1;  ///< ONNX: the precision of the reduction (1 = float32); double here
};

/// Every output of the op: `y` (ONNX `Y`), row-major with x's shape.
struct RmsNormalizationOutputs {
  std::vector<double> y;
};

/// x (`X`): float32/float16, rank >= 1. scale (`scale`): x's dtype, broadcastable to x.shape[axis:].
RmsNormalizationOutputs rms_normalization(const HostTensor& x, const HostTensor& scale,
                                          const RmsNormalizationAttributes& attributes);

}  // namespace wgk::reference
