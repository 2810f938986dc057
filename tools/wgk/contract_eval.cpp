// `wgk contract <manifest> --inputs ... [--attr ...] [--device ...]`: see contract_eval.h.
#include "contract_eval.h"

#include "wgk/introspect.h"
#include "wgk/kernel.h"

#include <charconv>
#include <cstring>
#include <filesystem>

#include "wgk/error.h"
#include "cases.h"
#include "io/file_bytes.h"
#include "option_values.h"
#include "plan/boundary.h"

namespace wgk::cli {

namespace {

[[noreturn]] void bad(const std::string& message) { throw Error(ErrorKind::kInvalidArgument, message); }

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char ch : text) {
    if (ch == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  parts.push_back(cur);
  return parts;
}

std::optional<std::int64_t> parse_int(const std::string& s) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::string binding_kind(contract::BindingKind kind) {
  switch (kind) {
    case contract::BindingKind::kReadOnlyStorage: return "storage, read";
    case contract::BindingKind::kStorage: return "storage, read_write";
    case contract::BindingKind::kUniform: return "uniform";
  }
  return "?";
}

std::string features_text(const plan::DeviceCaps& d) {
  std::string s;
  for (std::size_t i = 0; i < kKernelFeatures.size(); ++i)
    if (d.*plan::kCapsFeatureFlags[i]) s += std::string(kKernelFeatures[i].name) + " ";
  return s.empty() ? "none" : s.substr(0, s.size() - 1);
}

}  // namespace

void add_contract_eval_options(CLI::App& sub, ContractEvalOptions& options) {
  // --attr, --tunable and --device describe the call --inputs evaluates: without it they are refused (CLI11:
  // "--attr requires --inputs"), not ignored.
  CLI::Option* inputs = non_empty(sub.add_option(
      "--inputs", options.inputs, "evaluate for a call: name=dtype:DxDx..., comma-separated (e.g. x=float32:2x4x3x8,cos=float32:50x4)"));
  sub.add_option("--attr", options.attrs, "with --inputs: attribute override name=value (repeatable or comma-separated)")
      ->delimiter(',')
      ->needs(inputs);
  sub.add_option("--tunable", options.tunables, "with --inputs: tunable override NAME=VALUE (repeatable or comma-separated)")
      ->delimiter(',')
      ->needs(inputs);
  non_empty(sub.add_option("--device", options.device,
                           "with --inputs: webgpu-default | lavapipe | h200 | path to a limits JSON file (default: the adapter in use)"))
      ->needs(inputs);
}

plan::CallSignature parse_call(const std::string& inputs, const std::vector<std::string>& attrs,
                                   const std::vector<std::string>& tunables) {
  plan::CallSignature call;
  for (const std::string& item : split(inputs, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const auto colon = item.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || colon == std::string::npos)
      bad("--inputs: '" + item + "' is not name=dtype:DxDx... (e.g. x=float32:2x4x3x8)");
    const std::string name = item.substr(0, eq);
    const std::string dtype_text = item.substr(eq + 1, colon - eq - 1);
    const std::string dims = item.substr(colon + 1);
    auto dtype = parse_dtype(dtype_text);
    if (!dtype) bad("--inputs: '" + item + "': unknown dtype '" + dtype_text + "' (float32, float16, int64, uint32)");
    plan::TensorSignature sig{*dtype, {}};
    if (!dims.empty() && dims != "scalar") {
      for (const std::string& d : split(dims, 'x')) {
        auto v = parse_int(d);
        if (!v || *v < 0) bad("--inputs: '" + item + "': dimension '" + d + "' is not a non-negative integer");
        sig.shape.push_back(*v);
      }
    }
    if (!call.inputs.emplace(name, std::move(sig)).second) bad("--inputs: input '" + name + "' given twice");
  }
  for (const auto& [name, v] : parse_name_values(attrs, "--attr")) call.attrs[name] = plan::attribute_value(v);
  for (const auto& [name, v] : parse_name_values(tunables, "--tunable")) call.tunables[name] = plan::attribute_value(v);
  return call;
}

plan::DeviceCaps parse_device(const std::string& device) {
  if (device.empty()) return introspect::caps(*Device::default_device());
  if (auto preset = plan::DeviceCaps::preset(device)) return *preset;
  if (std::filesystem::is_directory(device))
    bad("--device " + device + ": a folder, neither a preset (webgpu-default, lavapipe, h200) nor a limits JSON file");
  std::string text;
  try {  // a FIFO or /dev/zero is refused as not a regular file (before: blocked, or read without end)
    text = io::read_file_text(device);
  } catch (const Error& e) {
    bad("--device: '" + device + "' is neither a preset (webgpu-default, lavapipe, h200) nor a readable limits JSON file: " +
        e.what());
  }
  return plan::DeviceCaps::from_json(text, device);
}

int run_contract_eval(std::shared_ptr<const contract::Contract> contract, const ContractEvalOptions& options,
                      std::ostream& out) {
  check_attribute_options(*contract, options.attrs, "--attr");
  check_tunable_options(*contract, options.tunables, "--tunable");
  const plan::CallSignature call = parse_call(options.inputs, options.attrs, options.tunables);
  const plan::DeviceCaps device = parse_device(options.device);
  plan::Planner planner(contract, device, {});
  const plan::Selection s = planner.select(call, {.derive_values = true, .plan = true});

  out << "call: " << s.signature << "\n";
  out << "device: " << (options.device.empty() ? "the adapter in use: " + Device::default_device()->description() : options.device) << " (features: " << features_text(device) << "; maxComputeWorkgroupsPerDimension "
      << device.limit("maxComputeWorkgroupsPerDimension").value_or(-1) << ")\n";
  out << "derive:\n";
  for (const auto& d : s.derive) {
    out << "  " << d.name << " = " << (d.value ? d.value->repr() : "error: " + d.error) << "\n";
  }
  if (!s.variant) {
    out << "variant: none\n  " << s.failure << "\n";
    return 1;
  }
  out << "variant: " << s.variant->id << " (priority " << s.variant->priority << ")\n";
  if (!s.plan) {
    out << "  plan failed: " << s.plan_error << "\n";
    return 1;
  }
  for (const auto& pass : s.plan->passes) {
    out << "  pass " << pass.pass->id << ": " << pass.pass->name << " (" << pass.pass->shader << ")\n";
    for (const auto& b : pass.bindings) {
      out << "    @binding(" << b.slot << ") " << b.binding->name << ": var<" << binding_kind(b.binding->kind) << "> ";
      if (b.binding->kind == contract::BindingKind::kUniform) {
        out << b.wgsl_type << " (" << b.uniform.size() << " bytes)\n";
        const plan::UniformLayout layout = plan::uniform_layout(b.binding->fields);
        for (std::size_t i = 0; i < b.binding->fields.size(); ++i) {
          const auto& f = b.binding->fields[i];
          std::uint32_t word = 0;
          std::memcpy(&word, b.uniform.data() + layout.offsets[i], 4);
          out << "      " << f.name << ": " << f.type << " = ";
          if (f.type == "i32") {
            out << static_cast<std::int32_t>(word);
          } else if (f.type == "f32") {
            float v;
            std::memcpy(&v, &word, 4);
            out << v;
          } else {
            out << word;
          }
          out << "  (" << f.value.text() << ")\n";
        }
      } else {
        out << "array<" << b.wgsl_type << ">  (" << b.binding->arg << ", elementType " << b.binding->element_type
            << ")\n";
      }
    }
    out << "    dispatch: " << pass.workgroups[0] << " x " << pass.workgroups[1] << " x " << pass.workgroups[2]
        << " workgroups\n";
  }
  for (const auto& o : s.plan->outputs) {
    out << "  output " << o.name << ": " << dtype_name(o.dtype) << shape_string(o.shape) << "\n";
  }
  for (const auto& r : s.plan->value_ranges) {
    out << "  valueRange " << r.input << ": [" << r.min << ", " << r.max << "]  (" << r.min_text << ", " << r.max_text
        << ")\n";
  }
  return 0;
}

}  // namespace wgk::cli
