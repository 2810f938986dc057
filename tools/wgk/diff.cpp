// wgk diff [--op DOMAIN|DOMAIN.OP|all] [--count N] [--seed S] [--save DIR] [--save-all]: differential test
// against ONNX Runtime for every op with a random-case generator (src/reference/op.h plug-ins). Generates N
// random calls per op, runs ONNX Runtime's CPU execution provider on all of them in one node process
// (tests/oracles/ort_run.mjs, one-node models the plug-in describes), runs our kernel on the default adapter
// (get_kernel + Kernel::call) and the op's CPU reference, and checks the three agree on every output: GPU vs
// ORT, ORT vs reference, GPU vs reference. A disagreement names the case; --save writes it as a case folder
// (../shared/cases/README.md format) that `wgk test --cases DIR` runs. Exit status 1 on any disagreement or
// rejected call. docs/testing.md has details.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "cases.h"
#include "command.h"
#include "option_values.h"
#include "progress.h"
#include "resolve.h"
#include "io/npy.h"
#include "reference/compare.h"
#include "reference/op.h"
#include "reference/rounding.h"
#include "wgk/error.h"
#include "wgk/introspect.h"

namespace wgk::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// One generated call of one op.
struct DiffCase {
  const reference::OpPlugin* op = nullptr;
  reference::RandomCase c;
};

std::string op_key(const reference::OpPlugin& op) { return op.domain + "." + op.op; }
std::string kernel_id(const reference::OpPlugin& op) { return "webgpu-kernels/" + op_key(op); }

// Each op draws from its own stream (the seed mixed with an FNV-1a hash of its name), so --op X reproduces
// X's cases of --op all.
std::uint64_t stream_of(const reference::OpPlugin& op) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char ch : op_key(op)) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  return h;
}

nlohmann::json attrs_json(const Attributes& attrs) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : attrs) std::visit([&](auto x) { j[k] = x; }, v);
  return j;
}

// Typed for the ONNX AttributeProto: a FLOAT 1.0 must not become an INT 1 in JSON.
nlohmann::json typed_attrs_json(const Attributes& attrs) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : attrs) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) j[k] = {{"type", "INT"}, {"value", *i}};
    if (const auto* d = std::get_if<double>(&v)) j[k] = {{"type", "FLOAT"}, {"value", *d}};
    if (const auto* t = std::get_if<std::string>(&v)) j[k] = {{"type", "STRING"}, {"value", *t}};
    if (const auto* l = std::get_if<std::vector<std::int64_t>>(&v)) j[k] = {{"type", "INTS"}, {"value", *l}};
    if (const auto* l = std::get_if<std::vector<double>>(&v)) j[k] = {{"type", "FLOATS"}, {"value", *l}};
    if (const auto* l = std::get_if<std::vector<std::string>>(&v)) j[k] = {{"type", "STRINGS"}, {"value", *l}};
  }
  return j;
}

// The dtype of each output: the type its constraint variable binds in this call (from an input of the same
// variable), else the one type its constraint allows (ORT's U = float32 for inv_std_var), else the case dtype.
std::map<std::string, DType> output_dtypes(const contract::Contract& contract, const DiffCase& d) {
  std::map<std::string, DType> out;
  for (const auto& o : contract.outputs) {
    DType t = d.c.dtype;
    if (const auto* tc = contract.find_type_constraint(o.dtype); tc && tc->allowed.size() == 1) t = tc->allowed.front();
    for (const auto& in : contract.inputs)
      if (in.dtype == o.dtype && d.c.inputs.count(in.name)) t = d.c.inputs.at(in.name).dtype;
    out[o.name] = t;
  }
  return out;
}

std::string onnx_input_name(const contract::Contract& contract, const std::string& name) {
  const auto* in = contract.find_input(name);
  return in && !in->onnx_name.empty() ? in->onnx_name : name;
}
std::string onnx_output_name(const contract::Contract& contract, const std::string& name) {
  const auto* out = contract.find_output(name);
  return out && !out->onnx_name.empty() ? out->onnx_name : name;
}

std::vector<std::string> upstream_order(const contract::Contract& contract, const DiffCase& d) {
  std::vector<std::string> order;
  for (const auto& n : d.op->node.inputs)
    if (d.c.inputs.count(n)) order.push_back(onnx_input_name(contract, n));
  return order;
}

