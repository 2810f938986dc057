// Hostile packages: a package author (or whoever can write a package folder) tries to make the
// runtime read host files, loop without bound, blow up memory, or make the GPU touch memory outside
// the tensors. Each tests/runtime/data/hostile_<name>/ replaces one file of hostile_base/ (a y = x
// copy kernel); the test overlays it in a temp folder, writes a metadata.json with every file's
// sha256 (so store verification passes and the hostile bytes reach the engine) and loads it with
// wgk::load_kernel_directory. Expected: a clear wgk::Error (never a crash, a hang or a file read), and
// for out-of-bounds shader accesses, untouched neighbouring buffers (WebGPU robust buffer access).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "../store/package_folder.h"
#include "call_helpers.h"

namespace wgk::testing {
namespace {

const fs::path kData = fs::path(WGK_SOURCE_DIR) / "tests/runtime/data";
constexpr const char* kCopyId = "webgpu-kernels/wgk.test.Copy";

/// hostile_base overlaid with data/<name> (when given) and `extra` files, with fresh metadata.json.
Kernel load_hostile(const std::string& name, const std::map<std::string, std::string>& extra = {}) {
  TempDir dir;
  copy_package(kData / "hostile_base", dir.path());
  if (!name.empty()) copy_package(kData / name, dir.path());
  for (const auto& [path, bytes] : extra) write_bytes(dir.path() / path, bytes);
  write_metadata(dir.path(), kCopyId);
  return load_kernel_directory(dir.path().string());
}

/// x = 1, 2, ..., n (float32; all nonzero, so a zero in y can only come from robust access).
HostTensor ramp(std::int64_t n) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i + 1);
  return f32({n}, v);
}

