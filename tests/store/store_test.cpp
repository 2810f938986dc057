// The package store: loading the bundled packages by version line and by exact revision (the git
// blob id of build/webgpu/metadata.json, checked against `git hash-object`), refusing wrong or
// malformed revisions, and a package in the hub-cache layout (<root>/models--<org>--<name>/refs/v1,
// snapshots/<rev>/...) that loads when intact and is refused when a byte, a file or a path is wrong.
#include <gtest/gtest.h>

#include "package_folder.h"
#include "store/store.h"
#include "wgk/error.h"

namespace wgk::testing {
namespace {

const fs::path kKernels = fs::path(WGK_SOURCE_DIR) / "kernels";
constexpr const char* kOnnxId = "webgpu-kernels/ai.onnx.RotaryEmbedding";
constexpr const char* kMsId = "webgpu-kernels/com.microsoft.RotaryEmbedding";

std::string error_of(const std::function<void()>& f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error was thrown";
  return "";
}

void expect_has(const std::string& message, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "message lacks \"" << part << "\": " << message;
}

struct Bundled {
  const char* id;
  const char* folder;
};
const Bundled kBundled[] = {{kOnnxId, "ai.onnx.RotaryEmbedding"}, {kMsId, "com.microsoft.RotaryEmbedding"}};

// ---- the embedded packages ----------------------------------------------------------------------

TEST(StoreEmbedded, VersionOneAndExactRevisionAgreeWithGitHashObject) {
  const store::Store embedded_only({}, true);
  for (const Bundled& b : kBundled) {
    const fs::path meta = kKernels / b.folder / "build/webgpu/metadata.json";
    const std::string git_rev = git_hash_object(meta);
    ASSERT_EQ(git_rev.size(), 40u) << "git hash-object " << meta;
    auto by_version = embedded_only.load(b.id, {.version = 1, .revision = std::nullopt});
    EXPECT_EQ(by_version->id, b.id);
    EXPECT_EQ(by_version->version, 1);
    EXPECT_EQ(by_version->revision, git_rev);
    auto by_revision = embedded_only.load(b.id, {.version = std::nullopt, .revision = git_rev});
    EXPECT_EQ(by_revision->revision, git_rev);
    // The same bytes either way: every file identical to the one in kernels/.
    for (const auto& [path, bytes] : by_revision->files) EXPECT_EQ(bytes, read_bytes(kKernels / b.folder / path)) << path;
  }
}

TEST(StoreEmbedded, WrongRevisionIsNotFoundAndListsWhatExists) {
  const store::Store embedded_only({}, true);
  const std::string real = git_hash_object(kKernels / "ai.onnx.RotaryEmbedding/build/webgpu/metadata.json");
  const std::string wrong(40, '0');
  const std::string message =
      error_of([&] { embedded_only.load(kOnnxId, {.version = std::nullopt, .revision = wrong}); }, ErrorKind::kNotFound);
  expect_has(message, {kOnnxId, wrong, real, "version 1"});
}

TEST(StoreEmbedded, UnknownVersionIsNotFound) {
  const store::Store embedded_only({}, true);
  expect_has(error_of([&] { embedded_only.load(kOnnxId, {.version = 2, .revision = std::nullopt}); },
                      ErrorKind::kNotFound),
             {kOnnxId, "version 2", "version 1"});
}

TEST(StoreEmbedded, UnknownIdListsKnownPackages) {
  const store::Store embedded_only({}, true);
  expect_has(error_of([&] { embedded_only.load("webgpu-kernels/ai.onnx.Nope", {.version = 1, .revision = {}}); },
                      ErrorKind::kNotFound),
             {"ai.onnx.Nope", kOnnxId, kMsId});
}

TEST(StoreEmbedded, MalformedRevisionRefused) {
  const store::Store embedded_only({}, true);
  for (const std::string& bad : std::vector<std::string>{"abc", std::string(40, 'G'), std::string(40, 'A'), std::string(41, 'a'),
                                std::string("../../../../etc/passwd")}) {
    expect_has(error_of([&] { embedded_only.load(kOnnxId, {.version = std::nullopt, .revision = bad}); },
                        ErrorKind::kInvalidArgument),
               {bad, "40 lower-case hex"});
  }
}

TEST(StoreEmbedded, VersionAndRevisionTogetherRefused) {
  const store::Store embedded_only({}, true);
  expect_has(error_of([&] { embedded_only.load(kOnnxId, {.version = 1, .revision = std::string(40, 'a')}); },
                      ErrorKind::kInvalidArgument),
             {"exactly one", "version", "revision"});
  expect_has(error_of([&] { embedded_only.load(kOnnxId, {}); }, ErrorKind::kInvalidArgument), {"exactly one"});
}

// ---- a package in the hub-cache layout ----------------------------------------------------------

/// <root>/models--webgpu-kernels--ai.onnx.RotaryEmbedding/{refs/v1, snapshots/<rev>/...}, the package
/// bytes copied from kernels/ (metadata.json unchanged, so <rev> is the bundled revision).
struct HubPackage {
  TempDir root;
  std::string revision;
  fs::path repo, snapshot;

