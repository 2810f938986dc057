// wgk diff [--op ai.onnx|com.microsoft|all] [--count N] [--seed S] [--save DIR] [--save-all]: differential
// test against ONNX Runtime. Generates N random RotaryEmbedding calls per op inside both contracts (ours and
// ORT's), runs ONNX Runtime's CPU execution provider on all of them in one node process
// (tests/oracles/ort_run.mjs), runs our kernel on the default adapter (get_kernel + Kernel::call) and the CPU
// reference (src/reference), and checks the three agree: GPU vs ORT, ORT vs reference, GPU vs reference.
// A disagreement names the case; --save writes it as a case folder (../shared/cases/README.md format) that
// `wgk test --cases DIR` runs. Exit status 1 on any disagreement or rejected call. docs/testing.md has details.
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
#include "resolve.h"
#include "io/npy.h"
#include "reference/by_op.h"
#include "reference/compare.h"
#include "reference/rounding.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Integers in [lo, hi] and doubles in [-1, 1) from our own mapping of mt19937_64's output (the standard
// distributions differ between standard libraries; this keeps a seed's cases the same everywhere).
std::int64_t pick(std::mt19937_64& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
}
bool coin(std::mt19937_64& rng) { return (rng() >> 63) != 0; }
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0; }

HostTensor random_float(DType dtype, const Shape& shape, std::mt19937_64& rng) {
  std::vector<double> values(static_cast<std::size_t>(numel(shape)));
  for (double& v : values) v = uniform(rng);
  return reference::round_to_tensor(values, dtype, shape);
}

HostTensor random_positions(const Shape& shape, std::int64_t lo, std::int64_t hi, std::mt19937_64& rng) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(numel(shape)));
  for (auto& v : values) v = pick(rng, lo, hi);
  return HostTensor::from(DType::kInt64, shape, values);
}

/// One generated call: the op, the dtype, INT attributes as the ONNX node carries them, and the inputs by
/// the packages' argument names (x, cos, sin, positionIds).
struct DiffCase {
  std::string name;
  std::string domain;
  DType dtype = DType::kFloat32;
  Attributes attrs;
  std::map<std::string, HostTensor, std::less<>> inputs;
};

// Dimension ranges: small tensors (<= 3 * 8 * 5 * 32 elements) so thousands of cases run in seconds on a
// software adapter; head sizes are every even number 2..32, so 2, 6, 10, 14, ... (not divisible by 4) and
// 4, 12, 20, 28 (not by 8) occur as often as multiples of 8; head counts 1..5 include odd ones.
struct Dims {
  std::int64_t batch, seq, heads, head, rotary;
};
Dims random_dims(std::mt19937_64& rng) {
  Dims d{};
  d.batch = pick(rng, 1, 3);
  d.seq = pick(rng, 1, 8);
  d.heads = pick(rng, 1, 5);
  d.head = 2 * pick(rng, 1, 16);
  // Half whole-head rotation (rotary_embedding_dim = 0), half an even prefix 2..head (== head included).
  d.rotary = coin(rng) ? 0 : 2 * pick(rng, 1, d.head / 2);
  return d;
}

std::string tag(const DiffCase& c, const char* op, int index, const Dims& d, int rank, const std::string& pos) {
  std::ostringstream s;
  s << op << "_" << std::setw(5) << std::setfill('0') << index << "_" << (c.dtype == DType::kFloat16 ? "f16" : "f32")
    << "_r" << rank << "_" << pos;
  if (std::get<std::int64_t>(c.attrs.at("interleaved"))) s << "_inter";
  if (d.rotary) s << "_rot" << d.rotary;
  s << "_h" << d.heads << "x" << d.head;
  return s.str();
}

