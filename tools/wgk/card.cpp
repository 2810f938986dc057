// wgk card <package>: writes the package's README.md (the model card) from its manifest.json and
// metadata.json, in the structure of the seed card (the original model card of com.microsoft.RotaryEmbedding): YAML front
// matter, title, domain line, description, inputs / outputs / attributes / type-constraint tables,
// files, and a C++ usage example against include/wgk/kernel.h. `--check` compares instead of writing.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "command.h"
#include "io/file_bytes.h"
#include "resolve.h"
#include "contract/contract.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace fs = std::filesystem;

namespace {

std::string code(std::string_view s) { return "`" + std::string(s) + "`"; }

/// A table cell: Markdown tables cannot hold a newline or an unescaped '|'.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += ' ';
    else if (c == '|') out += "\\|";
    else out += c;
  }
  return out.empty() ? "—" : out;
}

/// "ai.onnx" -> ONNX operator, "com.microsoft" -> ONNX Runtime contrib operator (the seed card's words).
std::string domain_line(const contract::Contract& c) {
  if (c.domain == "ai.onnx" || c.domain.empty())
    return code("ai.onnx") + " · ONNX operator · since opset " + std::to_string(c.since_version);
  if (c.domain == "com.microsoft")
    return code(c.domain) + " · ONNX Runtime contrib operator · contrib since_version " + std::to_string(c.since_version);
  return code(c.domain) + " · custom-domain operator · since_version " + std::to_string(c.since_version);
}

std::string spec_link(const contract::Contract& c) {
  if (c.domain == "ai.onnx" || c.domain.empty())
    return "See the [ONNX `" + c.name + "` operator spec](https://onnx.ai/onnx/operators/onnx__" + c.name +
           ".html) for the reference semantics.";
  if (c.domain == "com.microsoft")
    return "See the [ONNX Runtime `" + c.name +
           "` contrib-operator spec](https://github.com/microsoft/onnxruntime/blob/main/docs/ContribOperators.md#com.microsoft." +
           c.name + ") for the reference semantics.";
  return "";
}

/// `3`, `4` for a rank list; — when any rank is accepted.
std::string ranks_text(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + code(std::to_string(r));
  return out;
}

