#pragma once
// Test support: the seed manifests' expressions, the call scope the runtime builds for them
// (kernel-conventions.md "Render context"), and a lazily evaluating derive scope.
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "expr/expression.h"

namespace wgk::expr::testing {

inline nlohmann::json load_seed(const std::string& prefix) {
  std::string dir = std::string(WGK_SHARED_DIR) + "/seeds/";
  std::string path = dir + (prefix == "004" ? "004_ded27aa6d1102877.manifest.json" : "000_77f1e8aecd9ac6c6.manifest.json");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

/// Every expression string of a manifest (current or legacy format), as (json path, text).
inline std::vector<std::pair<std::string, std::string>> seed_expressions(const nlohmann::json& m) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](const std::string& path, const nlohmann::json& v) {
    if (v.is_string()) out.emplace_back(path, v.get<std::string>());
  };
  auto add_object = [&](const std::string& path, const nlohmann::json& obj) {
    if (!obj.is_object()) return;
    for (const auto& [k, v] : obj.items()) add(path + "." + k, v);
  };
  auto add_struct = [&](const std::string& path, const nlohmann::json& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) add(path + "[" + std::to_string(i) + "].value", fields[i]["value"]);
  };
  add_object("derive", m["derive"]);
  if (m["outputs"].is_object()) {
    for (const auto& [k, o] : m["outputs"].items()) {
      add("outputs." + k + ".rank", o["rank"]);
      add("outputs." + k + ".shape", o["shape"]);
    }
  } else {
    for (std::size_t i = 0; i < m["outputs"].size(); ++i) {
      add("outputs[" + std::to_string(i) + "].rank", m["outputs"][i]["rank"]);
      add("outputs[" + std::to_string(i) + "].shape", m["outputs"][i]["shape"]);
    }
  }
  if (m.contains("bindings")) {
    for (const auto& [k, b] : m["bindings"].items()) {
      if (b.contains("struct")) add_struct("bindings." + k + ".struct", b["struct"]);
    }
  }
  if (m.contains("bindingSets")) {
    for (const auto& [k, set] : m["bindingSets"].items()) {
      for (std::size_t i = 0; i < set.size(); ++i) {
        if (set[i].contains("struct")) {
          add_struct("bindingSets." + k + "[" + std::to_string(i) + "].struct.fields", set[i]["struct"]["fields"]);
        }
      }
    }
  }
  for (std::size_t v = 0; v < m["variants"].size(); ++v) {
    const auto& var = m["variants"][v];
    std::string vp = "variants[" + std::to_string(v) + "]";
    for (std::size_t w = 0; w < var["when"].size(); ++w) add(vp + ".when[" + std::to_string(w) + "]", var["when"][w]);
    add_object(vp + ".derive", var.value("derive", nlohmann::json::object()));
    add_object(vp + ".constants", var.value("constants", nlohmann::json::object()));
    for (std::size_t p = 0; p < var["passes"].size(); ++p) {
      const auto& pass = var["passes"][p];
      std::string pp = vp + ".passes[" + std::to_string(p) + "]";
      add_object(pp + ".derive", pass.value("derive", nlohmann::json::object()));
      add_object(pp + ".dispatch", pass["dispatch"]);
      if (pass.contains("source")) add_object(pp + ".source.inputs", pass["source"]["inputs"]);
    }
  }
  return out;
}

/// One call of RotaryEmbedding as the runtime's scope sees it. Shapes are given under the argument
/// names (x, cos, sin, positionIds, y) and also the ONNX names (X, cos_cache, ...), as the
/// conventions say.
struct Call {
  std::vector<std::int64_t> x = {}, cos = {}, sin = {};
  std::optional<std::vector<std::int64_t>> position_ids = std::nullopt;
  std::string T = "f32";
  bool shader_f16 = true;
  std::optional<std::int64_t> num_heads = std::nullopt;
  std::int64_t interleaved = 0, rotary_embedding_dim = 0;
  std::int64_t workgroup_size = 256;
  std::int64_t max_workgroups_per_dimension = 65535;
  std::int64_t max_invocations = 256, max_workgroup_size_x = 256;
};