  HubPackage() {
    const fs::path src = kKernels / "ai.onnx.RotaryEmbedding";
    revision = git_hash_object(src / "build/webgpu/metadata.json");
    repo = root.path() / "models--webgpu-kernels--ai.onnx.RotaryEmbedding";
    snapshot = repo / "snapshots" / revision;
    copy_package(src, snapshot);
    write_bytes(repo / "refs/v1", revision + "\n");
  }
  std::shared_ptr<const store::Package> load_v1() const {
    return store::Store({root.path()}, false).load(kOnnxId, {.version = 1, .revision = std::nullopt});
  }
};

TEST(StoreHubCache, IntactPackageLoadsFromTheSnapshot) {
  HubPackage hub;
  auto package = hub.load_v1();
  EXPECT_EQ(package->revision, hub.revision);
  EXPECT_EQ(package->origin, hub.snapshot.string());
  auto pinned = store::Store({hub.root.path()}, false).load(kOnnxId, {.version = std::nullopt, .revision = hub.revision});
  EXPECT_EQ(pinned->origin, hub.snapshot.string());
}

TEST(StoreHubCache, OneByteChangedInTemplateIsIntegrityError) {
  HubPackage hub;
  const fs::path tpl = hub.snapshot / "build/webgpu/rotary-embedding.wgsl.jinja";
  std::string bytes = read_bytes(tpl);
  const std::string listed = store::sha256_hex(bytes);
  bytes[bytes.size() / 2] ^= 0x01;
  write_bytes(tpl, bytes);
  const std::string actual = store::sha256_hex(bytes);
  expect_has(error_of([&] { hub.load_v1(); }, ErrorKind::kIntegrity),
             {"build/webgpu/rotary-embedding.wgsl.jinja", listed, actual});
}

TEST(StoreHubCache, UnlistedExtraFileRefused) {
  HubPackage hub;
  write_bytes(hub.snapshot / "build/webgpu/extra.wgsl.jinja", "// not in metadata.json\n");
  expect_has(error_of([&] { hub.load_v1(); }, ErrorKind::kIntegrity), {"build/webgpu/extra.wgsl.jinja", "not listed"});
}

TEST(StoreHubCache, ListedFileMissingRefused) {
  HubPackage hub;
  fs::remove(hub.snapshot / "build/webgpu/test.json");
  expect_has(error_of([&] { hub.load_v1(); }, ErrorKind::kIntegrity), {"build/webgpu/test.json", "missing"});
}

TEST(StoreHubCache, SymlinkOutsideRefused) {
  HubPackage hub;
  TempDir outside;
  write_bytes(outside.path() / "secret.txt", "secret\n");
  fs::create_symlink(outside.path() / "secret.txt", hub.snapshot / "build/webgpu/secret.wgsl.jinja");
  expect_has(error_of([&] { hub.load_v1(); }, ErrorKind::kIntegrity), {"secret.wgsl.jinja", "outside"});
}

TEST(StoreHubCache, SymlinkReplacingListedFileWithOutsideTargetRefused) {
  // Even when the target's bytes match the listed digest, a link leaving the package is refused.
  HubPackage hub;
  TempDir outside;
  const fs::path tpl = hub.snapshot / "build/webgpu/rotary-embedding.wgsl.jinja";
  fs::copy_file(tpl, outside.path() / "same.wgsl.jinja");
  fs::remove(tpl);
  fs::create_symlink(outside.path() / "same.wgsl.jinja", tpl);
  expect_has(error_of([&] { hub.load_v1(); }, ErrorKind::kIntegrity), {"rotary-embedding.wgsl.jinja", "outside"});
}

TEST(StoreHubCache, PathTraversalInMetadataRefused) {
  // A package folder whose metadata.json lists "../../etc/passwd" (with its real digest, so only the
  // path rule can refuse it) and whose refs/v1 names that metadata's revision.
  TempDir root;
  const fs::path repo = root.path() / "models--webgpu-kernels--ai.onnx.RotaryEmbedding";
  for (const std::string& evil : std::vector<std::string>{"../../etc/passwd", "/etc/passwd", "build/webgpu/../../../etc/passwd"}) {
    TempDir staging;
    copy_package(kKernels / "ai.onnx.RotaryEmbedding", staging.path());
    nlohmann::json meta = nlohmann::json::parse(read_bytes(staging.path() / "build/webgpu/metadata.json"));
    std::string passwd;
    try {
      passwd = read_bytes("/etc/passwd");
    } catch (...) {
    }
    meta["files"][evil] = {{"sha256", store::sha256_hex(passwd)}};
    const std::string bytes = meta.dump(2);
    write_bytes(staging.path() / "build/webgpu/metadata.json", bytes);
    const std::string rev = store::git_blob_id(bytes);
    fs::remove_all(repo);
    copy_package(staging.path(), repo / "snapshots" / rev);
    write_bytes(repo / "refs/v1", rev);
    expect_has(error_of([&] { store::Store({root.path()}, false).load(kOnnxId, {.version = 1, .revision = {}}); },
                        ErrorKind::kContract),
               {evil, "invalid path"});
    // The same folder loaded directly.
    expect_has(error_of([&] { store::load_package_directory(repo / "snapshots" / rev); }, ErrorKind::kContract),
               {evil, "invalid path"});
  }
}

TEST(StoreHubCache, RefPointingAtEditedMetadataRefused) {
  // refs/v1 pins revision R, but the snapshot's metadata.json was edited (its blob id is no longer R).
  HubPackage hub;
  const fs::path meta = hub.snapshot / "build/webgpu/metadata.json";
  write_bytes(meta, read_bytes(meta) + " ");
  const std::string now = git_hash_object(meta);
  expect_has(error_of([&] { hub.load_v1(); }, ErrorKind::kIntegrity), {hub.revision, now});
}

TEST(StoreHubCache, MalformedRefRefused) {
  HubPackage hub;
  write_bytes(hub.repo / "refs/v1", "../../../etc\n");
  expect_has(error_of([&] { hub.load_v1(); }, ErrorKind::kIntegrity), {"refs/v1", "40-hex"});
}

TEST(StoreHubCache, WrongIdInMetadataRefused) {
  // The folder is named for ai.onnx but its metadata.json names another package.
  HubPackage hub;
  TempDir staging;
  copy_package(hub.snapshot, staging.path());
  const std::string bytes = write_metadata(staging.path(), "webgpu-kernels/evil.Package");
  const std::string rev = store::git_blob_id(bytes);
  copy_package(staging.path(), hub.repo / "snapshots" / rev);
  write_bytes(hub.repo / "refs/v1", rev);
  expect_has(error_of([&] { hub.load_v1(); }, ErrorKind::kIntegrity), {"evil.Package", kOnnxId});
}

TEST(StoreDirectory, RegeneratedMetadataLoads) {
  // The helper the hostile-package tests rely on: a copied folder with regenerated metadata loads,
  // and its revision is git's blob id of the new metadata.json.
  TempDir dir;
  copy_package(kKernels / "com.microsoft.RotaryEmbedding", dir.path());
  write_metadata(dir.path(), kMsId);
  auto package = store::load_package_directory(dir.path());
  EXPECT_EQ(package->id, kMsId);
  EXPECT_EQ(package->revision, git_hash_object(dir.path() / "build/webgpu/metadata.json"));
}

}  // namespace
}  // namespace wgk::testing