/// An output's rank/shape expression: "same as `x`" for `ranks.x` / `shapes.x`, else the expression.
std::string same_as(const expr::Expression& e, std::string_view prefix) {
  const std::string& t = e.text();
  if (t.rfind(prefix, 0) == 0) {
    const std::string rest = t.substr(prefix.size());
    if (!rest.empty() && std::all_of(rest.begin(), rest.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
      return "same as " + code(rest);
  }
  return code(t);
}

/// Default value as the seed card prints it: integral floats without ".0" (1.0 -> 1).
std::string value_text(const expr::Value& v) {
  if (v.is_string()) return v.as_string();
  std::string s = v.str();
  if (s.size() > 2 && s.ends_with(".0")) s.resize(s.size() - 2);
  return s;
}

/// One-line role of a file of build/webgpu/ (the seed's "Files" list), templates by the variants using them.
std::string file_role(const std::string& name, const contract::Contract& c) {
  if (name == "metadata.json") return "kernel metadata (id, digests, per-variant templates, provenance)";
  if (name == "manifest.json") return "the op contract (source of truth)";
  if (name == "test.json") return "correctness cases";
  if (name == "bench.json") return "benchmark cases";
  std::vector<std::string> users;
  for (const auto& v : c.variants)
    for (const auto& p : v.passes)
      if (p.shader == name) users.push_back(code(v.id));
  if (users.empty()) return "";
  std::string out = "WGSL template of variant" + std::string(users.size() > 1 ? "s " : " ");
  for (std::size_t i = 0; i < users.size(); ++i) out += (i ? ", " : "") + users[i];
  return out;
}

/// The C++ spelling of a dtype for HostTensor::from.
std::pair<std::string, std::string> cpp_dtype(DType d) {
  switch (d) {
    case DType::kFloat32: return {"wgk::DType::kFloat32", "float"};
    case DType::kFloat16: return {"wgk::DType::kFloat16", "std::uint16_t"};
    case DType::kInt64: return {"wgk::DType::kInt64", "std::int64_t"};
    case DType::kUInt32: return {"wgk::DType::kUInt32", "std::uint32_t"};
  }
  return {"wgk::DType::kFloat32", "float"};
}

/// The usage example: the first float32 case of test.json that is expected to pass with default
/// tunables, so its shapes are ones the package accepts (the seed card's example is such a case).
std::string usage_example(const contract::Contract& c, const std::string& id, int version, const fs::path& webgpu) {
  const fs::path test_path = webgpu / "test.json";
  if (!fs::exists(test_path)) return "";
  const auto tests = nlohmann::json::parse(io::read_file_text(test_path));
  const nlohmann::json* chosen = nullptr;
  if (!tests.contains("cases") || !tests["cases"].is_array()) return "";
  for (const auto& tc : tests["cases"]) {
    if (tc.contains("error") || tc.contains("tunables") || tc.value("dtype", "") != "float32") continue;
    chosen = &tc;
    break;
  }
  if (!chosen) return "";
  std::ostringstream s;
  s << "```cpp\n#include <cstdint>\n#include <vector>\n\n#include \"wgk/kernel.h\"\n\nint main() {\n";
  s << "  wgk::Kernel kernel = wgk::get_kernel(\"" << id << "\", {.version = " << version << "});\n";
  s << "  // Zero-filled placeholders: replace each vector with the tensor's row-major data.\n";
  std::string args;
  for (const auto& in : c.inputs) {
    const auto it = (*chosen)["inputs"].find(in.name);
    if (it == (*chosen)["inputs"].end()) continue;
    const std::vector<std::int64_t> shape = (*it)["shape"].get<std::vector<std::int64_t>>();
    std::int64_t n = 1;
    std::string dims;
    for (auto d : shape) {
      n *= d;
      dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    }
    DType dtype = parse_dtype(chosen->value("dtype", "float32")).value_or(DType::kFloat32);
    if (const auto* tc = c.find_type_constraint(in.dtype);
        tc && !tc->allowed.empty() && std::find(tc->allowed.begin(), tc->allowed.end(), dtype) == tc->allowed.end())
      dtype = tc->allowed.front();
    const auto [enumerator, element] = cpp_dtype(dtype);
    s << "  wgk::HostTensor " << in.name << " = wgk::HostTensor::from(" << enumerator << ", {" << dims
      << "}, std::vector<" << element << ">(" << n << "));\n";
    args += std::string(args.empty() ? "" : ", ") + "{\"" + in.name + "\", " + in.name + "}";
  }
  std::string attrs;
  if (chosen->contains("attrs"))
    for (const auto& [k, v] : (*chosen)["attrs"].items()) attrs += std::string(attrs.empty() ? "" : ", ") + "{\"" + k + "\", " + v.dump() + "}";
  std::string optional_outputs;  // asked for by name: an optional output is produced only then (wgk::OutputNames)
  for (const auto& o : c.outputs)
    if (o.optional) optional_outputs += (optional_outputs.empty() ? "\"" : ", \"") + o.name + "\"";
  s << "  wgk::Outputs out = kernel({" << args << "}"
    << (attrs.empty() && optional_outputs.empty() ? "" : ", {" + attrs + "}")
    << (optional_outputs.empty() ? "" : ", {" + optional_outputs + "}") << ");\n";
  for (const auto& o : c.outputs) s << "  wgk::HostTensor " << o.name << " = out.at(\"" << o.name << "\").read();\n";
  s << "  return 0;\n}\n```\n";
  return s.str();
}

}  // namespace

/// The README.md text for the package folder `root` (README.md + build/webgpu/): everything from
/// build/webgpu/manifest.json (contract::load_contract_file), metadata.json (id, version) and the
/// file list of build/webgpu/. Throws wgk::Error (kIo, kContract) when those cannot be read.
std::string package_card(const fs::path& root) {
  const fs::path webgpu = root / "build" / "webgpu";
  const contract::Contract c = contract::load_contract_file((webgpu / "manifest.json").string());
  nlohmann::json meta = nlohmann::json::object();
  if (fs::exists(webgpu / "metadata.json")) meta = nlohmann::json::parse(io::read_file_text(webgpu / "metadata.json"));
  const std::string id = meta.value("id", "webgpu-kernels/" + c.domain + "." + c.name);
  const int version = meta.value("version", 1);
  const std::string title = id.substr(id.find('/') == std::string::npos ? 0 : id.find('/') + 1);

  std::ostringstream s;
  s << "---\nlibrary_name: kernels\nlicense: apache-2.0\ntags:\n- kernel\n- webgpu\n- wgsl\n---\n";
  s << "<!-- Generated by `wgk card` from build/webgpu/manifest.json and metadata.json: edit those, then run `wgk card`. -->\n";
  s << "# " << title << "\n\n\n" << domain_line(c) << "\n\n## Description\n\n" << (c.description.empty() ? "—" : c.description) << "\n\n\n";
  if (const std::string link = spec_link(c); !link.empty()) s << link << "\n\n\n";

  s << "## Inputs\n\n\n| Name | Upstream name | Logical dtype | WebGPU storage | Rank | Shape | Description | Presence |\n"
       "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& in : c.inputs) {
    s << "| " << code(in.name) << " | " << code(in.onnx_name) << " | " << code(in.dtype) << " | "
      << (in.storage ? code(dtype_name(*in.storage)) : "same as logical dtype") << " | " << cell(ranks_text(in.ranks))
      << " | — | " << cell(in.description) << " | " << (in.optional ? "optional" : "required") << " |\n";
  }
  s << "\n\n## Outputs\n\n\n| Name | Upstream name | Logical dtype | Rank | Shape | Description | Presence |\n"
       "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& o : c.outputs) {
    s << "| " << code(o.name) << " | " << code(o.onnx_name) << " | " << code(o.dtype) << " | "
      << cell(same_as(o.rank, "ranks.")) << " | " << cell(same_as(o.shape, "shapes.")) << " | " << cell(o.description)
      << " | " << (o.optional ? "optional: produced only when the call asks for it (wgk::OutputNames)" : "required")
      << " |\n";
  }
  if (!c.attributes.empty()) {
    s << "\n\n## Attributes\n\n\nDefault values (overridable per request):\n\n\n| Attribute | Default | Description |\n"
         "| --- | --- | --- |\n";
    std::vector<const contract::Attribute*> attrs;
    for (const auto& a : c.attributes) attrs.push_back(&a);
    std::sort(attrs.begin(), attrs.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const auto* a : attrs) {
      std::string description = a->description;
      if (!a->allowed_values.empty()) {
        description += std::string(description.empty() ? "" : " ") + "Allowed values: ";
        for (std::size_t i = 0; i < a->allowed_values.size(); ++i)
          description += (i ? ", " : "") + code(value_text(a->allowed_values[i]));
        description += ".";
      }
      s << "| " << code(a->name) << " | " << (a->default_value ? code(value_text(*a->default_value)) : "none")
        << " | " << cell(description) << " |\n";
    }
  }
  s << "\n\n## Type constraints\n\n\n| Variable | Allowed dtypes |\n| --- | --- |\n";
  for (const auto& tc : c.type_constraints) {
    std::string allowed;
    for (DType d : tc.allowed) allowed += (allowed.empty() ? "" : ", ") + code(dtype_name(d));
    s << "| " << code(tc.name) << " | " << cell(allowed) << " |\n";
  }

  s << "\n\n## Files\n\n\n";
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(webgpu))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  const std::vector<std::string> first = {"metadata.json", "manifest.json", "test.json", "bench.json"};
  std::vector<std::string> ordered;
  for (const auto& f : first)
    if (std::find(names.begin(), names.end(), f) != names.end()) ordered.push_back(f);
  for (const auto& f : names)
    if (std::find(first.begin(), first.end(), f) == first.end()) ordered.push_back(f);
  for (const auto& f : ordered) {
    const std::string role = file_role(f, c);
    s << "- [" << code(f) << "](build/webgpu/" << f << ")" << (role.empty() ? "" : " — " + role) << "\n";
  }

  s << "\n\n## Use with `wgk::get_kernel` (C++)\n\n\n";
  s << "Link the CMake target `wgk::runtime` (`find_package(wgk CONFIG REQUIRED)` or `add_subdirectory`, then "
       "`target_link_libraries(app PRIVATE wgk::runtime)`; without CMake, `pkg-config --cflags --libs wgk`); the header "
       "is `wgk/kernel.h`. Required output shapes and logical "
       "data types are inferred from the supplied inputs and attributes; result tensors are allocated automatically.\n\n\n";
  s << "The `.version = " << version << "` option selects the published kernel contract; it is independent of any operator "
       "opset, contrib `since_version`, or model version.\n";
  s << "`.version = " << version << "` follows the Hub branch `v" << version << "` as fixes land. To pin exact bytes, "
       "pass the Hub commit instead: `{.revision = \"<40-hex commit>\"}` (the commit shown on the Hub, or printed by "
       "`wgk download`). `{.content = \"<40 hex>\"}` pins the package bytes whatever commit holds them: it is the git "
       "blob id of `build/webgpu/metadata.json` (`git hash-object build/webgpu/metadata.json`), and the only pin the "
       "packages embedded in the library have.\n\n";
  s << "Where the bytes come from, in order: Hub caches in the official layout (`WGK_KERNEL_PATH` entries, "
       "`KERNELS_CACHE`, then `HF_HUB_CACHE`, `HF_HOME/hub` or `~/.cache/huggingface/hub`, in `kernels--` then "
       "`models--` folders, shared with `huggingface_hub` and `@huggingface/hub`); then the Hub (`HF_ENDPOINT`, "
       "`HF_TOKEN`) for what no cache has, when its publisher is trusted (default `webgpu-kernels`; more with "
       "`WGK_HUB_TRUSTED_PUBLISHERS`); finally the packages embedded in the build (served at once without a "
       "network). Every byte is checked against its blob id and `metadata.json`'s sha256. `HF_HUB_OFFLINE=1` (or "
       "`WGK_HUB=off`) makes no request. To fetch ahead of time or to move to the newest `v" << version << "`:\n\n";
  s << "```sh\nwgk download " << id << " --version " << version << "   # prints the commit and content pin\n"
       "wgk cache verify\n```\n\n\n";
  const std::string example = usage_example(c, id, version, webgpu);
  if (!example.empty()) s << "The shapes below are those of a correctness case in `test.json`.\n\n\n" << example;
  return s.str();
}

WGK_COMMAND("card", "Write a package's README.md (the model card) from its manifest.json and metadata.json") {
  auto root = std::make_shared<std::string>();
  auto check = std::make_shared<bool>(false);
  sub.add_option("package", *root, "package folder (README.md + build/webgpu/)")->required();
  sub.add_flag("--check", *check, "exit 1 if README.md differs from what would be written");
  return [root, check]() -> int {
    const fs::path card_path = package_folder_to_write(*root, "wgk card") / "README.md";
    const std::string text = package_card(*root);
    if (*check) {
      const bool same = fs::exists(card_path) && io::read_file_text(card_path) == text;
      std::cout << card_path.string() << (same ? " is up to date\n" : " is out of date: run wgk card, then wgk metadata\n");
      return same ? 0 : 1;
    }
    io::write_file_bytes(card_path, std::as_bytes(std::span(text)));  // its errors name the system's reason
    std::cout << "wrote " << card_path.string() << "\n";
    return 0;
  };
}

}  // namespace wgk::cli
