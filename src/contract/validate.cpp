// Load-time resolution, the same for both formats: derive lists in dependency order (cycles
// rejected with the cycle named), every name an expression reads resolved against the scope
// (docs/kernel-conventions.md "Render context") and the derive layers visible where it is
// evaluated, binding element types resolved, WGSL names unique within a pass.
#include <algorithm>
#include <map>
#include <set>

#include "contract/draft.h"
#include "contract/scope_names.h"
#include "wgk/error.h"

namespace wgk::contract::detail {
namespace {

template <typename Array>
bool contains(const Array& a, std::string_view s) {
  return std::find(a.begin(), a.end(), s) != a.end();
}

[[noreturn]] void fail(const std::string& where, const std::string& message) {
  throw Error(ErrorKind::kContract, where + ": " + message);
}

// Stable topological order: at each step the earliest (file order) name whose same-layer
// dependencies are all placed. A layer's name used inside the same layer refers to that layer
// (inner shadows outer), so `a: "a + 1"` is a cycle "a -> a".
std::vector<Derive> order_derive(std::vector<Derive> derive, const std::string& where) {
  const std::size_t n = derive.size();
  std::vector<std::vector<std::size_t>> deps(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::string& name : derive[i].expression.names()) {
      for (std::size_t j = 0; j < n; ++j) {
        if (derive[j].name == name) deps[i].push_back(j);
      }
    }
  }
  std::vector<bool> placed(n, false);
  std::vector<Derive> out;
  out.reserve(n);
  while (out.size() < n) {
    std::size_t pick = n;
    for (std::size_t i = 0; i < n && pick == n; ++i) {
      if (placed[i]) continue;
      const bool ready = std::all_of(deps[i].begin(), deps[i].end(), [&](std::size_t d) { return placed[d]; });
      if (ready) pick = i;
    }
    if (pick == n) {
      // Every unplaced name waits on another unplaced one: walk first unplaced dependencies from
      // the first unplaced name until one repeats; the walk from its first visit is a cycle.
      std::size_t at = 0;
      while (placed[at]) ++at;
      std::vector<std::size_t> walk;
      while (std::find(walk.begin(), walk.end(), at) == walk.end()) {
        walk.push_back(at);
        at = *std::find_if(deps[at].begin(), deps[at].end(), [&](std::size_t d) { return !placed[d]; });
      }
      std::string cycle;
      for (auto it = std::find(walk.begin(), walk.end(), at); it != walk.end(); ++it) cycle += derive[*it].name + " -> ";
      cycle += derive[at].name;
      fail(where + "." + derive[at].name, "derive cycle: " + cycle);
    }
    placed[pick] = true;
    out.push_back(std::move(derive[pick]));
  }
  return out;
}

std::string tensor_list(const Contract& c, bool outputs_too) {
  std::string s;
  auto add = [&](const std::string& name, const std::string& onnx) {
    s += (s.empty() ? "" : ", ") + name + (onnx != name ? "/" + onnx : "");
  };
  for (const Input& i : c.inputs) add(i.name, i.onnx_name);
  if (outputs_too) {
    for (const Output& o : c.outputs) add(o.name, o.onnx_name);
  }
  return s;
}

// The derive layers visible where an expression is evaluated, innermost last.
using Layers = std::vector<const std::vector<Derive>*>;

class Resolver {
 public:
  explicit Resolver(const Contract& c) : c_(c) {}

  // `context`: appended to the expression's own path when the same expression is checked in
  // several places (a struct field, once per pass that binds it).
  void check(const expr::Expression& e, const Layers& layers, const std::string& context = "") const {
    const std::string where = e.path() + context;
    for (const std::string& name : e.names()) {
      if (contains(kScopeRoots, name)) continue;
      bool found = false;
      for (const auto* layer : layers) {
        for (const Derive& d : *layer) found = found || d.name == name;
      }
      if (found) continue;
      std::string visible;
      for (const auto* layer : layers) {
        for (const Derive& d : *layer) visible += (visible.empty() ? "" : ", ") + d.name;
      }
      fail(where, "unknown name '" + name + "': not a scope root (shapes, ranks, dtypes, present, attrs, tunables, device)" +
                      (visible.empty() ? std::string(" and no derive is visible here")
                                       : " nor a derive visible here (" + visible + ")"));
    }
    for (const auto& path : e.member_paths()) check_member(path, where);
  }

