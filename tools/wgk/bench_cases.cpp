// bench.json cases: parsing, input generation, bytes moved (see bench_cases.h).
#include "bench_cases.h"

#include "cases.h"

#include <random>

#include "wgk/error.h"

namespace wgk::cli {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kContract, where + ": " + what);
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

}  // namespace wgk::cli
