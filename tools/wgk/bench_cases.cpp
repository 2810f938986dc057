// bench.json cases: parsing, input generation, bytes moved (see bench_cases.h).
#include "bench_cases.h"

#include "cases.h"

#include <random>
#include <set>

#include "wgk/error.h"

namespace wgk::cli {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kContract, where + ": " + what);
}

const HostTensor* find(const std::map<std::string, HostTensor, std::less<>>& inputs, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto it = inputs.find(n); it != inputs.end()) return &it->second;
  return nullptr;
}

}  // namespace

BenchCase bench_case_from_json(const nlohmann::json& entry, const std::string& where_in) {
  if (!entry.is_object()) bad(where_in, "a case must be an object");
  BenchCase c;
  c.name = entry.value("name", "");
  const std::string where = where_in + " (" + c.name + ")";
  if (c.name.empty()) bad(where, "`name` is required");
  const std::string dtype = entry.value("dtype", "float32");
  const auto d = parse_dtype(dtype);
  if (!d || (*d != DType::kFloat32 && *d != DType::kFloat16)) bad(where, "`dtype` " + dtype + " is not float32/float16");
  c.dtype = *d;
  const nlohmann::json attrs = entry.value("attrs", nlohmann::json::object());
  for (const auto& [k, v] : attrs.items()) c.attrs[k] = attribute_from_json(v, where + ".attrs." + k);
  const nlohmann::json tunables = entry.value("tunables", nlohmann::json::object());
  for (const auto& [k, v] : tunables.items()) c.tunables[k] = attribute_from_json(v, where + ".tunables." + k);
  if (entry.contains("tags"))
    for (const auto& t : entry["tags"]) c.tags.push_back(t.get<std::string>());
  if (!entry.contains("inputs") || !entry["inputs"].is_object()) bad(where, "`inputs` must be an object");
  for (const auto& [name, spec] : entry["inputs"].items())
    if (!spec.is_object() || !spec.contains("shape") || !spec["shape"].is_array())
      bad(where + ".inputs." + name, "needs a `shape` list");
  c.inputs = entry["inputs"];
  return c;
}

std::map<std::string, HostTensor, std::less<>> make_inputs(const BenchCase& c) {
  // Up to 2^30 elements a tensor: the largest bench case moves 1 GiB.
  return generate_inputs(c.inputs, c.dtype, 1, c.name + ".inputs", std::int64_t{1} << 30);
}

MovedBytes moved_bytes(const std::map<std::string, HostTensor, std::less<>>& inputs) {
  MovedBytes m;
  const HostTensor* x = find(inputs, {"x", "X", "input"});
  const HostTensor* cos = find(inputs, {"cos", "cos_cache"});
  const HostTensor* sin = find(inputs, {"sin", "sin_cache"});
  const HostTensor* pos = find(inputs, {"positionIds", "position_ids"});
  if (!x) return m;
  m.x = x->data.size();
  m.y = x->data.size();
  if (pos) m.position_ids = static_cast<std::uint64_t>(pos->numel()) * 4;
  if (cos && sin && !cos->shape.empty()) {
    std::uint64_t rows = 0;
    if (pos && pos->numel() > 1) {
      std::set<std::int64_t> distinct;
      for (std::int64_t i = 0; i < pos->numel(); ++i) {
        std::int64_t v;
        std::memcpy(&v, pos->data.data() + 8 * i, 8);
        distinct.insert(v);
      }
      rows = distinct.size();
    } else {
      // One offset (com.microsoft) or no ids (ai.onnx: cos/sin already per token): one row per token.
      const std::int64_t seq = x->shape.size() == 4 ? x->shape[2] : x->shape.size() >= 2 ? x->shape[1] : 1;
      rows = static_cast<std::uint64_t>(seq);
      if (!pos) rows = static_cast<std::uint64_t>(cos->numel() / cos->shape.back());
    }
    const std::uint64_t row_bytes = static_cast<std::uint64_t>(cos->shape.back()) * dtype_size(cos->dtype);
    m.cos_sin = 2 * rows * row_bytes;
  }
  return m;
}

}  // namespace wgk::cli