/// Writes `d` as a case folder (case.json + .npy; ../shared/cases/README.md) with ORT's outputs as expected.
void save_case(const fs::path& dir, const contract::Contract& contract, const DiffCase& d,
               const reference::Tensors& ort, const std::string& ort_version, const Attributes& tunables,
               const std::string& command, const nlohmann::json& observed) {
  fs::create_directories(dir);
  nlohmann::json j;
  j["kernel"] = kernel_id(*d.op);
  j["domain"] = d.op->domain;
  j["op"] = d.op->op;
  j["dtype"] = std::string(dtype_name(d.c.dtype));
  j["attributes"] = attrs_json(d.c.attrs);
  for (const auto& [name, t] : d.c.inputs) {
    io::write_npy(dir / (name + ".npy"), t);
    j["inputs"][name] = name + ".npy";
    j["shapes"][name] = t.shape;
  }
  j["upstream_input_order"] = upstream_order(contract, d);
  for (const auto& [name, t] : ort) {
    io::write_npy(dir / (name + ".npy"), t);
    j["expected"][name] = name + ".npy";
  }
  j["oracle"] = "onnxruntime " + ort_version + " CPUExecutionProvider";
  j["tolerance"] = {{"abs", d.c.tolerance.abs}, {"rel", d.c.tolerance.rel}, {"why", d.c.tolerance_why}};
  if (!tunables.empty()) j["tunables"] = attrs_json(tunables);
  j["generator"] = {{"command", command}, {"case", d.c.name}};
  j["observed"] = observed;
  std::ofstream(dir / "case.json") << j.dump(1) << "\n";
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

/// The worst error of one comparison kind over a run, and where.
struct Worst {
  double abs = 0;
  std::string where;
  void add(const reference::Comparison& cmp, const std::string& name) {
    if (where.empty() || cmp.max_abs_error > abs) abs = cmp.max_abs_error, where = name;
  }
};

struct OpTally {
  int passed = 0, failed = 0;
  std::map<std::string, Worst> worst;  ///< "<dtype> gpu-ort" etc.
  std::map<std::string, int> variants;
};

}  // namespace

