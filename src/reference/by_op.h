#pragma once
// The CPU reference of a kernel package's op, chosen by the contract's domain and op name, with the
// inputs by the packages' argument names (x, cos, sin, positionIds) and attributes by ONNX name.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "wgk/tensor.h"

namespace wgk::reference {

/// Runs the reference of `domain`::`op` ("ai.onnx"/"com.microsoft" RotaryEmbedding, ai.onnx RMSNormalization,
/// com.microsoft SkipSimplifiedLayerNormalization: its output y only). Attribute
/// values are numbers (ints as doubles). Returns y in double with x's shape. Throws wgk::Error
/// (kNotFound for an op without a reference; kInvalidArgument from the reference's own checks).
std::vector<double> run_reference(std::string_view domain, std::string_view op,
                                  const std::map<std::string, HostTensor, std::less<>>& inputs,
                                  const std::map<std::string, double, std::less<>>& attrs);

}  // namespace wgk::reference