/// ai.onnx::RotaryEmbedding-23 (ONNX Operators.md): rank 3 (num_heads given) or rank 4 (num_heads given or
/// not); with position_ids (batch, seq) into a (max_pos, rotary/2) cache, or without, cos/sin of
/// (batch, seq, rotary/2).
DiffCase generate_onnx(std::mt19937_64& rng, int index) {
  DiffCase c;
  c.domain = "ai.onnx";
  c.dtype = coin(rng) ? DType::kFloat16 : DType::kFloat32;
  const Dims d = random_dims(rng);
  const int rank = coin(rng) ? 4 : 3;
  c.attrs["interleaved"] = std::int64_t{coin(rng)};
  c.attrs["rotary_embedding_dim"] = d.rotary;
  // At rank 4 the heads are X's dimension 1 and num_heads is not consulted (spec; ORT accepts any value):
  // absent, equal to the head count, or another count.
  if (rank == 3) c.attrs["num_heads"] = d.heads;
  else if (const auto form = pick(rng, 0, 2); form > 0) c.attrs["num_heads"] = form == 1 ? d.heads : pick(rng, 1, 5);
  const Shape x = rank == 4 ? Shape{d.batch, d.heads, d.seq, d.head} : Shape{d.batch, d.seq, d.heads * d.head};
  const std::int64_t half = (d.rotary ? d.rotary : d.head) / 2;
  c.inputs["x"] = random_float(c.dtype, x, rng);
  const bool with_positions = coin(rng);
  if (with_positions) {
    // max_pos seq .. 2 * seq + 2. The spec admits any max_pos >= 1 (ids < max_pos), and so do we, but ORT's
    // CPU kernel rejects max_pos < seq ("Updating cos_cache and sin_cache ... is not currently supported"):
    // docs/testing.md lists this among the ORT-vs-spec differences.
    const std::int64_t max_pos = pick(rng, d.seq, 2 * d.seq + 2);
    c.inputs["cos"] = random_float(c.dtype, {max_pos, half}, rng);
    c.inputs["sin"] = random_float(c.dtype, {max_pos, half}, rng);
    c.inputs["positionIds"] = random_positions({d.batch, d.seq}, 0, max_pos - 1, rng);
  } else {
    c.inputs["cos"] = random_float(c.dtype, {d.batch, d.seq, half}, rng);
    c.inputs["sin"] = random_float(c.dtype, {d.batch, d.seq, half}, rng);
  }
  c.name = tag(c, "onnx", index, d, rank, with_positions ? "pos" : "nopos");
  return c;
}

/// com.microsoft::RotaryEmbedding (ORT ContribOperators.md, seed card 001): rank 3 with num_heads > 0, or
/// num_heads = 0 (head = 2 * cos width, whole-head rotation); rank 4 (batch, heads, seq, head); position_ids
/// a (batch, seq) table, a base offset of shape [1], or a scalar base offset; cos/sin (max_seq, rotary/2).
DiffCase generate_ms(std::mt19937_64& rng, int index) {
  DiffCase c;
  c.domain = "com.microsoft";
  c.dtype = coin(rng) ? DType::kFloat16 : DType::kFloat32;
  Dims d = random_dims(rng);
  const int rank = coin(rng) ? 4 : 3;
  c.attrs["interleaved"] = std::int64_t{coin(rng)};
  std::int64_t num_heads = d.heads;
  if (rank == 3 && pick(rng, 0, 2) == 0) {
    num_heads = 0;  // head size from the cache width: only whole-head rotation is defined then
    d.rotary = 0;
  } else if (rank == 4) {
    // Not consulted at rank 4 (heads are dimension 1): 0, the head count, or another count. ORT's kernel
    // constructor requires num_heads > 0 with rotary_embedding_dim > 0 at any rank (ours only at rank 3):
    // docs/testing.md.
    const auto form = pick(rng, d.rotary ? 1 : 0, 2);
    num_heads = form == 0 ? 0 : form == 1 ? d.heads : pick(rng, 1, 5);
  }
  c.attrs["num_heads"] = num_heads;
  c.attrs["rotary_embedding_dim"] = d.rotary;
  const Shape x = rank == 4 ? Shape{d.batch, d.heads, d.seq, d.head} : Shape{d.batch, d.seq, d.heads * d.head};
  const std::int64_t half = (d.rotary ? d.rotary : d.head) / 2;
  c.inputs["x"] = random_float(c.dtype, x, rng);
  // max_seq >= seq: ORT's CPU kernel rejects a cache shorter than the sequence (docs/testing.md).
  const std::int64_t max_seq = pick(rng, d.seq, 2 * d.seq + 2);
  c.inputs["cos"] = random_float(c.dtype, {max_seq, half}, rng);
  c.inputs["sin"] = random_float(c.dtype, {max_seq, half}, rng);
  const int form = static_cast<int>(pick(rng, 0, 2));
  std::string pos;
  if (form == 0) {
    c.inputs["positionIds"] = random_positions({d.batch, d.seq}, 0, max_seq - 1, rng);
    pos = "table";
  } else {
    c.inputs["positionIds"] = random_positions(form == 1 ? Shape{1} : Shape{}, 0, max_seq - d.seq, rng);
    pos = form == 1 ? "offset" : "scalar";
  }
  c.name = tag(c, "ms", index, d, rank, pos);
  return c;
}