/// Loads the package and runs it once on ramp(n), reading y back. Returns the error (of any stage).
std::optional<Error> attempt(const std::string& name, std::int64_t n = 256,
                             const std::map<std::string, std::string>& extra = {}) {
  try {
    Kernel k = load_hostile(name, extra);
    HostTensor x = ramp(n);
    (void)k({{"x", x}}).at("y").read();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

/// Expects `name` to fail with `kind` and a message holding every part, and never to leak
/// /etc/passwd's first line into the message.
void expect_refused(const std::string& name, std::vector<ErrorKind> kinds, std::initializer_list<std::string> parts,
                    const std::map<std::string, std::string>& extra = {}) {
  std::optional<Error> e = attempt(name, 256, extra);
  ASSERT_TRUE(e.has_value()) << name << " ran without an error";
  EXPECT_TRUE(std::find(kinds.begin(), kinds.end(), e->kind()) != kinds.end())
      << name << ": unexpected kind " << static_cast<int>(e->kind()) << ": " << e->what();
  const std::string message = e->what();
  if (std::getenv("WGK_PRINT_ERRORS")) std::fprintf(stderr, "[%s] %s\n", name.c_str(), message.c_str());
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << name << ": message lacks \"" << part << "\": " << message;
  EXPECT_EQ(message.find("root:x:0:0"), std::string::npos) << "the message leaks /etc/passwd: " << message;
}
void expect_refused(const std::string& name, ErrorKind kind, std::initializer_list<std::string> parts,
                    const std::map<std::string, std::string>& extra = {}) {
  expect_refused(name, std::vector<ErrorKind>{kind}, parts, extra);
}
// Launch parameters out of range: the package's fault (kContract), or the call's when the size comes
// from the caller's shapes (kInvalidArgument); either is a clear refusal before anything runs.
const std::vector<ErrorKind> kLaunchKinds = {ErrorKind::kContract, ErrorKind::kInvalidArgument};

TEST(HostileBase, CopyKernelWorks) {
  // The base package is sound: y = x element for element (so failures below come from the overlay).
  Kernel k = load_hostile("");
  HostTensor x = ramp(1000);
  HostTensor y = k({{"x", x}}).at("y").read();
  ASSERT_EQ(y.shape, x.shape);
  for (std::int64_t i = 0; i < 1000; ++i) ASSERT_EQ(y.element(i), static_cast<double>(i + 1));
}

// ---- no file access -----------------------------------------------------------------------------

// `{% include %}` names only a file of the package's own verified set (metadata.json), by its path in
// build/webgpu/; the store's bytes, never the file system.
TEST(HostileFiles, TemplateIncludeOfAbsolutePathRejected) {
  // hostile_include: {% include "/etc/passwd" %}
  expect_refused("hostile_include", ErrorKind::kContract, {"copy.wgsl.jinja", "include \"/etc/passwd\"", "absolute path"});
}

const std::string kBody = "{#- #param tunables -#}\n{% include \"body.wgsl.jinja\" %}\n";
const std::string kCopyBody =
    "@compute @workgroup_size({{ tunables.WORKGROUP_SIZE }})\n"
    "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {\n"
    "  let index = gid.x + gid.y * (nwg.x * {{ tunables.WORKGROUP_SIZE }}u);\n"
    "  if (index >= params.count) { return; }\n"
    "  y[index] = x[index];\n"
    "}\n";

TEST(HostileFiles, TemplateIncludeOfAPackageFileWorks) {
  // The copy kernel's body moved into a package file: y = x element for element, as hostile_base.
  Kernel k = load_hostile("", {{"build/webgpu/copy.wgsl.jinja", kBody}, {"build/webgpu/body.wgsl.jinja", kCopyBody}});
  HostTensor x = ramp(300);
  HostTensor y = k({{"x", x}}).at("y").read();
  ASSERT_EQ(y.shape, x.shape);
  for (std::int64_t i = 0; i < 300; ++i) ASSERT_EQ(y.element(i), static_cast<double>(i + 1));
}
TEST(HostileFiles, TemplateIncludeOutOfThePackageRejected) {
  for (const char* path : {"../manifest.json", "../../README.md", "./body.wgsl.jinja", "sub//body.wgsl.jinja",
                           "sub\\\\body.wgsl.jinja"}) {
    SCOPED_TRACE(path);
    const std::string text = "{% include \"" + std::string(path) + "\" %}\n";
    std::optional<Error> e = attempt("", 256, {{"build/webgpu/copy.wgsl.jinja", text}});
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(static_cast<int>(e->kind()), static_cast<int>(ErrorKind::kContract)) << e->what();
    const std::string m = e->what();
    EXPECT_NE(m.find("copy.wgsl.jinja: line 1, column 1: include"), std::string::npos) << m;
    EXPECT_TRUE(m.find("path component") != std::string::npos || m.find("backslash") != std::string::npos) << m;
  }
}
TEST(HostileFiles, TemplateIncludeOfAFileNotInThePackageRejected) {
  // Not in metadata.json (so not one of the package's files): the store has no such file.
  expect_refused("", ErrorKind::kContract, {"copy.wgsl.jinja", "include \"missing.wgsl.jinja\"", "has no file build/webgpu/missing.wgsl.jinja"},
                 {{"build/webgpu/copy.wgsl.jinja", "{% include \"missing.wgsl.jinja\" %}\n"}});
}
TEST(HostileFiles, TemplateIncludeOfAnUnlistedFileOnDiskRejected) {
  // body.wgsl.jinja lies in the folder but metadata.json was written before it: the store refuses the
  // package (an unlisted file), so the include never reads it.
  TempDir dir;
  copy_package(kData / "hostile_base", dir.path());
  write_bytes(dir.path() / "build/webgpu/copy.wgsl.jinja", kBody);
  write_metadata(dir.path(), kCopyId);
  write_bytes(dir.path() / "build/webgpu/body.wgsl.jinja", kCopyBody);
  try {
    (void)load_kernel_directory(dir.path().string());
    ADD_FAILURE() << "a package with an unlisted file loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("body.wgsl.jinja"), std::string::npos) << e.what();
  }
}
TEST(HostileFiles, TemplateIncludeCycleRejected) {
  expect_refused("", ErrorKind::kContract, {"include cycle copy.wgsl.jinja -> copy.wgsl.jinja"},
                 {{"build/webgpu/copy.wgsl.jinja", "{% include \"copy.wgsl.jinja\" %}\n"}});
  expect_refused("", ErrorKind::kContract, {"b.wgsl.jinja: line 1, column 1", "include cycle copy.wgsl.jinja -> a.wgsl.jinja -> b.wgsl.jinja -> a.wgsl.jinja"},
                 {{"build/webgpu/copy.wgsl.jinja", "{% include \"a.wgsl.jinja\" %}\n"},
                  {"build/webgpu/a.wgsl.jinja", "{% include \"b.wgsl.jinja\" %}\n"},
                  {"build/webgpu/b.wgsl.jinja", "{% include \"a.wgsl.jinja\" %}\n"}});
}
TEST(HostileFiles, TemplateIncludeDepthBombRejected) {
  // A chain copy -> d1 -> ... -> d12: past tmpl::kMaxIncludeDepth (8).
  std::map<std::string, std::string> files{{"build/webgpu/copy.wgsl.jinja", "{% include \"d1.wgsl.jinja\" %}\n"}};
  for (int i = 1; i <= 12; ++i)
    files["build/webgpu/d" + std::to_string(i) + ".wgsl.jinja"] = "{% include \"d" + std::to_string(i + 1) + ".wgsl.jinja\" %}\n";
  expect_refused("", ErrorKind::kContract, {"d8.wgsl.jinja", "include \"d9.wgsl.jinja\"", "nested deeper than 8"}, files);
}
TEST(HostileFiles, TemplateIncludeFanOutBombRejected) {
  // Each of 6 levels includes the next 10 times: 10^6 files to parse without a total bound; the 65th
  // include is refused (tmpl::kMaxIncludes = 64).
  std::map<std::string, std::string> files;
  for (int i = 0; i <= 6; ++i) {
    std::string text;
    for (int k = 0; k < 10 && i < 6; ++k) text += "{% include \"f" + std::to_string(i + 1) + ".wgsl.jinja\" %}";
    files["build/webgpu/" + (i == 0 ? std::string("copy") : "f" + std::to_string(i)) + ".wgsl.jinja"] = text + "\n";
  }
  expect_refused("", ErrorKind::kContract, {"more than 64 includes"}, files);
}
TEST(HostileFiles, TemplateIncludeOfAnExpressionRejected) {
  expect_refused("", ErrorKind::kContract, {"copy.wgsl.jinja", "one string literal"},
                 {{"build/webgpu/copy.wgsl.jinja", "{% include \"a\" ~ \"b\" %}\n"}});
  expect_refused("", ErrorKind::kContract, {"copy.wgsl.jinja", "one string literal"},
                 {{"build/webgpu/copy.wgsl.jinja", "{% include \"body.wgsl.jinja\" ignore missing %}\n"}});
}

// ---- #param headers, checked when the package loads ----------------------------------------------

/// Loads hostile_base with copy.wgsl.jinja replaced; the error of the load (not of a call), if any.
std::optional<Error> load_error(const std::string& copy, const std::map<std::string, std::string>& more = {}) {
  std::map<std::string, std::string> files = more;
  files["build/webgpu/copy.wgsl.jinja"] = copy;
  try {
    (void)load_hostile("", files);
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}
const std::string kCopyNoHeader = read_bytes(kData / "hostile_base/build/webgpu/copy.wgsl.jinja").substr(
    read_bytes(kData / "hostile_base/build/webgpu/copy.wgsl.jinja").find('\n') + 1);

TEST(TemplateParams, MissingHeaderRejectedAtLoad) {
  std::optional<Error> e = load_error(kCopyNoHeader);
  ASSERT_TRUE(e.has_value()) << "a template that reads tunables loaded without a #param header";
  EXPECT_EQ(static_cast<int>(e->kind()), static_cast<int>(ErrorKind::kContract));
  EXPECT_THAT(e->what(), ::testing::HasSubstr("copy.wgsl.jinja: no #param header"));
  EXPECT_THAT(e->what(), ::testing::HasSubstr("'{# #param tunables #}'"));  // what to write
}
TEST(TemplateParams, UndeclaredReadRejectedAtLoad) {
  // Reads `groups` (a manifest derive) beside tunables; the header declares only tunables.
  std::optional<Error> e = load_error("{#- #param tunables -#}\n// {{ groups }}\n" + kCopyNoHeader);
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->what(), ::testing::HasSubstr("copy.wgsl.jinja: reads 'groups', which its #param header (tunables) does not declare"));
}
TEST(TemplateParams, DeclaredButUnreadRejectedAtLoad) {
  std::optional<Error> e = load_error("{#- #param tunables groups -#}\n" + kCopyNoHeader);
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->what(), ::testing::HasSubstr("#param 'groups' is declared but never read (it reads: tunables)"));
}
TEST(TemplateParams, NameTheManifestDoesNotProvideRejectedAtLoad) {
  // `widht` (a typo) is read and declared, but no derive and no scope root has that name.
  std::optional<Error> e = load_error("{#- #param tunables widht -#}\n// {{ widht }}\n" + kCopyNoHeader);
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->what(), ::testing::HasSubstr("#param 'widht' is not a name the manifest provides to this shader"));
}
TEST(TemplateParams, NamesReadByIncludesCountAndHeadersStayInTheShader) {
  // body.wgsl.jinja reads tunables: the shader's header declares it, and the package runs.
  EXPECT_FALSE(load_error(kBody, {{"build/webgpu/body.wgsl.jinja", kCopyBody}}).has_value());
  // Without the header, the name read inside the include is missing from it.
  std::optional<Error> e = load_error("{% include \"body.wgsl.jinja\" %}\n", {{"build/webgpu/body.wgsl.jinja", kCopyBody}});
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->what(), ::testing::HasSubstr("copy.wgsl.jinja: no #param header"));
  // A header inside an included file is refused (it belongs in the pass's shader).
  e = load_error(kBody, {{"build/webgpu/body.wgsl.jinja", "{#- #param tunables -#}\n" + kCopyBody}});
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->what(), ::testing::HasSubstr("body.wgsl.jinja: line 1, column 5: a #param header belongs in the template a pass names"));
}
TEST(TemplateParams, MalformedHeaderRejectedAtLoad) {
  std::optional<Error> e = load_error("{#- #param tunables tunables -#}\n" + kCopyNoHeader);
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->what(), ::testing::HasSubstr("#param: 'tunables' is declared twice"));
  e = load_error("{#- #param tunables.WORKGROUP_SIZE -#}\n" + kCopyNoHeader);
  ASSERT_TRUE(e.has_value());
  EXPECT_THAT(e->what(), ::testing::HasSubstr("#param: 'tunables.WORKGROUP_SIZE' is not a name"));
}
TEST(HostileFiles, TemplateImportRejected) {
  expect_refused("hostile_import", ErrorKind::kContract, {"copy.wgsl.jinja", "import"});
}
TEST(HostileFiles, TemplateExtendsRejected) {
  expect_refused("hostile_extends", ErrorKind::kContract, {"copy.wgsl.jinja", "extends"});
}
TEST(HostileFiles, TemplateExpressionHasNoOpen) {
  expect_refused("hostile_open_call", ErrorKind::kContract, {"copy.wgsl.jinja", "open"});
}
TEST(HostileFiles, ManifestExpressionHasNoOpen) {
  expect_refused("hostile_file_expr", ErrorKind::kContract, {"derive", "secret", "open"});
}
TEST(HostileFiles, ManifestNumberOverflowIsAContractError) {
  // A JSON number past double's range (1e400) in the manifest: nlohmann throws out_of_range (406),
  // which must surface as wgk::Error kContract like any malformed manifest, not escape as another
  // exception type (found by fuzz_manifest: tests/fuzz/crashes/fuzz_manifest-crash-json-number-overflow).
  std::string manifest = read_bytes(kData / "hostile_base/build/webgpu/manifest.json");
  manifest.replace(manifest.find("\"sinceVersion\": 1"), 17, "\"sinceVersion\": 1e400");
  try {
    expect_refused("", ErrorKind::kContract, {"manifest.json"}, {{"build/webgpu/manifest.json", manifest}});
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a non-wgk exception escaped: " << e.what();
  }
}

