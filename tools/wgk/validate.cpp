// wgk validate <package folder | id>: loads the package (sha256-verified), walks a grid of small call
// signatures over every dtype, rank, position-id form and attribute value its contract admits (RotaryEmbedding
// packages; any other package: the signatures of its test.json cases that expect no error), and for
// each admitted signature selects a variant, renders every pass and compiles each distinct WGSL text on
// the current adapter. Fails (exit 1) when a variant is never reached, a render or compile fails, or a
// signature passes every check but no variant serves it.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>
#include <variant>

#include "cases.h"
#include "command.h"
#include "resolve.h"
#include "store/store.h"
#include "contract/plan.h"
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

/// The knobs of one grid point (the RotaryEmbedding geometry; docs/kernels.md).
struct GridPoint {
  DType t;
  std::string f16_storage;  ///< "" when the tunable is not declared or T is float32
  int x_rank, cache_rank;
  enum class Pos { kAbsent, kTable, kOffsetScalar, kOffsetVector } pos;
  std::int64_t batch, seq, heads, head, rotary;  ///< rotary 0: attribute left at its default
  std::int64_t interleaved;
  bool give_num_heads;
};

bool admits_rank(const contract::Input& in, int rank) {
  return in.ranks.empty() || std::find(in.ranks.begin(), in.ranks.end(), rank) != in.ranks.end();
}

/// The call signature of one grid point; nullopt when the contract cannot even express it (rank).
std::optional<contract::CallSignature> signature_of(const contract::Contract& c, const GridPoint& g) {
  const auto* x = c.find_input("x");
  const auto* cos = c.find_input("cos");
  const auto* sin = c.find_input("sin");
  const auto* pos = c.find_input("positionIds");
  contract::CallSignature call;
  if (!admits_rank(*x, g.x_rank) || !admits_rank(*cos, g.cache_rank) || !admits_rank(*sin, g.cache_rank)) return std::nullopt;
  call.inputs[x->name] = {g.t, g.x_rank == 3 ? Shape{g.batch, g.seq, g.heads * g.head} : Shape{g.batch, g.heads, g.seq, g.head}};
  const std::int64_t pairs = (g.rotary ? g.rotary : g.head) / 2;
  const Shape cache = g.cache_rank == 2 ? Shape{g.batch * g.seq + g.seq, pairs} : Shape{g.batch, g.seq, pairs};
  call.inputs[cos->name] = {g.t, cache};
  call.inputs[sin->name] = {g.t, cache};
  if (g.pos != GridPoint::Pos::kAbsent) {
    if (!pos) return std::nullopt;
    const int rank = g.pos == GridPoint::Pos::kTable ? 2 : g.pos == GridPoint::Pos::kOffsetScalar ? 0 : 1;
    if (!admits_rank(*pos, rank)) return std::nullopt;
    const Shape shape = rank == 2 ? Shape{g.batch, g.seq} : rank == 0 ? Shape{} : Shape{1};
    const auto* m = c.find_type_constraint(pos->dtype);
    call.inputs[pos->name] = {m && !m->allowed.empty() ? m->allowed.front() : DType::kInt64, shape};
  } else if (pos && !pos->optional) {
    return std::nullopt;
  }
  if (g.rotary) call.attrs["rotary_embedding_dim"] = g.rotary;
  if (c.find_attribute("interleaved")) call.attrs["interleaved"] = g.interleaved;
  if (g.give_num_heads) call.attrs["num_heads"] = g.heads;
  if (!g.f16_storage.empty()) call.tunables["F16_STORAGE"] = g.f16_storage;
  return call;
}

std::string signature_text(const contract::CallSignature& call) {
  std::string s;
  for (const auto& [name, t] : call.inputs) s += (s.empty() ? "" : ", ") + name + ": " + std::string(dtype_name(t.dtype)) + shape_string(t.shape);
  for (const auto& [name, v] : call.attrs) s += "; " + name + "=" + v.repr();
  for (const auto& [name, v] : call.tunables) s += "; " + name + "=" + v.repr();
  return s;
}

/// Every grid point of the contract: dtypes of x's constraint, F16_STORAGE values (f16 only), ranks,
/// position-id forms, head sizes 6..64, whole and partial rotation, the `interleaved` values.
std::vector<GridPoint> grid(const contract::Contract& c) {
  std::vector<GridPoint> out;
  const auto* x = c.find_input("x");
  const auto* tc = c.find_type_constraint(x->dtype);
  const auto* interleaved = c.find_attribute("interleaved");
  std::vector<std::int64_t> interleaved_values = {0};
  if (interleaved && !interleaved->allowed_values.empty()) {
    interleaved_values.clear();
    for (const auto& v : interleaved->allowed_values) interleaved_values.push_back(v.as_int());
  }
  const bool f16_tunable = c.find_tunable("F16_STORAGE") != nullptr;
  for (DType t : tc->allowed) {
    std::vector<std::string> storages = {""};
    if (t == DType::kFloat16 && f16_tunable) storages = {"native", "packed"};
    for (const auto& storage : storages)
      for (int x_rank : {3, 4})
        for (int cache_rank : {2, 3})
          for (auto pos : {GridPoint::Pos::kAbsent, GridPoint::Pos::kTable, GridPoint::Pos::kOffsetScalar, GridPoint::Pos::kOffsetVector})
            for (std::int64_t head : {6, 8, 12, 16, 20, 64})
              for (std::int64_t rotary : {std::int64_t{0}, (head / 2) & ~std::int64_t{1}})
                for (std::int64_t il : interleaved_values)
                  for (bool give_num_heads : {true, false})
                    out.push_back({t, storage, x_rank, cache_rank, pos, 2, 3, 3, head, rotary, il, give_num_heads});
  }
  return out;
}

}  // namespace

