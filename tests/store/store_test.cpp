// The package store: loading the bundled packages by version line and by content pin (the git blob
// id of build/webgpu/metadata.json, checked against `git hash-object`), refusing wrong or malformed
// pins. The Hub cache layout is tested in hub_cache_test.cpp (hand-made caches, hostile ones) and
// hub_test.cpp (caches written by @huggingface/hub and by our client, against a loopback Hub).
#include <gtest/gtest.h>

#include "../error_helpers.h"

#include "package_folder.h"
#include "store/store.h"
#include "wgk/error.h"

namespace wgk::testing {
namespace {

const fs::path kKernels = fs::path(WGK_SOURCE_DIR) / "kernels";
constexpr const char* kOnnxId = "webgpu-kernels/ai.onnx.RotaryEmbedding";
constexpr const char* kMsId = "webgpu-kernels/com.microsoft.RotaryEmbedding";

struct Bundled {
  const char* id;
  const char* folder;
};
const Bundled kBundled[] = {{kOnnxId, "ai.onnx.RotaryEmbedding"},
                            {kMsId, "com.microsoft.RotaryEmbedding"},
                            {"webgpu-kernels/ai.onnx.RMSNormalization", "ai.onnx.RMSNormalization"},
                            {"webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization",
                             "com.microsoft.SkipSimplifiedLayerNormalization"}};

// ---- the embedded packages ----------------------------------------------------------------------

TEST(StoreEmbedded, VersionOneAndContentPinAgreeWithGitHashObject) {
  const store::Store embedded_only({}, true);
  for (const Bundled& b : kBundled) {
    const fs::path meta = kKernels / b.folder / "build/webgpu/metadata.json";
    const std::string git_rev = git_hash_object(meta);
    ASSERT_EQ(git_rev.size(), 40u) << "git hash-object " << meta;
    auto by_version = embedded_only.load(b.id, {.version = 1, .revision = std::nullopt});
    EXPECT_EQ(by_version->id, b.id);
    EXPECT_EQ(by_version->version, 1);
    EXPECT_EQ(by_version->content_id, git_rev);
    EXPECT_EQ(by_version->commit, "");  // no Hub commit is recorded for the embedded packages
    auto by_revision = embedded_only.load(b.id, {.version = std::nullopt, .revision = std::nullopt, .content = git_rev});
    EXPECT_EQ(by_revision->content_id, git_rev);
    // The same bytes either way: every file identical to the one in kernels/.
    for (const auto& [path, bytes] : by_revision->files) EXPECT_EQ(bytes, read_bytes(kKernels / b.folder / path)) << path;
  }
}

TEST(StoreEmbedded, WrongContentPinIsNotFoundAndListsWhatExists) {
  const store::Store embedded_only({}, true);
  const std::string real = git_hash_object(kKernels / "ai.onnx.RotaryEmbedding/build/webgpu/metadata.json");
  const std::string wrong(40, '0');
  const std::string message = error_of(
      [&] { embedded_only.load(kOnnxId, {.version = std::nullopt, .revision = std::nullopt, .content = wrong}); },
      ErrorKind::kNotFound);
  expect_has(message, {kOnnxId, wrong, real, "version 1"});
}

TEST(StoreEmbedded, ContentPinIsNotARevision) {
  // The blob id of metadata.json is the content pin; as a `revision` (a Hub commit) it finds nothing
  // in the embedded packages, and the message says which pin to use.
  const store::Store embedded_only({}, true);
  const std::string content = git_hash_object(kKernels / "ai.onnx.RotaryEmbedding/build/webgpu/metadata.json");
  expect_has(error_of([&] { embedded_only.load(kOnnxId, {.version = std::nullopt, .revision = content}); },
                      ErrorKind::kNotFound),
             {"revision " + content, "Hub commit", ".content"});
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
    expect_has(error_of([&] { embedded_only.load(kOnnxId, {.version = std::nullopt, .revision = std::nullopt, .content = bad}); },
                        ErrorKind::kInvalidArgument),
               {bad, "40 lower-case hex"});
  }
}

TEST(StoreEmbedded, MalformedIdRefused) {
  const store::Store embedded_only({}, true);
  for (const std::string& bad : std::vector<std::string>{"noslash", "a/b/c", "../x", "org/na--me", "org/.hidden", "org/a b",
                                                         "-org/name"})
    expect_has(error_of([&] { embedded_only.load(bad, {.version = 1}); }, ErrorKind::kInvalidArgument), {"package id"});
}

TEST(StoreEmbedded, VersionAndRevisionTogetherRefused) {
  const store::Store embedded_only({}, true);
  expect_has(error_of([&] { embedded_only.load(kOnnxId, {.version = 1, .revision = std::string(40, 'a')}); },
                      ErrorKind::kInvalidArgument),
             {"exactly one", "version", "revision", "content"});
  expect_has(error_of([&] { embedded_only.load(kOnnxId, {.version = std::nullopt, .revision = std::string(40, 'a'),
                                                          .content = std::string(40, 'a')}); },
                      ErrorKind::kInvalidArgument),
             {"exactly one"});
  expect_has(error_of([&] { embedded_only.load(kOnnxId, {}); }, ErrorKind::kInvalidArgument), {"exactly one"});
}

TEST(StoreDirectory, RegeneratedMetadataLoads) {
  // The helper the hostile-package tests rely on: a copied folder with regenerated metadata loads,
  // and its revision is git's blob id of the new metadata.json.
  TempDir dir;
  copy_package(kKernels / "com.microsoft.RotaryEmbedding", dir.path());
  write_metadata(dir.path(), kMsId);
  auto package = store::load_package_directory(dir.path());
  EXPECT_EQ(package->id, kMsId);
  EXPECT_EQ(package->content_id, git_hash_object(dir.path() / "build/webgpu/metadata.json"));
}

}  // namespace
}  // namespace wgk::testing