TEST(HostileFiles, ShaderPathTraversalRejected) {
  // pass.shader = "../../../../../../etc/passwd": must be a file of the package, never a host path.
  expect_refused("hostile_shader_path", ErrorKind::kContract, {"etc/passwd"});
}

// ---- no unbounded work --------------------------------------------------------------------------

TEST(HostileLoops, RangeOfTenToTheEightRejected) {
  expect_refused("hostile_range", ErrorKind::kContract, {"copy.wgsl.jinja", "range", "65536"});
}
TEST(HostileLoops, NestedLoopsHitIterationLimit) {
  expect_refused("hostile_nested_loops", ErrorKind::kContract, {"copy.wgsl.jinja", "65536", "iterations"});
}
TEST(HostileLoops, HugeOutputViaConcatenationHitsOutputLimit) {
  expect_refused("hostile_huge_output", ErrorKind::kContract, {"copy.wgsl.jinja", "output larger than"});
}
TEST(HostileLoops, IntegerPowerOverflowIsAnError) {
  // 10 ** 40 > 2^63: an error, never a wrapped value or undefined behaviour.
  expect_refused("hostile_power", ErrorKind::kContract, {"copy.wgsl.jinja", "10 ** 40"});
}
// `"" * n` once looped n times appending nothing (src/expr/evaluator.cpp repeat()), so this rendered
// for ~2^63 iterations. Found by fuzz_expr (tests/fuzz/crashes/fuzz_expr-timeout-empty-string-repeat).
TEST(HostileLoops, EmptyStringRepeatIsBounded) {
  std::optional<Error> e =
      attempt("", 256, {{"build/webgpu/copy.wgsl.jinja",
                         read_bytes(kData / "hostile_base/build/webgpu/copy.wgsl.jinja") +
                             "// {{ \"\" * 9223372036854775807 }}{{ [] * 9223372036854775807 }}\n"}});
  if (e) {
    EXPECT_EQ(static_cast<int>(e->kind()), static_cast<int>(ErrorKind::kContract)) << e->what();
  }
}

