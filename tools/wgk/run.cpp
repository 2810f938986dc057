// wgk run <id> --input name=file.npy ... [--attr k=v ...] [--out DIR]: one call on real inputs.
#include <chrono>
#include <filesystem>
#include <iostream>

#include "cases.h"
#include "command.h"
#include "contract/contract.h"
#include "resolve.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "reference/by_op.h"
#include "reference/compare.h"
#include "wgk/introspect.h"
#include "wgk/error.h"

namespace wgk::cli {

WGK_COMMAND("run", "Run a kernel on .npy/.safetensors inputs; print adapter, variant, time and error vs the CPU reference") {
  struct Options {
    std::string id, out;
    PackageSelector package;
    std::vector<std::string> inputs, attrs, tunables;
    int repeat = 10;
    double tolerance = -1;  // < 0: by dtype (see below)
  };
  auto o = std::make_shared<Options>();
  sub.add_option("id", o->id, "package id, e.g. webgpu-kernels/ai.onnx.RotaryEmbedding")->required();
  add_package_options(sub, o->package);
  sub.add_option("--input,-i", o->inputs, "name=file.npy, or file.safetensors holding named tensors")->required();
  sub.add_option("--attr,-a", o->attrs, "attribute k=v (integer or float)");
  sub.add_option("--tunable", o->tunables, "tunable NAME=VALUE (e.g. ROW_ORDER=token, F16_STORAGE=packed, WORKGROUP_SIZE=64)");
  sub.add_option("--out,-o", o->out, "folder to write outputs as <name>.npy");
  sub.add_option("--repeat", o->repeat, "timed calls after the first (default 10)")->check(CLI::Range(0, 1000000));
  sub.add_option("--tolerance", o->tolerance,
                 "largest absolute error against the CPU reference that passes (default: 1e-5 for float32, 2e-3 "
                 "for float16: a few f32 roundings of |y| <= 2, or one f16 rounding plus that); exit 1 past it")
      ->check([](const std::string& v) {
        double d = -1;
        try {
          d = std::stod(v);
        } catch (const std::exception&) {
        }
        return d >= 0 ? std::string() : "--tolerance must be a number >= 0, got " + v;
      });
  return [o]() -> int {
    std::map<std::string, HostTensor, std::less<>> host;
    auto add = [&](const std::string& name, HostTensor t, const std::string& from) {
      if (!host.emplace(name, std::move(t)).second)
        throw Error(ErrorKind::kInvalidArgument, "input " + name + " is given twice (again by " + from + ")");
    };
    for (const std::string& spec : o->inputs) {
      const auto eq = spec.find('=');
      if (eq == std::string::npos) {
        if (!spec.ends_with(".safetensors"))
          throw Error(ErrorKind::kInvalidArgument,
                      "--input " + spec + ": expected NAME=FILE.npy, or a .safetensors file holding named tensors");
        for (auto& [name, t] : io::read_safetensors(spec).tensors) add(name, std::move(t), spec);
      } else {
        if (eq == 0) throw Error(ErrorKind::kInvalidArgument, "--input " + spec + ": the input name before '=' is empty");
        if (eq + 1 == spec.size()) throw Error(ErrorKind::kInvalidArgument, "--input " + spec + ": the file after '=' is empty");
        add(spec.substr(0, eq), io::read_npy(spec.substr(eq + 1)), spec);
      }
    }
    const Attributes attrs = parse_name_values(o->attrs, "--attr");
    if (!o->out.empty()) {  // before any GPU work: a bad --out fails first
      std::error_code ec;
      std::filesystem::create_directories(o->out, ec);
      if (ec || !std::filesystem::is_directory(o->out))
        throw Error(ErrorKind::kIo, "--out " + o->out + ": cannot create the folder" + (ec ? ": " + ec.message() : ""));
    }
    Kernel kernel = resolve_kernel(o->id, o->package);
    print_kernel(kernel);
    std::cout << "adapter: " << kernel.device()->description() << "\n";
    Inputs inputs;
    for (const auto& [name, t] : host) inputs.emplace(name, t);
    CallInfo info;
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    const Attributes tunables = parse_name_values(o->tunables, "--tunable");
    Outputs outputs = kernel.call(inputs, attrs, tunables, &info);
    std::map<std::string, HostTensor, std::less<>> results;
    for (const auto& [name, t] : outputs) results[name] = t.read();
    const double first_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    double repeat_ms = 0;
    if (o->repeat > 0) {
      t0 = clock::now();
      for (int i = 0; i < o->repeat; ++i) outputs = kernel.call(inputs, attrs, tunables, nullptr);
      outputs.begin()->second.read();
      repeat_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count() / o->repeat;
    }
    std::cout << "variant: " << info.variant << "\n";
    std::cout << "time:    first call " << first_ms << " ms (plan, compile, upload, run, read back); repeat "
              << repeat_ms << " ms per call (upload + run, wall clock)\n";
    const auto& contract = *introspect::contract(kernel);
    Attributes full = attrs;
    for (const auto& a : contract.attributes)
      if (!full.count(a.name) && a.default_value && a.default_value->is_number()) full[a.name] = a.default_value->as_number();
    const auto expected = reference::run_reference(contract.domain, contract.name, host, attrs_as_doubles(full));
    const auto cmp = reference::compare(results.at("y"), expected, {});
    const double tolerance = o->tolerance >= 0 ? o->tolerance : results.at("y").dtype == DType::kFloat16 ? 2e-3 : 1e-5;
    const auto checked = reference::compare(results.at("y"), expected, {tolerance, 0});
    std::cout << "error:   max abs " << cmp.max_abs_error << ", max rel " << cmp.max_rel_error
              << " against the CPU reference (double): " << (checked.ok() ? "ok" : "FAIL") << " at tolerance "
              << tolerance << "\n";
    if (!checked.ok()) std::cout << "         " << checked.summary() << "\n";
    if (!o->out.empty()) {
      for (const auto& [name, t] : results) {
        io::write_npy(std::filesystem::path(o->out) / (name + ".npy"), t);
        std::cout << "wrote:   " << (std::filesystem::path(o->out) / (name + ".npy")).string() << " "
                  << dtype_name(t.dtype) << shape_string(t.shape) << "\n";
      }
    }
    return checked.ok() ? 0 : 1;
  };
}

}  // namespace wgk::cli