/// The tolerance of one comparison, with its justification (docs/testing.md derives the numbers).
struct Bound {
  reference::Tolerance tolerance;
  const char* why;
};
// Outputs are |y| = |a*c -+ b*s| <= 2 (every input in [-1, 1)).
// f32: each implementation computes the two products and the sum in f32 (<= 3 roundings of <= 2^-24 * 2 each),
// a few ulps of 2 (2^-22 = 2.4e-7); 1e-5 leaves a 40x margin and still fails on any index, sign or cache-row
// mistake (errors of order 0.1 .. 1).
constexpr Bound kF32{{1e-5, 0}, "f32 vs f32: a few f32 ulps of |y| <= 2 (2.4e-7 each); 1e-5 abs"};
// f16 (measured: docs/testing.md): ORT's CPU kernel and ours both compute in f32 and round once to f16, so
// they differ by at most one f16 ulp of |y| < 2 (2^-10 = 9.8e-4) where the two f32 results straddle a rounding
// boundary; 2 ulps at [1, 2) = 1.95e-3 bounds that with a margin, and each side is within half an ulp of the
// exact (double) result. 2e-3 abs.
constexpr Bound kF16{{2e-3, 0}, "f16 vs f16: each rounds an f32 rotation once; <= 1 f16 ulp of |y| < 2 apart; 2e-3 abs"};
const Bound& bound_for(DType dtype) { return dtype == DType::kFloat16 ? kF16 : kF32; }

std::string kernel_id(const std::string& domain) { return "webgpu-kernels/" + domain + ".RotaryEmbedding"; }

std::vector<std::string> upstream_order(const DiffCase& c) {
  std::vector<std::string> order = c.domain == "ai.onnx" ? std::vector<std::string>{"x", "cos", "sin", "positionIds"}
                                                         : std::vector<std::string>{"x", "positionIds", "cos", "sin"};
  std::erase_if(order, [&](const std::string& n) { return !c.inputs.count(n); });
  return order;
}

nlohmann::json attrs_json(const Attributes& attrs) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : attrs) std::visit([&](auto x) { j[k] = x; }, v);
  return j;
}