TEST(HostileLoops, DeriveCycleRejectedAtLoad) {
  // a -> b -> c -> a: rejected while loading, before any call.
  std::string message;
  try {
    (void)load_hostile("hostile_derive_cycle");
    ADD_FAILURE() << "a derive cycle loaded";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::kContract)) << e.what();
    message = e.what();
  }
  for (const char* part : {"cycle", "a", "b", "c"})
    EXPECT_NE(message.find(part), std::string::npos) << "message lacks \"" << part << "\": " << message;
}
TEST(HostileLoops, DeeplyNestedExpressionRejectedAtLoad) {
  // derive "deep": 100,000 nested parentheses around 1. A recursive-descent parser without a depth
  // limit would overflow the stack; the parser must refuse it.
  const std::string base = read_bytes(kData / "hostile_base/build/webgpu/manifest.json");
  nlohmann::json m = nlohmann::json::parse(base);
  m["derive"]["deep"] = std::string(100000, '(') + "1" + std::string(100000, ')');
  m["derive"]["deepNot"] = [] {
    std::string s;
    for (int i = 0; i < 100000; ++i) s += "not ";
    return s + "true";
  }();
  std::string message;
  try {
    (void)load_hostile("", {{"build/webgpu/manifest.json", m.dump()}});
    ADD_FAILURE() << "a 100,000-deep expression loaded";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::kContract)) << e.what();
    message = e.what();
  }
  EXPECT_NE(message.find("nested too deeply"), std::string::npos) << message;
  EXPECT_LT(message.size(), 4096u) << "the message should not echo the whole expression";
}
TEST(HostileLoops, DeeplyNestedTemplateExpressionRejected) {
  expect_refused("", ErrorKind::kContract, {"copy.wgsl.jinja", "nested too deeply"},
                 {{"build/webgpu/copy.wgsl.jinja", "// {{ " + std::string(50000, '[') + std::string(50000, ']') + " }}\n"}});
}
TEST(HostileLoops, DeeplyNestedTemplateBlocksRejected) {
  // 50,000 nested {% if %} blocks: a recursive renderer must refuse rather than overflow the stack.
  std::string t;
  for (int i = 0; i < 50000; ++i) t += "{% if true %}";
  for (int i = 0; i < 50000; ++i) t += "{% endif %}";
  expect_refused("", ErrorKind::kContract, {"copy.wgsl.jinja"}, {{"build/webgpu/copy.wgsl.jinja", t}});
}

