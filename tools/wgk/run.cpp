// wgk run [PACKAGE] --input name=file.npy ... [--attr k=v,...] [--tunable k=v,...] [--output NAME ...] [--out DIR]:
// one call on real inputs; the required outputs and the optional ones named by --output are read back,
// compared with the op's CPU reference when it has one (src/reference/op.h), and written to --out.
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>

#include "bench_baselines.h"
#include "cases.h"
#include "command.h"
#include "option_values.h"
#include "contract/contract.h"
#include "plan/plan.h"
#include "resolve.h"
#include "io/npy.h"
#include "reference/compare.h"
#include "plan/boundary.h"
#include "wgk/introspect.h"
#include "wgk/error.h"

namespace wgk::cli {

WGK_COMMAND("run", "Run a kernel on .npy/.safetensors inputs; print adapter, variant, attributes, time and error vs the CPU reference") {
  struct Options {
    std::string package_arg, out;
    PackageSelector package;
    std::vector<std::string> inputs, attrs, tunables, outputs;
    int repeat = 10;
    double tolerance = -1;  // < 0: by dtype (see below)
    double gpu_timeout_s = 10;
  };
  auto o = std::make_shared<Options>();
  sub.add_option("package", o->package_arg, "package id (webgpu-kernels/ai.onnx.RotaryEmbedding) or folder; or give --package DIR");
  add_package_options(sub, o->package);
  add_device_options(sub, o->gpu_timeout_s);
  sub.add_option("--input,-i", o->inputs,
                 "NAME=file.npy (NAME: the contract's input name or its ONNX name, e.g. x or X), or a file.safetensors "
                 "holding named tensors")
      ->required();
  sub.add_option("--attr,-a", o->attrs, "attribute NAME=VALUE (repeatable or comma-separated; integer, number, text, or a list [v1,v2,...])")
      ->delimiter(',');
  sub.add_option("--tunable", o->tunables,
                 "tunable NAME=VALUE (repeatable or comma-separated; e.g. ROW_ORDER=token, F16_STORAGE=packed)")
      ->delimiter(',');
  sub.add_option("--output", o->outputs,
                 "an output to produce, by its name or ONNX name (repeatable or comma-separated, spaces around a name "
                 "ignored, an empty name refused; default: the required outputs; an optional output, e.g. invStdVar, "
                 "only when named)");
  non_empty(sub.add_option("--out,-o", o->out, "folder to write outputs as <name>.npy (created when missing)"));
  integer_in(sub.add_option("--repeat", o->repeat,
                            "timed calls after the first, each waited for, so --gpu-timeout-s bounds one call (default 10; 0: none)"),
             0, 1000000);
  number_in(sub.add_option("--tolerance", o->tolerance,
                           "largest absolute error against the CPU reference that passes (default: 1e-5 + 1e-6 |y| for "
                           "float32, 2e-3 + 2^-10 |y| for float16: a few f32 roundings, or one f16 rounding plus that); exit "
                           "1 past it"),
            0);
  return [o]() -> int {
    if (o->package_arg.empty() && o->package.package.empty())
      throw Error(ErrorKind::kInvalidArgument, "wgk run: name the package: an id, a folder, or --package DIR");
    const Attributes attrs = parse_name_values(o->attrs, "--attr");
    const Attributes tunables = parse_name_values(o->tunables, "--tunable");
    const std::vector<std::string> output_list = name_list(o->outputs, "--output");
    if (!o->out.empty()) output_folder("--out", o->out);  // before any GPU work: a bad --out fails first
    Kernel kernel = resolve_package(o->package_arg.empty() ? o->package.package : o->package_arg, o->package,
                                    cli_device(o->gpu_timeout_s));
    print_kernel(kernel);
    std::cout << "adapter: " << kernel.device()->description() << "\n";
    const auto& contract = *introspect::contract(kernel);
    check_attribute_options(contract, o->attrs, "--attr");
    check_tunable_options(contract, o->tunables, "--tunable");
    // The files' dtypes by the contract's type constraints (a uint32 or int32 .npy for an int64 input is refused).
    Tensors host;
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
        for (auto& [name, t] : read_input_safetensors(contract, spec, "--input " + spec)) add(name, std::move(t), spec);
      } else {
        if (eq == 0) throw Error(ErrorKind::kInvalidArgument, "--input " + spec + ": the input name before '=' is empty");
        if (eq + 1 == spec.size()) throw Error(ErrorKind::kInvalidArgument, "--input " + spec + ": the file after '=' is empty");
        const std::string name = spec.substr(0, eq);
        add(name, read_input_npy(contract, name, spec.substr(eq + 1), "--input " + spec), spec);
      }
    }
    // ONNX names (X, position_ids) are the contract's argument names from here on (the reference takes those).
    host = by_contract_names(contract, std::move(host));
    const OutputNames asked = output_names(contract, output_list, "--output");
    Inputs inputs;
    for (const auto& [name, t] : host) inputs.emplace(name, t);
    CallInfo info;
    using clock = std::chrono::steady_clock;
    auto t0 = clock::now();
    Outputs outputs = kernel.call(inputs, attrs, tunables, &info, asked);
    Tensors results;
    for (const auto& [name, t] : outputs) results[name] = t.read();
    const double first_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    std::cout << "variant: " << info.variant << "\n";
    // Every attribute the call used: a forgotten one shows as its default, or as "undefined" (the word of `wgk
    // contract` and of a failed check's call, the expression language's `is defined`) when it has none.
    const Attributes full = with_defaults(contract, attrs);
    std::cout << "attrs:  ";
    for (const auto& a : contract.attributes) {
      auto it = full.find(a.name);
      std::cout << " " << a.name << "=" << (it == full.end() ? "undefined" : attribute_text(it->second))
                << (it != full.end() && !attrs.count(a.name) ? " (default)" : "");
    }
    std::cout << (contract.attributes.empty() ? " none\n" : "\n");