/// Writes `c` as a case folder (case.json + .npy; ../shared/cases/README.md) with ORT's output as expected y.
void save_case(const fs::path& dir, const DiffCase& c, const HostTensor& ort_y, const std::string& ort_version,
               const Attributes& tunables, const std::string& command, const nlohmann::json& observed) {
  fs::create_directories(dir);
  nlohmann::json j;
  j["kernel"] = kernel_id(c.domain);
  j["domain"] = c.domain;
  j["op"] = "RotaryEmbedding";
  j["dtype"] = std::string(dtype_name(c.dtype));
  j["attributes"] = attrs_json(c.attrs);
  for (const auto& [name, t] : c.inputs) {
    io::write_npy(dir / (name + ".npy"), t);
    j["inputs"][name] = name + ".npy";
    j["shapes"][name] = t.shape;
  }
  j["upstream_input_order"] = upstream_order(c);
  io::write_npy(dir / "y.npy", ort_y);
  j["expected"]["y"] = "y.npy";
  j["oracle"] = "onnxruntime " + ort_version + " CPUExecutionProvider";
  j["tolerance"] = {{"abs", bound_for(c.dtype).tolerance.abs}, {"why", bound_for(c.dtype).why}};
  if (!tunables.empty()) j["tunables"] = attrs_json(tunables);
  j["generator"] = {{"command", command}, {"case", c.name}};
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

WGK_COMMAND("diff", "Differential test against ONNX Runtime (CPU EP): random calls of both ops, three-way check with the CPU reference") {
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
  sub.add_option("--op", o->op, "ai.onnx, com.microsoft or all (default all)")
      ->check(CLI::IsMember({"ai.onnx", "com.microsoft", "all"}));
  sub.add_option("--dtype", o->dtype, "float32, float16 or all (default all: half each)")
      ->check(CLI::IsMember({"float32", "float16", "all"}));
  sub.add_option("--count", o->count, "random cases per op (default 200)")->check(CLI::Range(1, 1000000));
  sub.add_option_function<std::uint64_t>("--seed", [o](std::uint64_t s) { o->seed = s, o->seed_given = true; },
                                         "seed of the case generator (default: from the clock; printed)");
  sub.add_option("--save", o->save, "write failing cases here as case folders (case.json + .npy)");
  sub.add_flag("--save-all", o->save_all, "with --save: write every case, passing or not");
  sub.add_option("--oracle", o->oracle, "the ORT runner script (default tests/oracles/ort_run.mjs, from the repo root)");
  sub.add_option("--node", o->node, "node executable (default node)");
  sub.add_option("--workdir", o->workdir, "folder for inputs and ORT outputs (default: a fresh temp folder, removed after)");
  sub.add_flag("--keep", o->keep, "keep the work folder");
  sub.add_option("--tunable", o->tunables, "NAME=VALUE: a tunable override for every call (e.g. WORKGROUP_SIZE=64, F16_STORAGE=packed)");
  sub.add_flag("-v,--verbose", o->verbose, "print every case");
  return [o]() -> int {
    const Attributes tunables = parse_name_values(o->tunables, "--tunable");
    if (!o->seed_given) o->seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    std::ostringstream cmd;
    cmd << "wgk diff --op " << o->op << (o->dtype == "all" ? "" : " --dtype " + o->dtype) << " --count " << o->count << " --seed " << o->seed;
    for (const std::string& t : o->tunables) cmd << " --tunable " << t;
    const std::string command = cmd.str();
    std::cout << "seed: " << o->seed << "  (reproduce: " << command << ")" << std::endl;
    if (!fs::exists(o->oracle))
      throw Error(ErrorKind::kNotFound, "--oracle " + o->oracle + ": no such file (run from the repo root or pass --oracle)");

    // 1. Generate. Each op draws from its own stream so --op X reproduces X's cases of --op all.
    const auto t_start = Clock::now();
    std::vector<DiffCase> cases;
    for (const std::string domain : {"ai.onnx", "com.microsoft"}) {
      if (o->op != "all" && o->op != domain) continue;
      std::mt19937_64 rng(o->seed ^ (domain == std::string("ai.onnx") ? 0x6f6e6e78ull : 0x6d736674ull));
      for (int i = 0; i < o->count; ++i) {
        DiffCase c = domain == std::string("ai.onnx") ? generate_onnx(rng, i) : generate_ms(rng, i);
        if (o->dtype != "all" && o->dtype != dtype_name(c.dtype)) {
          // Same case in the other dtype: values rounded once more (f32 -> f16 is exact the other way).
          const DType want = *parse_dtype(o->dtype);
          for (auto& [name, t] : c.inputs)
            if (name != "positionIds") t = reference::round_to_tensor(reference::to_doubles(t), want, t.shape);
          c.dtype = want;
          const auto at = c.name.find(want == DType::kFloat16 ? "_f32_" : "_f16_");
          c.name.replace(at, 5, want == DType::kFloat16 ? "_f16_" : "_f32_");
        }
        cases.push_back(std::move(c));
      }
    }

    // 2. Inputs as .npy + the manifest; one node process runs ORT on all of them.
    // Default: under /dev/shm (memory) when there is one: a run writes ~6 small files per case, and creating
    // and removing tens of thousands of them on a disk took minutes (measured: docs/testing.md).
    std::error_code shm_ec;
    const fs::path temp_root = fs::is_directory("/dev/shm", shm_ec) && ::access("/dev/shm", W_OK) == 0
                                   ? fs::path("/dev/shm")
                                   : fs::temp_directory_path();
    const fs::path work = !o->workdir.empty() ? fs::path(o->workdir)
                                              : temp_root / ("wgk-diff-" + std::to_string(::getpid()) + "-" + std::to_string(o->seed));
    fs::create_directories(work);
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
    for (const auto& c : cases) {
      const fs::path dir = work / c.name;
      fs::create_directories(dir);
      nlohmann::json entry{{"name", c.name}, {"domain", c.domain}, {"dtype", std::string(dtype_name(c.dtype))},
                           {"attributes", attrs_json(c.attrs)}, {"output", (dir / "ort_y.npy").string()}};
      for (const auto& [name, t] : c.inputs) {
        io::write_npy(dir / (name + ".npy"), t);
        entry["inputs"][name] = (dir / (name + ".npy")).string();
      }
      manifest["cases"].push_back(entry);
    }
    std::ofstream(work / "manifest.json") << manifest.dump();
    const auto t_generated = Clock::now();
    const std::string node_cmd = shell_quote(o->node) + " " + shell_quote(o->oracle) + " " + shell_quote((work / "manifest.json").string());
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

    // 3. Our kernel and the reference on each case; three comparisons.
    auto device = Device::default_device();
    std::cout << "adapter: " << device->description() << (device->has_shader_f16() ? " [shader-f16]" : " [no shader-f16]")
              << "\noracle:  onnxruntime " << ort_version << " CPUExecutionProvider (" << results.value("sessions", 0)
              << " sessions for " << cases.size() << " cases)\n";
    std::map<std::string, Kernel> kernels;
    std::map<std::string, OpTally> tallies;
    double gpu_s = 0, ref_s = 0;
    int saved = 0;
    for (const auto& c : cases) {
      OpTally& tally = tallies[c.domain];
      const std::string dt(dtype_name(c.dtype));
      const Bound& bound = bound_for(c.dtype);
      std::string failure;
      nlohmann::json observed;
      std::optional<HostTensor> ort_y;
      const nlohmann::json res = results["results"].value(c.name, nlohmann::json::object());
      if (!res.value("ok", false)) {
        failure = "ORT rejected the call: " + res.value("error", std::string("no result"));
      } else {
        ort_y = io::read_npy(work / c.name / "ort_y.npy");
        if (ort_y->shape != c.inputs.at("x").shape || ort_y->dtype != c.dtype)
          failure = "ORT output is " + std::string(dtype_name(ort_y->dtype)) + " " + shape_string(ort_y->shape);
      }
      if (failure.empty()) {
        const std::vector<double> ort = reference::to_doubles(*ort_y);
        auto t0 = Clock::now();
        std::vector<double> ref;
        try {
          ref = reference::run_reference(c.domain, "RotaryEmbedding", c.inputs, attrs_as_doubles(c.attrs));
        } catch (const Error& e) {
          failure = std::string("reference rejected the call: ") + e.what();
        }
        auto t1 = Clock::now();
        ref_s += std::chrono::duration<double>(t1 - t0).count();
        std::optional<HostTensor> gpu_y;
        try {
          auto it = kernels.find(c.domain);
          if (it == kernels.end()) {
            it = kernels.emplace(c.domain, get_kernel(kernel_id(c.domain), {.version = 1}, device)).first;
            print_kernel(it->second);
          }
          Inputs inputs;
          for (const auto& [name, t] : c.inputs) inputs.emplace(name, t);
          CallInfo info;
          gpu_y = it->second.call(inputs, c.attrs, tunables, &info).at("y").read();
          tally.variants[info.variant]++;
          observed["variant"] = info.variant;
        } catch (const Error& e) {
          failure += (failure.empty() ? "" : "; ") + std::string("wgk rejected the call: ") + e.what();
        }
        gpu_s += std::chrono::duration<double>(Clock::now() - t1).count();
        auto check = [&](const char* what, const std::optional<reference::Comparison>& cmp) {
          if (!cmp) return;
          tally.worst[dt + " " + what].add(*cmp, c.name);
          observed[what] = cmp->max_abs_error;
          if (!cmp->ok()) failure += (failure.empty() ? "" : "; ") + std::string(what) + ": " + cmp->summary();
        };
        if (gpu_y) check("gpu-vs-ort", reference::compare(*gpu_y, ort, bound.tolerance));
        if (!ref.empty()) check("ort-vs-reference", reference::compare(*ort_y, ref, bound.tolerance));
        if (gpu_y && !ref.empty()) check("gpu-vs-reference", reference::compare(*gpu_y, ref, bound.tolerance));
      }
      (failure.empty() ? tally.passed : tally.failed)++;
      if (!failure.empty() || o->verbose)
        std::cout << (failure.empty() ? "PASS " : "FAIL ") << c.name << " " << attrs_json(c.attrs).dump() << " x"
                  << shape_string(c.inputs.at("x").shape) << (failure.empty() ? "" : ": " + failure) << "\n";
      if (!o->save.empty() && ort_y && (o->save_all || !failure.empty())) {
        save_case(fs::path(o->save) / c.name, c, *ort_y, ort_version, tunables, command, observed);
        ++saved;
      }
    }
    const auto t_end = Clock::now();
    auto secs = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };

    // 4. Summary.
    int failed = 0;
    for (const auto& [domain, t] : tallies) {
      failed += t.failed;
      std::cout << domain << ": " << t.passed << " passed, " << t.failed << " failed\n";
      for (const auto& [what, w] : t.worst)
        std::cout << "  worst " << std::left << std::setw(26) << what << std::right << std::setprecision(3) << std::scientific
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