// ---- no out-of-range launch parameters ----------------------------------------------------------

TEST(HostileLaunch, DispatchOverDeviceLimitIsAnError) {
  // dispatch.x = 100000 > maxComputeWorkgroupsPerDimension (65535 by WebGPU's default limits).
  expect_refused("hostile_huge_dispatch", kLaunchKinds, {"dispatch", "100000", "65535"});
}
TEST(HostileLaunch, DispatchOutOfU32IsAnError) {
  expect_refused("hostile_dispatch_overflow", kLaunchKinds, {"dispatch", "4294967296"});
}
TEST(HostileLaunch, UniformAboveU32IsAnError) {
  // params.count = 256 + 2^32 = 4294967552 does not fit u32.
  expect_refused("hostile_uniform_overflow", kLaunchKinds, {"count", "4294967552", "u32"});
}
TEST(HostileLaunch, NegativeUniformIsAnError) {
  // params.count = 256 - 1000 = -744.
  expect_refused("hostile_uniform_negative", kLaunchKinds, {"count", "-744", "u32"});
}

TEST(HostileLaunch, InvalidWgslIsAGpuError) {
  // Rendered text that is not WGSL: Tint's compile error comes back as wgk::Error kGpu, no crash,
  // and the device stays usable for the next (sound) kernel.
  expect_refused("", ErrorKind::kGpu, {"WGSL compilation", "wgk.test.Copy/copy/main", "undefined_name"},
                 {{"build/webgpu/copy.wgsl.jinja", "@compute @workgroup_size(64) fn main() { y[0] = undefined_name; }\n"}});
  Kernel sound = load_hostile("");
  HostTensor x = ramp(8);
  HostTensor y = sound({{"x", x}}).at("y").read();
  EXPECT_EQ(y.element(7), 8.0);
}

