// wgk validate <package folder | id>: loads the package (sha256-verified), enumerates call signatures from its
// contract and its cases, and for each admitted signature selects a variant, renders every pass and compiles
// each distinct WGSL text on the current adapter. Signatures: the inputs (shapes, dtypes), attributes and
// tunables of every test.json and bench.json case that is not an expected error, each under every dtype its
// type constraints allow, every tunable value any case uses (and the default), and every allowed value of
// each constrained attribute. Fails (exit 1) when a variant is never reached, a render or compile fails, or
// a signature passes every check but no variant serves it. Nothing in it names an op.
// --device plans for a preset's capabilities (compiling on the adapter what it can); --plans DIR writes every
// signature's plan (variant, shader, dispatch, bindings, uniform bytes, WGSL digest) to DIR/plans.jsonl and each
// distinct WGSL text to DIR/wgsl/<sha256>.wgsl, so two versions of a package can be compared call by call
// (scripts/plan_diff.py).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cases.h"
#include "command.h"
#include "option_values.h"
#include "contract_eval.h"
#include "progress.h"
#include "resolve.h"
#include "store/digest.h"
#include "store/store.h"
#include "plan/plan.h"
#include "plan/boundary.h"
#include "wgk/introspect.h"
#include "wgk/error.h"
#include "wgk/kernel.h"