 private:
  void check_member(const std::vector<std::string>& path, const std::string& where) const {
    if (path.size() < 2 || !contains(kScopeRoots, path[0])) return;
    const std::string& root = path[0];
    const std::string& member = path[1];
    const std::string spelled = root + "." + member;
    if (root == "shapes" || root == "ranks") {
      if (!c_.find_input(member) && !c_.find_output(member)) {
        fail(where, "'" + spelled + "' names no input or output (" + tensor_list(c_, true) + ")");
      }
    } else if (root == "present") {
      if (!c_.find_input(member) && !c_.find_output(member))
        fail(where, "'" + spelled + "' names no input or output (" + tensor_list(c_, true) + ")");
    } else if (root == "dtypes") {
      if (!c_.find_type_constraint(member)) {
        std::string known;
        for (const TypeConstraint& t : c_.type_constraints) known += (known.empty() ? "" : ", ") + t.name;
        fail(where, "'" + spelled + "' names no type constraint (" + known + ")");
      }
    } else if (root == "attrs") {
      if (!c_.find_attribute(member)) {
        std::string known;
        for (const Attribute& a : c_.attributes) known += (known.empty() ? "" : ", ") + a.name;
        fail(where, "'" + spelled + "' names no declared attribute (" + known + ")");
      }
    } else if (root == "tunables") {
      const bool known = std::any_of(c_.tunables.begin(), c_.tunables.end(), [&](const Tunable& t) { return t.name == member; });
      if (!known) {
        std::string list;
        for (const Tunable& t : c_.tunables) list += (list.empty() ? "" : ", ") + t.name;
        fail(where, "'" + spelled + "' names no tunable (" + list + ")");
      }
    } else if (root == "device") {
      if (member == "limits") {
        if (path.size() >= 3 && !find_webgpu_limit(path[2])) {
          fail(where, "'device.limits." + path[2] + "' is not a WebGPU limit name (e.g. maxComputeWorkgroupsPerDimension)");
        }
      } else if (member == "features") {
        if (path.size() >= 3 && !is_device_feature(path[2])) {
          fail(where, "'device.features." + path[2] + "' is not a known feature (" + kernel_feature_list(true) + ")");
        }
      } else {
        fail(where, "'" + spelled + "': device has only 'limits' and 'features'");
      }
    }
  }

  const Contract& c_;
};

}  // namespace

void validate(Draft& draft) {
  Contract& c = draft.contract;
  const std::string& src = draft.source;
  const Resolver resolver(c);

  c.derive = order_derive(std::move(c.derive), src + ": " + draft.derive_path);
  const Layers manifest_layers{&c.derive};
  for (const Derive& d : c.derive) resolver.check(d.expression, manifest_layers);
  for (const Output& o : c.outputs) {
    resolver.check(o.rank, manifest_layers);
    resolver.check(o.shape, manifest_layers);
  }
  for (const Input& i : c.inputs) {
    if (i.value_min) resolver.check(*i.value_min, manifest_layers);
    if (i.value_max) resolver.check(*i.value_max, manifest_layers);
  }
  for (const Check& check : c.checks) resolver.check(check.when, manifest_layers);

  // Which passes bind each binding: their derive layers resolve its struct values and `$name`.
  struct Use {
    std::size_t variant, pass;
  };
  std::vector<std::vector<Use>> uses(c.bindings.size());

  for (std::size_t v = 0; v < c.variants.size(); ++v) {
    Variant& variant = c.variants[v];
    variant.derive = order_derive(std::move(variant.derive), src + ": " + draft.variant_derive_paths[v]);
    const Layers variant_layers{&c.derive, &variant.derive};
    for (const Derive& d : variant.derive) resolver.check(d.expression, variant_layers);
    for (const expr::Expression& w : variant.when) resolver.check(w, variant_layers);
    for (std::size_t p = 0; p < variant.passes.size(); ++p) {
      Pass& pass = variant.passes[p];
      pass.derive = order_derive(std::move(pass.derive), src + ": " + draft.pass_derive_paths[v][p]);
      const Layers pass_layers{&c.derive, &variant.derive, &pass.derive};
      for (const Derive& d : pass.derive) resolver.check(d.expression, pass_layers);
      resolver.check(pass.dispatch.x, pass_layers);
      resolver.check(pass.dispatch.y, pass_layers);
      resolver.check(pass.dispatch.z, pass_layers);
      std::map<std::string, std::size_t> wgsl_names;
      for (std::size_t k = 0; k < pass.bindings.size(); ++k) {
        const std::size_t b = pass.bindings[k];
        auto [it, inserted] = wgsl_names.emplace(c.bindings[b].name, k);
        if (!inserted) {
          fail(src + ": variants[" + std::to_string(v) + "].passes[" + std::to_string(p) + "].bindings[" + std::to_string(k) + "]",
               "binding '" + c.bindings[b].id + "' declares the WGSL name '" + c.bindings[b].name +
                   "' that bindings[" + std::to_string(it->second) + "] ('" + c.bindings[pass.bindings[it->second]].id +
                   "') already declares");
        }
        uses[b].push_back({v, p});
      }
    }
  }

  for (std::size_t b = 0; b < c.bindings.size(); ++b) {
    const Binding& binding = c.bindings[b];
    const std::string where = src + ": " + draft.binding_paths[b];
    std::vector<std::pair<Layers, std::string>> contexts;  // layers + " (as bound by ...)"
    for (const Use& u : uses[b]) {
      const Variant& variant = c.variants[u.variant];
      contexts.push_back({{&c.derive, &variant.derive, &variant.passes[u.pass].derive},
                          " (as bound by variants[" + std::to_string(u.variant) + "] '" + variant.id + "' passes[" +
                              std::to_string(u.pass) + "])"});
    }
    if (contexts.empty()) contexts.push_back({{&c.derive}, " (bound by no pass)"});
    for (const StructField& f : binding.fields) {
      for (const auto& [layers, context] : contexts) resolver.check(f.value, layers, context);
    }
    if (binding.element_type.empty() || binding.element_type[0] != '$') continue;
    const std::string name = binding.element_type.substr(1);
    if (c.find_type_constraint(name)) continue;
    for (const auto& [layers, context] : contexts) {
      bool found = false;
      for (const auto* layer : layers) {
        for (const Derive& d : *layer) found = found || d.name == name;
      }
      if (!found) {
        fail(where + ".elementType", "'" + binding.element_type + "' names no type constraint and no derive visible" + context);
      }
    }
  }
}

}  // namespace wgk::contract::detail