// ---- no out-of-bounds GPU memory access ---------------------------------------------------------

std::vector<float> pattern(std::size_t n, float base) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + static_cast<float>(i % 1021);
  return v;
}

TEST(HostileGpu, OutOfBoundsWritesLeaveNeighboursUntouched) {
  // The shader writes y[index + 1000000] (4 MB past y's 1 KiB) and y[index + count + 1]. Canaries of
  // 1M floats (4 MB) are allocated before and after x on the same device, so a write escaping y's
  // binding by 4 MB would likely land in one; robust buffer access must discard or clamp it.
  Kernel k = load_hostile("hostile_oob_write");
  const auto& device = k.device();
  const std::size_t canary_n = 1 << 20;
  const std::vector<float> before_values = pattern(canary_n, 5.0f), after_values = pattern(canary_n, -3.0f);
  HostTensor before_host = f32({static_cast<std::int64_t>(canary_n)}, before_values);
  HostTensor after_host = f32({static_cast<std::int64_t>(canary_n)}, after_values);
  DeviceTensor before = DeviceTensor::upload(before_host, device);
  HostTensor x_host = ramp(256);
  DeviceTensor x = DeviceTensor::upload(x_host, device);
  DeviceTensor after = DeviceTensor::upload(after_host, device);

  HostTensor y = k({{"x", x}}).at("y").read();  // returns: no hang, no device loss
  ASSERT_EQ(y.shape, Shape{256});

  HostTensor before_read = before.read(), after_read = after.read(), x_read = x.read();
  EXPECT_EQ(before_read.data, before_host.data) << "canary allocated before x was written";
  EXPECT_EQ(after_read.data, after_host.data) << "canary allocated after x was written";
  EXPECT_EQ(x_read.data, x_host.data) << "the read-only input was written";
  // A second, sound call on the same device still works (the device was not lost).
  Kernel sound = load_hostile("");
  HostTensor y2 = sound({{"x", x}}).at("y").read();
  for (std::int64_t i = 0; i < 256; ++i) ASSERT_EQ(y2.element(i), static_cast<double>(i + 1));
}

TEST(HostileGpu, OutOfBoundsReadsStayInsideTheBinding) {
  // y[i] = x[i + 1000000] or x[i + 2^31]: WebGPU robust access returns 0 or a value from inside x's
  // binding. x = 1..256, and a canary of 7.5s is allocated right after x: any 7.5 (or anything not
  // in {0, 1, ..., 256}) in y is a read outside x.
  Kernel k = load_hostile("hostile_oob_read");
  const auto& device = k.device();
  HostTensor x_host = ramp(256);
  DeviceTensor x = DeviceTensor::upload(x_host, device);
  HostTensor canary_host = f32({1 << 20}, std::vector<float>(1 << 20, 7.5f));
  DeviceTensor canary = DeviceTensor::upload(canary_host, device);
  HostTensor y = k({{"x", x}}).at("y").read();
  for (std::int64_t i = 0; i < 256; ++i) {
    const double v = y.element(i);
    EXPECT_TRUE(v == 0.0 || (v >= 1.0 && v <= 256.0 && v == static_cast<double>(static_cast<int>(v))))
        << "y[" << i << "] = " << v << " is not from x";
  }
}

}  // namespace
}  // namespace wgk::testing