namespace wgk::cli {
namespace fs = std::filesystem;

namespace {

/// Per-variant tallies of one validation run.
struct VariantReport {
  std::size_t signatures = 0;     ///< admitted signatures that selected this variant
  std::size_t wgsl_texts = 0;     ///< distinct rendered WGSL texts (all passes)
  std::size_t compiled = 0;       ///< of those, compiled on the adapter
  std::size_t capability = 0;     ///< rendered, not compiled: needs shader-f16 the adapter lacks
  std::vector<std::string> failures;
  std::string example;            ///< one signature that reached the variant
};

/// The signature of one test.json/bench.json entry without generating data: shapes from `shape`, dtypes
/// from the entry's own `dtype`, int64 for `values`/`randomInt`, else the case dtype. nullopt for an
/// expected-error case or an entry whose inputs the tools would refuse anyway. Its attributes and tunables are
/// read as `wgk test` reads them (attribute_from_json) and must meet the contract's rule for each declared one
/// (contract::attribute_value, contract::tunable_value), as the call's boundary checks them: a value either
/// refuses throws wgk::Error naming `where`, the case, the field and the rule (before, such a value was dropped
/// and the signature planned with the default, or refused by the planner among the grid's rejected signatures).
std::optional<plan::CallSignature> signature_of_case(const contract::Contract& c, const nlohmann::json& entry,
                                                     const std::string& where) {
  if (!entry.is_object() || entry.contains("error") || !entry.contains("inputs") || !entry["inputs"].is_object())
    return std::nullopt;
  const auto dtype = parse_dtype(entry.value("dtype", std::string("float32")));
  if (!dtype) return std::nullopt;
  plan::CallSignature call;
  for (const auto& [name, spec] : entry["inputs"].items()) {
    if (!spec.is_object() || !spec.contains("shape") || !spec["shape"].is_array() || spec.contains("truncate")) return std::nullopt;
    Shape shape;
    for (const auto& d : spec["shape"]) {
      if (!d.is_number_integer()) return std::nullopt;
      shape.push_back(d.get<std::int64_t>());
    }
    std::optional<DType> t = *dtype;
    if (spec.contains("dtype")) t = parse_dtype(spec["dtype"].get<std::string>());
    else if (spec.contains("randomInt") || spec.contains("values")) t = DType::kInt64;
    if (!t) return std::nullopt;
    call.inputs[name] = {*t, shape};
  }
  const std::string at = where + " (" + entry.value("name", "") + ").";
  for (const std::string key : {"attrs", "tunables"}) {
    if (!entry.contains(key)) continue;
    if (!entry[key].is_object()) throw Error(ErrorKind::kContract, at + key + ": must be an object of name: value");
    for (const auto& [name, v] : entry[key].items()) {
      const std::string field = at + key + "." + name;
      expr::Value x = plan::attribute_value(attribute_from_json(v, field));
      try {
        if (key == "attrs") {
          if (const contract::Attribute* a = c.find_attribute(name)) x = contract::attribute_value(*a, x);
        } else if (const contract::Tunable* tunable = c.find_tunable(name)) {
          x = contract::tunable_value(*tunable, x);
        }
      } catch (const Error& e) {
        throw Error(e.kind(), field + ": " + e.what());
      }
      (key == "attrs" ? call.attrs : call.tunables)[name] = std::move(x);
    }
  }
  return call;
}

/// Every signature: each case's, crossed with the dtypes of each type constraint its float inputs use and
/// the tunable values, then one attribute at a time set to each of its allowed values.
std::vector<plan::CallSignature> signatures(const contract::Contract& c, const std::vector<plan::CallSignature>& cases) {
  std::map<std::string, std::vector<expr::Value>> tunable_values;  // the default first, then every value a case uses
  for (const auto& t : c.tunables) tunable_values[t.name].push_back(t.default_value);
  for (const auto& call : cases)
    for (const auto& [name, v] : call.tunables) {
      auto& values = tunable_values[name];
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
  std::vector<plan::CallSignature> out;
  std::set<std::string> seen;
  // Every optional output the contract declares: each signature is also tried asking for all of them, so
  // that the template paths they enable (`present.<output>`) are rendered and compiled too.
  std::vector<std::string> optional_outputs;
  for (const auto& o : c.outputs)
    if (o.optional) optional_outputs.push_back(o.name);
  auto add_one = [&](const plan::CallSignature& call) {
    std::string key;
    for (const auto& [n, t] : call.inputs) key += n + ":" + std::string(dtype_name(t.dtype)) + shape_string(t.shape) + ";";
    for (const auto& [n, v] : call.attrs) key += n + "=" + v.repr() + ";";
    for (const auto& [n, v] : call.tunables) key += n + "=" + v.repr() + ";";
    for (const auto& n : call.outputs) key += "out:" + n + ";";
    if (seen.insert(key).second) out.push_back(call);
  };
  auto add = [&](const plan::CallSignature& call) {
    add_one(call);
    if (optional_outputs.empty()) return;
    plan::CallSignature all = call;
    all.outputs = optional_outputs;
    add_one(all);
  };
  for (const auto& base : cases) {
    // Retyped: every constraint variable bound by a float input, to each type it allows.
    std::vector<plan::CallSignature> typed = {base};
    for (const auto& tc : c.type_constraints) {
      std::vector<plan::CallSignature> next;
      for (const auto& call : typed) {
        bool binds = false;
        for (const auto& in : c.inputs)
          if (in.dtype == tc.name && call.inputs.count(in.name)) binds = true;
        if (!binds) {
          next.push_back(call);
          continue;
        }
        for (DType d : tc.allowed) {
          plan::CallSignature t = call;
          for (const auto& in : c.inputs)
            if (in.dtype == tc.name && t.inputs.count(in.name)) t.inputs[in.name].dtype = d;
          next.push_back(t);
        }
      }
      typed = std::move(next);
    }
    for (const auto& call : typed) {
      std::vector<plan::CallSignature> tuned = {call};
      for (const auto& [name, values] : tunable_values) {
        std::vector<plan::CallSignature> next;
        for (const auto& t : tuned)
          for (const auto& v : values) {
            plan::CallSignature u = t;
            u.tunables[name] = v;
            next.push_back(u);
          }
        tuned = std::move(next);
      }
      for (const auto& t : tuned) {
        add(t);
        for (const auto& a : c.attributes)
          for (const auto& v : a.allowed_values) {
            plan::CallSignature u = t;
            // A list attribute's allowed values are its elements': a list of that one element.
            u.attrs[a.name] = contract::is_list_type(a.type) ? expr::Value(expr::List{v}) : v;
            add(u);
          }
      }
    }
  }
  return out;
}

std::string signature_text(const plan::CallSignature& call) {
  std::string s;
  for (const auto& [name, t] : call.inputs) s += (s.empty() ? "" : ", ") + name + ": " + std::string(dtype_name(t.dtype)) + shape_string(t.shape);
  for (const auto& [name, v] : call.attrs) s += "; " + name + "=" + v.repr();
  for (const auto& [name, v] : call.tunables) s += "; " + name + "=" + v.repr();
  for (std::size_t i = 0; i < call.outputs.size(); ++i) s += (i ? ", " : "; outputs asked for: ") + call.outputs[i];
  return s;
}

/// One line of --plans: the call, the capabilities and what the planner made of it.
nlohmann::ordered_json plan_record(const std::string& caps, const plan::CallSignature& call, const plan::Plan& plan) {
  nlohmann::ordered_json passes = nlohmann::ordered_json::array();
  for (const auto& p : plan.passes) {
    nlohmann::ordered_json bindings = nlohmann::ordered_json::array();
    for (const auto& b : p.bindings) {
      std::string bytes;
      for (std::byte v : b.uniform) {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned>(v));
        bytes += hex;
      }
      bindings.push_back({{"slot", b.slot}, {"name", b.binding->name}, {"id", b.binding->id}, {"type", b.wgsl_type}, {"uniform", bytes}});
    }
    passes.push_back({{"pass", p.pass->id},
                      {"name", p.pass->name},
                      {"shader", p.pass->shader},
                      {"dispatch", p.workgroups},
                      {"bindings", bindings},
                      {"wgsl", store::sha256_hex(p.program->wgsl)}});
  }
  return {{"caps", caps}, {"signature", signature_text(call)}, {"variant", plan.variant->id}, {"passes", passes}};
}

}  // namespace

WGK_COMMAND("validate", "Render and compile every variant of a package over a grid of call signatures on this adapter") {
  struct Options {
    std::string package;
    PackageSelector pin;
    bool verbose = false;
    std::string device;
    std::string plans;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("package", o->package, "package folder (README.md + build/webgpu/) or id (webgpu-kernels/...)")->required();
  add_package_options(sub, o->pin, false);
  sub.add_flag("--verbose,-v", o->verbose, "print one reaching signature per variant and every failure");
  non_empty(sub.add_option("--device", o->device,
                           "plan for these capabilities: webgpu-default | lavapipe | h200 | a limits JSON file (default: the "
                           "adapter in use); WGSL is still compiled on the adapter where it can be"));
  non_empty(sub.add_option("--plans", o->plans,
                           "write every signature's plan to DIR/plans.jsonl and each WGSL text to DIR/wgsl/<sha256>.wgsl "
                           "(DIR is created when missing)"));
  return [o]() -> int {
    // A folder is checked against any pin given with it, like --package elsewhere.
    const Kernel kernel = resolve_package(o->package, o->pin);
    const std::shared_ptr<const contract::Contract> contract = introspect::contract(kernel);
    const contract::Contract& c = *contract;
    const plan::DeviceCaps adapter = o->device.empty() ? introspect::caps(*kernel.device()) : parse_device(o->device);
    const bool adapter_f16 = introspect::caps(*kernel.device()).shader_f16;
    std::ofstream plans;
    if (!o->plans.empty()) {
      output_folder("--plans", (output_folder("--plans", o->plans) / "wgsl").string());
      plans.open(fs::path(o->plans) / "plans.jsonl", std::ios::binary);
      if (!plans) throw Error(ErrorKind::kIo, "--plans: cannot write " + (fs::path(o->plans) / "plans.jsonl").string());
    }
    print_kernel(kernel);
    std::cout << "adapter: " << kernel.device()->description() << "\n";
    std::vector<plan::CallSignature> case_signatures;
    for (const char* file : {"test.json", "bench.json"}) {
      std::string text;
      try {
        text = introspect::package_file(kernel, file);
      } catch (const Error&) {
        continue;  // a package may lack bench.json
      }
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception& e) {
        throw Error(ErrorKind::kContract, kernel.id() + ": " + file + ": " + e.what());
      }
      const nlohmann::json entries = j.value("cases", nlohmann::json::array());
      for (std::size_t i = 0; i < entries.size(); ++i) {
        // An input dtype its type constraint refuses, or an attribute or tunable the contract refuses, fails the
        // case in `wgk test` and `wgk bench`: refused here too.
        const std::string where = kernel.id() + ": " + file + ": cases[" + std::to_string(i) + "]";
        check_case_input_dtypes(c, entries[i], where);
        if (auto call = signature_of_case(c, entries[i], where)) case_signatures.push_back(std::move(*call));
      }
    }
    if (case_signatures.empty())
      throw Error(ErrorKind::kContract, kernel.id() + ": test.json and bench.json hold no case to take a signature from");
    const std::vector<plan::CallSignature> all_signatures = signatures(c, case_signatures);

    // Two planners: the adapter as it is, and the same adapter with shader-f16 flipped, so the
    // variants a feature gates are rendered either way (compiled where the adapter can).
    const auto templates = [kernel](const std::string& file) { return introspect::package_file(kernel, file); };
    plan::DeviceCaps flipped = adapter;
    flipped.shader_f16 = !flipped.shader_f16;
    struct Caps {
      std::string name;
      plan::DeviceCaps caps;
    };
    const std::string base = o->device.empty() ? "adapter" : o->device;
    const std::vector<Caps> all_caps = {{base, adapter},
                                        {base + (adapter.shader_f16 ? " without shader-f16" : " with shader-f16"), flipped}};

    std::map<std::string, VariantReport> reports;
    for (const auto& v : c.variants) reports[v.id];
    std::map<std::string, bool> compiled_texts;  // WGSL text -> compiled OK
    std::size_t tried = 0, rejected = 0, unserved = 0;
    std::vector<std::string> unserved_examples, other_failures;
    for (const auto& caps : all_caps) {
      plan::Planner planner(contract, caps.caps, templates);
      Progress progress("wgk validate: " + caps.name, all_signatures.size());
      std::size_t done = 0;
      for (const auto& signature : all_signatures) {
        progress.update(done++);
        const auto* call = &signature;
        ++tried;
        plan::Selection selection;
        try {
          selection = planner.select(*call);
        } catch (const Error& e) {
          if (e.kind() == ErrorKind::kInvalidArgument) {
            ++rejected;
            continue;
          }
          other_failures.push_back(caps.name + ": " + signature_text(*call) + ": " + e.what());
          continue;
        }
        if (!selection.variant) {
          ++unserved;
          if (unserved_examples.size() < 5) unserved_examples.push_back(caps.name + ": " + signature_text(*call) + ": " + selection.failure);
          continue;
        }
        VariantReport& report = reports[selection.variant->id];
        ++report.signatures;
        if (report.example.empty()) report.example = caps.name + ": " + signature_text(*call);
        std::shared_ptr<const plan::Plan> plan;
        try {
          plan = planner.plan(*call);
        } catch (const Error& e) {
          report.failures.push_back("render " + signature_text(*call) + ": " + e.what());
          continue;
        }
        if (plans.is_open()) {
          plans << plan_record(caps.name, *call, *plan).dump() << "\n";
          for (const auto& planned : plan->passes) {
            const fs::path file = fs::path(o->plans) / "wgsl" / (store::sha256_hex(planned.program->wgsl) + ".wgsl");
            if (!fs::exists(file)) std::ofstream(file, std::ios::binary) << planned.program->wgsl;
          }
        }
        // A pass with `fusion` is also rendered for every number of fused calls 2..K a Batch can make of it
        // here (docs/kernel-conventions.md "Fused calls"): K = plan::fused_layout's calls.
        // Only K's text is compiled: a smaller k's is the same text with fewer calls' bindings and cases, and
        // compiling each k tripled validate's time on lavapipe (RMSNormalization: 3,872 programs, 94 s, against
        // 1,936); fusion_test dispatches k = 2 and 3 on the adapter.
        std::vector<std::pair<std::shared_ptr<const plan::Plan>, std::uint32_t>> planned_calls{{plan, 1}};
        if (plan->passes.size() == 1 && plan->passes[0].pass->fusion) {
          const std::int64_t most = plan::fused_layout(c, plan->passes[0], caps.caps).calls;
          for (std::int64_t k = 2; k <= most; ++k) {
            try {
              auto fused = planner.plan_fused(*call, static_cast<std::uint32_t>(k));
              if (k == most) planned_calls.emplace_back(std::move(fused), static_cast<std::uint32_t>(k));
            } catch (const Error& e) {
              report.failures.push_back("render " + signature_text(*call) + " for " + std::to_string(k) + " fused calls: " + e.what());
            }
          }
        }
        for (const auto& [fused_plan, fused_calls] : planned_calls)
        for (const auto& planned : fused_plan->passes) {
          const std::string& wgsl = planned.program->wgsl;
          const auto& pass = planned;
          const std::string calls_text = fused_calls > 1 ? " (" + std::to_string(fused_calls) + " fused calls)" : "";
          if (compiled_texts.count(wgsl)) continue;
          ++report.wgsl_texts;
          if (!adapter_f16 && wgsl.find("enable f16;") != std::string::npos) {
            ++report.capability;
            compiled_texts[wgsl] = true;
            continue;
          }
          try {
            introspect::compile_wgsl(*kernel.device(), wgsl, c.domain + "." + c.name + "/" + selection.variant->id + "/" + pass.pass->id + calls_text);
            ++report.compiled;
            compiled_texts[wgsl] = true;
          } catch (const Error& e) {
            compiled_texts[wgsl] = false;
            report.failures.push_back("compile " + signature_text(*call) + " pass " + pass.pass->id + calls_text + ": " + e.what());
          }
        }
      }
    }

    bool ok = unserved == 0 && other_failures.empty();
    std::cout << "signatures: " << tried << " tried, " << rejected << " rejected by the contract's checks, " << unserved
              << " passed every check but no variant serves them\n\n";
    std::cout << std::left << std::setw(34) << "variant" << std::right << std::setw(11) << "signatures" << std::setw(7)
              << "wgsl" << std::setw(10) << "compiled" << std::setw(9) << "no-f16" << std::setw(9) << "failed" << "  status\n";
    for (const auto& v : c.variants) {
      const VariantReport& r = reports[v.id];
      std::string status = "ok";
      if (r.signatures == 0) status = "NEVER REACHED";
      else if (!r.failures.empty()) status = "FAILED";
      else if (r.capability && !r.compiled) status = "ok (rendered; adapter lacks shader-f16)";
      if (status != "ok" && status.rfind("ok", 0) != 0) ok = false;
      std::cout << std::left << std::setw(34) << v.id << std::right << std::setw(11) << r.signatures << std::setw(7)
                << r.wgsl_texts << std::setw(10) << r.compiled << std::setw(9) << r.capability << std::setw(9)
                << r.failures.size() << "  " << status << "\n";
      if (o->verbose && !r.example.empty()) std::cout << "    e.g. " << r.example << "\n";
      for (std::size_t i = 0; i < r.failures.size() && (o->verbose || i < 3); ++i) std::cout << "    " << r.failures[i] << "\n";
    }
    for (const auto& s : unserved_examples) std::cout << "unserved: " << s << "\n";
    for (const auto& s : other_failures) std::cout << "error: " << s << "\n";
    std::cout << (ok ? "validate: OK\n" : "validate: FAILED\n");
    return ok ? 0 : 1;
  };
}

}  // namespace wgk::cli