WGK_COMMAND("validate", "Render and compile every variant of a package over a grid of call signatures on this adapter") {
  struct Options {
    std::string package;
    PackageSelector pin;
    bool verbose = false;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("package", o->package, "package folder (README.md + build/webgpu/) or id (webgpu-kernels/...)")->required();
  add_package_options(sub, o->pin, false);
  sub.add_flag("--verbose,-v", o->verbose, "print one reaching signature per variant and every failure");
  return [o]() -> int {
    // A folder is checked against any pin given with it, like --package elsewhere.
    PackageSelector pin = o->pin;
    std::string id = o->package;
    if (fs::is_directory(o->package)) {
      pin.package = o->package;
      id = store::load_package_directory(o->package)->id;
    }
    const Kernel kernel = resolve_kernel(id, pin);
    const std::shared_ptr<const contract::Contract> contract = introspect::contract(kernel);
    const contract::Contract& c = *contract;
    const contract::DeviceCaps& adapter = introspect::caps(*kernel.device());
    print_kernel(kernel);
    std::cout << "adapter: " << kernel.device()->description() << "\n";
    // The signatures: the RotaryEmbedding grid for a package with its inputs, else every non-error case of
    // the package's test.json (its dtype, shapes, attributes and tunables).
    std::vector<contract::CallSignature> calls;
    if (c.find_input("x") && c.find_input("cos") && c.find_input("sin")) {
      for (const GridPoint& g : grid(c))
        if (auto call = signature_of(c, g)) calls.push_back(std::move(*call));
    } else {
      const auto tests = nlohmann::json::parse(introspect::package_file(kernel, "test.json"));
      const auto to_value = [](const AttributeValue& v) { return std::visit([](const auto& x) { return expr::Value(x); }, v); };
      for (std::size_t i = 0; i < tests.at("cases").size(); ++i) {
        const Case t = case_from_json(tests["cases"][i], "test.json: cases[" + std::to_string(i) + "]");
        if (!t.expected_error.empty()) continue;
        contract::CallSignature call;
        for (const auto& [name, host] : t.inputs) call.inputs[name] = {host.dtype, host.shape};
        for (const auto& [name, v] : t.attrs) call.attrs[name] = to_value(v);
        for (const auto& [name, v] : t.tunables) call.tunables[name] = to_value(v);
        calls.push_back(std::move(call));
      }
    }

    // Two planners: the adapter as it is, and the same adapter with shader-f16 flipped, so the
    // variants a feature gates are rendered either way (compiled where the adapter can).
    const auto templates = [kernel](const std::string& file) { return introspect::package_file(kernel, file); };
    contract::DeviceCaps flipped = adapter;
    flipped.shader_f16 = !flipped.shader_f16;
    struct Caps {
      std::string name;
      contract::DeviceCaps caps;
    };
    const std::vector<Caps> all_caps = {{"adapter", adapter},
                                        {adapter.shader_f16 ? "adapter without shader-f16" : "adapter with shader-f16", flipped}};

    std::map<std::string, VariantReport> reports;
    for (const auto& v : c.variants) reports[v.id];
    std::map<std::string, bool> compiled_texts;  // WGSL text -> compiled OK
    std::size_t tried = 0, rejected = 0, unserved = 0;
    std::vector<std::string> unserved_examples, other_failures;
    for (const auto& caps : all_caps) {
      contract::Planner planner(contract, caps.caps, templates);
      for (const contract::CallSignature& signature : calls) {
        const contract::CallSignature* call = &signature;
        ++tried;
        contract::Selection selection;
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
        std::shared_ptr<const contract::Plan> plan;
        try {
          plan = planner.plan(*call);
        } catch (const Error& e) {
          report.failures.push_back("render " + signature_text(*call) + ": " + e.what());
          continue;
        }
        for (const auto& planned : plan->passes) {
          const std::string& wgsl = planned.program->wgsl;
          const auto& pass = planned;
          if (compiled_texts.count(wgsl)) continue;
          ++report.wgsl_texts;
          if (!adapter.shader_f16 && wgsl.find("enable f16;") != std::string::npos) {
            ++report.capability;
            compiled_texts[wgsl] = true;
            continue;
          }
          try {
            introspect::compile_wgsl(*kernel.device(), wgsl, c.domain + "." + c.name + "/" + selection.variant->id + "/" + pass.pass->id);
            ++report.compiled;
            compiled_texts[wgsl] = true;
          } catch (const Error& e) {
            compiled_texts[wgsl] = false;
            report.failures.push_back("compile " + signature_text(*call) + " pass " + pass.pass->id + ": " + e.what());
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