WGK_COMMAND("diff", "Differential test against ONNX Runtime (CPU EP): random calls of every op with a generator, three-way check with the CPU reference") {
  struct Options {
    std::string op = "all", dtype = "all";
    int count = 200;
    std::uint64_t seed = 0;
    bool seed_given = false;
    std::string save, oracle = "tests/oracles/ort_run.mjs", node = "node", workdir;
    bool save_all = false, keep = false, verbose = false;
    std::vector<std::string> tunables;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("--op", o->op, "a domain (ai.onnx, com.microsoft), a DOMAIN.OP (ai.onnx.RotaryEmbedding) or all (default)");
  sub.add_option("--dtype", o->dtype, "float32, float16 or all (default all: half each)")
      ->check(CLI::IsMember({"float32", "float16", "all"}));
  integer_in(sub.add_option("--count", o->count, "random cases per op (default 200)"), 1, 1000000);
  integer_in(sub.add_option_function<std::uint64_t>("--seed", [o](std::uint64_t s) { o->seed = s, o->seed_given = true; },
                                                    "seed of the case generator (default: from the clock; printed)"),
             std::uint64_t{0}, std::numeric_limits<std::uint64_t>::max());
  CLI::Option* save = non_empty(sub.add_option("--save", o->save, "write failing cases here as case folders (case.json + .npy); the folder is created when missing, checked before any case runs"));
  sub.add_flag("--save-all", o->save_all, "with --save: write every case, passing or not")->needs(save);
  non_empty(sub.add_option("--oracle", o->oracle, "the ORT runner script (default tests/oracles/ort_run.mjs, from the repo root)"));
  non_empty(sub.add_option("--node", o->node, "node executable (default node)"));
  non_empty(sub.add_option("--workdir", o->workdir, "folder for inputs and ORT outputs (default: a fresh temp folder, removed after)"));
  sub.add_flag("--keep", o->keep, "keep the work folder");
  sub.add_option("--tunable", o->tunables,
                 "NAME=VALUE: a tunable override for every call (repeatable or comma-separated, as in wgk run; e.g. "
                 "WORKGROUP_SIZE=64, F16_STORAGE=packed)")
      ->delimiter(',');
  sub.add_flag("-v,--verbose", o->verbose, "print every case");
  return [o]() -> int {
    const Attributes tunables = parse_name_values(o->tunables, "--tunable");
    if (!o->seed_given) o->seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    std::ostringstream cmd;
    cmd << "wgk diff --op " << o->op << (o->dtype == "all" ? "" : " --dtype " + o->dtype) << " --count " << o->count << " --seed " << o->seed;
    for (const std::string& t : o->tunables) cmd << " --tunable " << t;
    const std::string command = cmd.str();
    std::cout << "seed: " << o->seed << "  (reproduce: " << command << ")" << std::endl;
    if (!o->save.empty()) output_folder("--save", o->save);  // before any case runs: a file there fails first
    if (!fs::exists(o->oracle))
      throw Error(ErrorKind::kNotFound, "--oracle " + o->oracle + ": no such file (run from the repo root or pass --oracle)");

    // 1. Generate. Each op draws from its own stream so --op X reproduces X's cases of --op all.
    const auto t_start = Clock::now();
    std::vector<const reference::OpPlugin*> ops;
    std::string known;
    for (const reference::OpPlugin* op : reference::all_ops()) {
      if (!op->generate) continue;
      known += (known.empty() ? "" : ", ") + op_key(*op);
      if (o->op == "all" || o->op == op->domain || o->op == op_key(*op)) ops.push_back(op);
    }
    if (ops.empty())
      throw Error(ErrorKind::kInvalidArgument, "--op " + o->op + ": no op with a random-case generator matches (have: " +
                                                   (known.empty() ? "none" : known) + ")");
    std::vector<DiffCase> cases;
    for (const reference::OpPlugin* op : ops) {
      std::mt19937_64 rng(o->seed ^ stream_of(*op));
      for (int i = 0; i < o->count; ++i) {
        DiffCase d{op, op->generate(rng, i)};
        if (o->dtype != "all" && o->dtype != dtype_name(d.c.dtype)) {
          // Same case in the other dtype: float inputs of the case dtype rounded once more (f32 -> f16 is exact
          // the other way), the tolerance of the new dtype's case.
          const DType want = *parse_dtype(o->dtype);
          for (auto& [name, t] : d.c.inputs)
            if (t.dtype == d.c.dtype) t = reference::round_to_tensor(reference::to_doubles(t), want, t.shape);
          const std::string from = d.c.dtype == DType::kFloat16 ? "_f16" : "_f32", to = want == DType::kFloat16 ? "_f16" : "_f32";
          if (const auto at = d.c.name.find(from); at != std::string::npos) d.c.name.replace(at, from.size(), to);
          d.c.dtype = want;
          if (op->set_tolerance) op->set_tolerance(d.c);
        }
        cases.push_back(std::move(d));
      }
    }
    std::map<std::string, Kernel> kernels;
    auto device = Device::default_device();
    auto kernel_of = [&](const reference::OpPlugin& op) -> const Kernel& {
      auto it = kernels.find(op_key(op));
      if (it == kernels.end()) it = kernels.emplace(op_key(op), get_kernel(kernel_id(op), {.version = 1}, device)).first;
      return it->second;
    };

    // 2. Inputs as .npy + the manifest; one node process runs ORT on all of them.
    // Default: under /dev/shm (memory) when there is one: a run writes ~6 small files per case, and creating
    // and removing tens of thousands of them on a disk took minutes (measured: docs/testing.md).
    std::error_code shm_ec;
    const fs::path temp_root = fs::is_directory("/dev/shm", shm_ec) && ::access("/dev/shm", W_OK) == 0
                                   ? fs::path("/dev/shm")
                                   : fs::temp_directory_path();
    const fs::path work = !o->workdir.empty() ? fs::path(o->workdir)
                                              : temp_root / ("wgk-diff-" + std::to_string(::getpid()) + "-" + std::to_string(o->seed));
    output_folder(o->workdir.empty() ? "the work folder" : "--workdir", work.string());
    // Removes the work folder on every exit, errors included (not a --workdir or --keep one).
    struct RemoveOnExit {
      fs::path path;
      ~RemoveOnExit() {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
      }
    } remove_work{o->workdir.empty() && !o->keep ? work : fs::path()};
    nlohmann::json manifest;
    manifest["cases"] = nlohmann::json::array();
    for (const auto& d : cases) {
      const auto& contract = *introspect::contract(kernel_of(*d.op));
      const fs::path dir = work / d.c.name;
      fs::create_directories(dir);
      nlohmann::json entry{{"name", d.c.name}, {"op_type", d.op->node.op_type}, {"domain", d.op->node.domain},
                           {"opset", d.op->node.opset}, {"attributes", typed_attrs_json(d.c.attrs)}};
      entry["inputs"] = nlohmann::json::array();
      for (const auto& n : d.op->node.inputs) {  // node order; an omitted optional input is ""
        auto it = d.c.inputs.find(n);
        if (it == d.c.inputs.end()) {
          entry["inputs"].push_back({{"name", ""}});
          continue;
        }
        io::write_npy(dir / (n + ".npy"), it->second);
        entry["inputs"].push_back({{"name", onnx_input_name(contract, n)}, {"path", (dir / (n + ".npy")).string()}});
      }
      const auto dtypes = output_dtypes(contract, d);
      entry["outputs"] = nlohmann::json::array();
      for (const auto& n : d.op->node.outputs) {  // node order; an output we do not compare is "" (not asked of ORT)
        if (n.empty()) {
          entry["outputs"].push_back({{"name", ""}});
          continue;
        }
        entry["outputs"].push_back({{"name", onnx_output_name(contract, n)}, {"path", (dir / ("ort_" + n + ".npy")).string()},
                                    {"dtype", std::string(dtype_name(dtypes.at(n)))}});
      }
      manifest["cases"].push_back(entry);
    }
    std::ofstream(work / "manifest.json") << manifest.dump();
    const auto t_generated = Clock::now();
    const std::string node_cmd = shell_quote(o->node) + " " + shell_quote(o->oracle) + " " + shell_quote((work / "manifest.json").string());
    std::cerr << "wgk diff: ONNX Runtime on " << cases.size() << " cases (one node process)..." << std::endl;
    const int rc = std::system(node_cmd.c_str());
    if (rc != 0)
      throw Error(ErrorKind::kInternal, "ONNX Runtime runner failed (exit status " +
                                            std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) + "): " + node_cmd);
    nlohmann::json results;
    {
      std::ifstream in(work / "manifest.results.json");
      if (!in) throw Error(ErrorKind::kIo, "cannot read " + (work / "manifest.results.json").string());
      results = nlohmann::json::parse(in);
    }
    const std::string ort_version = results.value("ort", "?");
    const auto t_ort = Clock::now();

    // 3. Our kernel and the reference on each case; three comparisons per output.
    std::cout << "adapter: " << device->description() << (device->has_shader_f16() ? " [shader-f16]" : " [no shader-f16]")
              << "\noracle:  onnxruntime " << ort_version << " CPUExecutionProvider (" << results.value("sessions", 0)
              << " sessions for " << cases.size() << " cases)\n";
    for (const auto& [key, k] : kernels) print_kernel(k);
    std::map<std::string, OpTally> tallies;
    double gpu_s = 0, ref_s = 0;
    int saved = 0;
    Progress progress("wgk diff: wgk and the reference", cases.size());
    std::size_t done = 0;
    for (const auto& d : cases) {
      progress.update(done++, d.c.name);
      const Kernel& kernel = kernel_of(*d.op);
      const auto& contract = *introspect::contract(kernel);
      OpTally& tally = tallies[op_key(*d.op)];
      const std::string dt(dtype_name(d.c.dtype));
      std::string failure;
      nlohmann::json observed;
      reference::Tensors ort;
      const nlohmann::json res = results["results"].value(d.c.name, nlohmann::json::object());
      const auto dtypes = output_dtypes(contract, d);
      // The node's outputs we compare (a "" position, e.g. SkipSimplifiedLayerNormalization's mean, is not ours),
      // each asked of our kernel too (an optional output is produced only when asked).
      std::vector<std::string> compared;
      for (const auto& n : d.op->node.outputs)
        if (!n.empty()) compared.push_back(n);
      if (!res.value("ok", false)) {
        failure = "ORT rejected the call: " + res.value("error", std::string("no result"));
      } else {
        for (const auto& n : compared) {
          ort[n] = io::read_npy(work / d.c.name / ("ort_" + n + ".npy"));
          if (ort[n].dtype != dtypes.at(n))
            failure += "ORT output " + n + " is " + std::string(dtype_name(ort[n].dtype)) + " " + shape_string(ort[n].shape) + "; ";
        }
      }
      if (failure.empty()) {
        auto t0 = Clock::now();
        std::optional<reference::Results> ref;
        try {
          ref = reference_outputs(contract, d.c.inputs, d.c.attrs, compared);
        } catch (const Error& e) {
          failure = std::string("reference rejected the call: ") + e.what();
        }
        auto t1 = Clock::now();
        ref_s += std::chrono::duration<double>(t1 - t0).count();
        std::optional<reference::Tensors> gpu;
        try {
          Inputs inputs;
          for (const auto& [name, t] : d.c.inputs) inputs.emplace(name, t);
          CallInfo info;
          reference::Tensors got;
          for (const auto& [name, t] : kernel.call(inputs, d.c.attrs, tunables, &info, compared)) got[name] = t.read();
          gpu = std::move(got);
          tally.variants[info.variant]++;
          observed["variant"] = info.variant;
        } catch (const Error& e) {
          failure += (failure.empty() ? "" : "; ") + std::string("wgk rejected the call: ") + e.what();
        }
        gpu_s += std::chrono::duration<double>(Clock::now() - t1).count();
        reference::Results ort_values;
        for (const auto& [n, t] : ort) ort_values[n] = {t.shape, reference::to_doubles(t)};
        auto check = [&](const char* what, const reference::Tensors& actual, const reference::Results& expected) {
          std::string problems;
          for (const auto& oc : compare_outputs(actual, expected, [&](const std::string&) { return d.c.tolerance; }, &problems)) {
            const std::string label = compared.size() > 1 ? std::string(what) + " " + oc.name : std::string(what);
            tally.worst[dt + " " + label].add(oc.comparison, d.c.name);
            observed[label] = oc.comparison.max_abs_error;
            if (!oc.comparison.ok()) failure += (failure.empty() ? "" : "; ") + label + ": " + oc.comparison.summary();
          }
          if (!problems.empty()) failure += (failure.empty() ? "" : "; ") + std::string(what) + ": " + problems;
        };
        if (gpu) check("gpu-vs-ort", *gpu, ort_values);
        if (ref) check("ort-vs-reference", ort, *ref);
        if (gpu && ref) check("gpu-vs-reference", *gpu, *ref);
      }
      (failure.empty() ? tally.passed : tally.failed)++;
      if (!failure.empty() || o->verbose) {
        std::cout << (failure.empty() ? "PASS " : "FAIL ") << d.c.name << " " << attrs_json(d.c.attrs).dump();
        for (const auto& [name, t] : d.c.inputs) std::cout << " " << name << shape_string(t.shape);
        std::cout << (failure.empty() ? "" : ": " + failure) << "\n";
      }
      if (!o->save.empty() && !ort.empty() && (o->save_all || !failure.empty())) {
        save_case(fs::path(o->save) / d.c.name, contract, d, ort, ort_version, tunables, command, observed);
        ++saved;
      }
    }
    progress.update(done);
    const auto t_end = Clock::now();
    auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };

    // 4. Summary.
    int failed = 0;
    for (const auto& [domain, t] : tallies) {
      failed += t.failed;
      std::cout << domain << ": " << t.passed << " passed, " << t.failed << " failed\n";
      std::size_t width = 26;  // the longest label ("float16 gpu-vs-reference inputSkipBiasSum") and a space
      for (const auto& [what, w] : t.worst) width = std::max(width, what.size() + 1);
      for (const auto& [what, w] : t.worst)
        std::cout << "  worst " << std::left << std::setw(static_cast<int>(width)) << what << std::right << std::setprecision(3) << std::scientific
                  << w.abs << std::defaultfloat << "  (" << w.where << ")\n";
      std::cout << "  variants:";
      for (const auto& [v, n] : t.variants) std::cout << " " << v << "=" << n;
      std::cout << "\n";
    }
    std::cout << std::fixed << std::setprecision(2) << "time: " << secs(t_start, t_end) << " s (generate "
              << secs(t_start, t_generated) << ", ORT " << secs(t_generated, t_ort) << ", wgk " << gpu_s << ", reference "
              << ref_s << ")\n"
              << std::defaultfloat;
    if (saved) std::cout << "saved " << saved << " case folder(s) under " << o->save << " (run: wgk test --cases " << o->save << ")\n";
    if (remove_work.path.empty()) std::cout << "work folder: " << work.string() << "\n";
    std::cout << "seed: " << o->seed << (failed ? "  FAILED" : "  ok") << "\n";
    return failed ? 1 : 0;
  };
}

}  // namespace wgk::cli
