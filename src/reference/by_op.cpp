#include "reference/by_op.h"

#include "reference/rotary_embedding.h"
#include "wgk/error.h"

namespace wgk::reference {

std::vector<double> run_reference(std::string_view domain, std::string_view op,
                                  const std::map<std::string, HostTensor, std::less<>>& inputs,
                                  const std::map<std::string, double, std::less<>>& attrs) {
  if (op != "RotaryEmbedding" || (domain != "ai.onnx" && domain != "com.microsoft"))
    throw Error(ErrorKind::kNotFound, "no CPU reference for " + std::string(domain) + "::" + std::string(op));
  auto input = [&](const char* name) -> const HostTensor& {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error(ErrorKind::kInvalidArgument, std::string("reference: missing input ") + name);
    return it->second;
  };
  auto attr = [&](const char* name, double fallback) {
    auto it = attrs.find(name);
    return it == attrs.end() ? fallback : it->second;
  };
  RotaryAttributes a;
  a.interleaved = attr("interleaved", 0) != 0;
  a.num_heads = static_cast<std::int64_t>(attr("num_heads", 0));
  a.rotary_embedding_dim = static_cast<std::int64_t>(attr("rotary_embedding_dim", 0));
  a.scale = attr("scale", 1.0);
  if (domain == "ai.onnx") {
    auto pos = inputs.find("positionIds");
    return rotary_embedding_onnx(input("x"), input("cos"), input("sin"), pos == inputs.end() ? nullptr : &pos->second, a);
  }
  return rotary_embedding_ms(input("x"), input("positionIds"), input("cos"), input("sin"), a);
}

}  // namespace wgk::reference