    // The manifest's derive values of this call (head size, head count, ...): what the attributes meant.
    {
      plan::CallSignature sig;
      auto* const value = &plan::attribute_value;
      for (const auto& [name, t] : host) sig.inputs.emplace(name, plan::TensorSignature{t.dtype, t.shape});
      for (const auto& [name, v] : attrs) sig.attrs.emplace(name, value(v));
      for (const auto& [name, v] : tunables) sig.tunables.emplace(name, value(v));
      sig.outputs = asked;
      const plan::Planner planner(introspect::contract(kernel), introspect::caps(*kernel.device()),
                                      [](const std::string&) { return std::string(); });
      const plan::Selection selection = planner.select(sig, {.derive_values = true});
      if (!selection.derive.empty()) {
        std::cout << "derive: ";
        for (const auto& d : selection.derive) std::cout << " " << d.name << "=" << (d.value ? d.value->repr() : "error");
        std::cout << "\n";
      }
    }
    if (!tunables.empty()) {
      std::cout << "tunables:";
      for (const auto& [name, v] : tunables) std::cout << " " << name << "=" << attribute_text(v);
      std::cout << "\n";
    }
    std::cout << "outputs:";  // the required ones and those --output asked for
    for (const auto& [name, t] : results) std::cout << " " << name << " " << dtype_name(t.dtype) << shape_string(t.shape);
    std::cout << "\n";
    std::cout << "time:    first call " << first_ms << " ms (plan, compile, upload, run, read back)";
    if (o->repeat > 0) {
      // Each call is waited for before the next: one wait covers one call, so --gpu-timeout-s bounds a call
      // (one wait for all of them timed out when N calls took longer than it, each well within it).
      t0 = clock::now();
      for (int i = 0; i < o->repeat; ++i) {
        outputs = kernel.call(inputs, attrs, tunables, nullptr, asked);
        wait_idle(kernel.device());
      }
      std::cout << "; repeat " << std::chrono::duration<double, std::milli>(clock::now() - t0).count() / o->repeat
                << " ms per call over " << o->repeat << " calls (upload + run, each waited for, wall clock)";
    }
    std::cout << "\n";
    if (!o->out.empty()) {
      for (const auto& [name, t] : results) {
        io::write_npy(std::filesystem::path(o->out) / (name + ".npy"), t);
        std::cout << "wrote:   " << (std::filesystem::path(o->out) / (name + ".npy")).string() << " "
                  << dtype_name(t.dtype) << shape_string(t.shape) << "\n";
      }
    }
    bool ok = true;
    std::vector<std::string> names;
    for (const auto& [name, t] : results) names.push_back(name);
    std::optional<reference::Results> expected;
    std::string rejected;
    try {
      expected = reference_outputs(contract, host, attrs, names);
    } catch (const Error& e) {
      rejected = e.what();
    }
    if (!rejected.empty()) {
      std::cout << "check:   FAIL: the CPU reference rejected the call the kernel ran: " << rejected << "\n";
      ok = false;
    } else if (!expected) {
      std::cout << "check:   not compared: no CPU reference for " << contract.domain << "::" << contract.name
                << " (test with expected outputs: wgk test, case folders)\n";
    } else {
      std::string problems;
      auto tolerance = [&](const std::string& name) {
        // Without --tolerance: an absolute term for |y| <= 2 plus a relative one for larger outputs, so that
        // one f16 rounding (2^-10 relative: one unit in the last place) or a few f32 roundings (1e-6 relative)
        // of a large |y| pass (a scale of 100 gave |y| = 317 off by 2e-7 relative and failed at 1e-5 absolute).
        if (o->tolerance >= 0) return reference::Tolerance{o->tolerance, 0};
        return results.at(name).dtype == DType::kFloat16 ? reference::Tolerance{2e-3, 0x1p-10}
                                                         : reference::Tolerance{1e-5, 1e-6};
      };
      for (const auto& oc : compare_outputs(results, *expected, tolerance, &problems)) {
        const auto& cmp = oc.comparison;
        // The relative error is taken where |expected| passes the absolute term (reference/compare.h): below it
        // an element is held to the absolute term alone, and saying so keeps "max rel 0" from reading as exact.
        std::cout << "check:   " << oc.name << ": max abs " << cmp.max_abs_error << ", max rel " << cmp.max_rel_error
                  << " (where |expected| > " << oc.tolerance.abs << ") against the CPU reference (double, rounded to " << dtype_name(results.at(oc.name).dtype)
                  << "): " << (cmp.ok() ? "ok" : "FAIL") << " at tolerance " << oc.tolerance.abs
                  << (oc.tolerance.rel > 0 ? " + " + std::to_string(oc.tolerance.rel) + " |expected|" : std::string()) << "\n";
        if (!cmp.ok()) std::cout << "         " << cmp.summary() << "\n";
        ok = ok && cmp.ok();
      }
      if (!problems.empty()) std::cout << "check:   " << problems << "\n";
      ok = ok && problems.empty();
    }
    return ok ? 0 : 1;
  };
}

}  // namespace wgk::cli
