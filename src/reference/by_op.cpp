#include "reference/by_op.h"

#include <optional>

#include "reference/rms_normalization.h"
#include "reference/rotary_embedding.h"
#include "reference/skip_simplified_layer_normalization.h"
#include "wgk/error.h"

namespace wgk::reference {

std::vector<double> run_reference(std::string_view domain, std::string_view op,
                                  const std::map<std::string, HostTensor, std::less<>>& inputs,
                                  const std::map<std::string, double, std::less<>>& attrs) {
  auto input = [&](const char* name) -> const HostTensor& {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error(ErrorKind::kInvalidArgument, std::string("reference: missing input ") + name);
    return it->second;
  };
  auto attr = [&](const char* name, double fallback) {
    auto it = attrs.find(name);
    return it == attrs.end() ? fallback : it->second;
  };
  if (domain == "ai.onnx" && op == "RMSNormalization") {
    RmsNormalizationAttributes a;
    a.axis = static_cast<std::int64_t>(attr("axis", -1));
    a.epsilon = attr("epsilon", 1e-5);
    a.stash_type = static_cast<std::int64_t>(attr("stash_type", 1));
    return rms_normalization(input("x"), input("scale"), a).y;
  }
  if (domain == "com.microsoft" && op == "SkipSimplifiedLayerNormalization") {
    auto bias = inputs.find("bias");
    return skip_simplified_layer_normalization(input("x"), input("skip"), input("gamma"),
                                               bias == inputs.end() ? nullptr : &bias->second, attr("epsilon", 1e-5))
        .y;
  }
  if (op != "RotaryEmbedding" || (domain != "ai.onnx" && domain != "com.microsoft"))
    throw Error(ErrorKind::kNotFound, "no CPU reference for " + std::string(domain) + "::" + std::string(op));
  RotaryAttributes a;
  a.interleaved = attr("interleaved", 0) != 0;
  a.num_heads = static_cast<std::int64_t>(attr("num_heads", 0));
  a.rotary_embedding_dim = static_cast<std::int64_t>(attr("rotary_embedding_dim", 0));
  a.scale = attr("scale", 1.0);
  // Position ids a caller already narrowed to uint32 (the kernels' storage) are the same int64 values.
  std::optional<HostTensor> widened;
  auto pos = inputs.find("positionIds");
  if (pos != inputs.end() && pos->second.dtype == DType::kUInt32) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(pos->second.numel()));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(pos->second.element(static_cast<std::int64_t>(i)));
    widened = HostTensor::from(DType::kInt64, pos->second.shape, v);
  }
  const HostTensor* position_ids = widened ? &*widened : pos == inputs.end() ? nullptr : &pos->second;
  if (domain == "ai.onnx") return rotary_embedding_onnx(input("x"), input("cos"), input("sin"), position_ids, a);
  if (!position_ids) throw Error(ErrorKind::kInvalidArgument, "reference: missing input positionIds");
  return rotary_embedding_ms(input("x"), *position_ids, input("cos"), input("sin"), a);
}

}  // namespace wgk::reference
