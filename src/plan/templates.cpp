// Package-load checks of the WGSL templates: parse with package-local includes, `#param` headers.
#include "plan/templates.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "contract/scope_names.h"
#include "template/template.h"
#include "wgk/error.h"

namespace wgk::plan {

using namespace wgk::contract;  // the model this stage plans from

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : " ") + n;
  return s;
}

}  // namespace

void check_templates(const Contract& contract, const PackageFiles& files, const std::string& origin) {
  // shader -> the names the manifest provides to it (roots, manifest derive, derive of its variants and passes)
  std::map<std::string, std::set<std::string, std::less<>>> provided;
  for (const auto& variant : contract.variants) {
    for (const auto& pass : variant.passes) {
      auto& names = provided[pass.shader];
      for (std::string_view root : kScopeRoots) names.emplace(root);
      for (const auto& d : contract.derive) names.insert(d.name);
      for (const auto& d : variant.derive) names.insert(d.name);
      for (const auto& d : pass.derive) names.insert(d.name);
      if (pass.fusion) names.emplace(kFusedCallsName);
    }
  }
  for (const auto& [shader, names] : provided) {
    tmpl::Template t;
    try {
      t = tmpl::Template::parse(files(shader), shader, files);
    } catch (const Error& e) {
      throw Error(e.kind(), origin + ": " + e.what());
    }
    const std::string where = origin + ": " + shader + ": ";
    if (!t.has_param_header()) {
      if (contract.format == ManifestFormat::kLegacy || t.names().empty()) continue;
      throw Error(ErrorKind::kContract, where + "no #param header: a template declares the names it reads in a comment, "
                                                "here '{# #param " + join(t.names()) + " #}' (docs/kernel-conventions.md)");
    }
    for (const auto& read : t.names())
      if (std::find(t.params().begin(), t.params().end(), read) == t.params().end())
        throw Error(ErrorKind::kContract, where + "reads '" + read + "', which its #param header (" + join(t.params()) +
                                              ") does not declare");
    for (const auto& param : t.params()) {
      if (std::find(t.names().begin(), t.names().end(), param) == t.names().end())
        throw Error(ErrorKind::kContract, where + "#param '" + param + "' is declared but never read (it reads: " +
                                              join(t.names()) + ")");
      if (!names.count(param))
        throw Error(ErrorKind::kContract, where + "#param '" + param +
                                              "' is not a name the manifest provides to this shader (a scope root "
                                              "shapes/ranks/dtypes/present/attrs/tunables/device, a manifest derive, "
                                              "a derive of a variant or pass that uses it, or fusedCalls in a pass "
                                              "with `fusion`)");
    }
  }
}

}  // namespace wgk::plan