inline Value shape_value(const std::vector<std::int64_t>& s) {
  List l;
  for (auto d : s) l.emplace_back(d);
  return Value(std::move(l));
}

inline Object call_scope(const Call& c) {
  Object shapes, ranks, present;
  auto put = [&](const std::string& arg, const std::string& onnx, const std::optional<std::vector<std::int64_t>>& s) {
    present[arg] = Value(s.has_value());
    present[onnx] = Value(s.has_value());
    if (!s) return;
    shapes[arg] = shapes[onnx] = shape_value(*s);
    ranks[arg] = ranks[onnx] = Value(static_cast<std::int64_t>(s->size()));
  };
  put("x", "X", c.x);
  put("cos", "cos_cache", c.cos);
  put("sin", "sin_cache", c.sin);
  put("positionIds", "position_ids", c.position_ids);
  put("y", "Y", c.x);  // the output's shape is X's (outputs.y.shape = shapes.x)
  Object attrs{{"interleaved", c.interleaved}, {"rotary_embedding_dim", c.rotary_embedding_dim}};
  if (c.num_heads) attrs["num_heads"] = Value(*c.num_heads);
  return Object{
      {"shapes", shapes},
      {"ranks", ranks},
      {"present", present},
      {"dtypes", Object{{"T", c.T}, {"M", "u32"}}},
      {"attrs", attrs},
      {"tunables", Object{{"WORKGROUP_SIZE", c.workgroup_size}}},
      {"device", Object{{"limits", Object{{"maxComputeWorkgroupsPerDimension", c.max_workgroups_per_dimension},
                                          {"maxComputeInvocationsPerWorkgroup", c.max_invocations},
                                          {"maxComputeWorkgroupSizeX", c.max_workgroup_size_x}}},
                        {"features", Object{{"shader_f16", c.shader_f16}, {"timestamp_query", false}, {"subgroups", false}}}}},
  };
}

/// Derive names over a parent scope, evaluated on first use (derive values may reference each other).
class DeriveScope : public Scope {
 public:
  DeriveScope(const std::map<std::string, Expression, std::less<>>& derive, const Scope& parent)
      : derive_(derive), parent_(parent) {}
  Value lookup(std::string_view name) const override {
    auto it = derive_.find(name);
    if (it == derive_.end()) return parent_.lookup(name);
    for (const auto& [n, v] : memo_) {
      if (n == name) return v;
    }
    Value v = it->second.evaluate(*this);
    memo_.emplace_back(it->first, v);
    return v;
  }

 private:
  const std::map<std::string, Expression, std::less<>>& derive_;
  const Scope& parent_;
  mutable std::vector<std::pair<std::string_view, Value>> memo_;
};

inline std::map<std::string, Expression, std::less<>> parse_derive(const nlohmann::json& derive, const std::string& prefix) {
  std::map<std::string, Expression, std::less<>> out;
  for (const auto& [k, v] : derive.items()) {
    if (v.is_string()) {
      out.emplace(k, Expression::parse(v.get<std::string>(), prefix + "." + k));
    } else if (v.is_number_integer()) {
      out.emplace(k, Expression::parse(std::to_string(v.get<std::int64_t>()), prefix + "." + k));
    }
  }
  return out;
}

/// The id of the variant the design's rule picks: every `when` holds; highest priority; ties by
/// file order. Empty when none holds.
inline std::string select_variant(const nlohmann::json& m, const Scope& scope) {
  std::string best;
  std::int64_t best_priority = 0;
  for (const auto& var : m["variants"]) {
    bool ok = true;
    for (const auto& w : var["when"]) {
      if (!Expression::parse(w.get<std::string>(), "when").evaluate(scope).truthy()) {
        ok = false;
        break;
      }
    }
    std::int64_t priority = var.value("priority", 0);
    if (ok && (best.empty() || priority > best_priority)) {
      best = var["id"].get<std::string>();
      best_priority = priority;
    }
  }
  return best;
}

}  // namespace wgk::expr::testing
