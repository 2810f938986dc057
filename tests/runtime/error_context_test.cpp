// Context frames on real paths (include/wgk/error.h): a bad package, a template fault at the first call,
// and a bad call each arrive with the frames of the stages they passed through, and with the leaf
// message the stage that found the fault wrote (no frame line in it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../store/package_folder.h"
#include "call_helpers.h"

namespace wgk::testing {
namespace {

const fs::path kData = fs::path(WGK_SOURCE_DIR) / "tests/runtime/data";

/// The wgk::Error `f` throws (a test failure and an empty Error when none).
Error caught(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no wgk::Error was thrown";
  return Error(ErrorKind::kInternal, "");
}

TEST(ErrorContext, BadPackageNamesTheFolderItWasLoadingFrom) {
  TempDir dir;
  copy_package(kData / "hostile_base", dir.path());
  write_bytes(dir.path() / "build/webgpu/manifest.json", "{ not json");
  write_metadata(dir.path(), "webgpu-kernels/wgk.test.Copy");
  const Error e = caught([&] { load_kernel_directory(dir.path().string()); });
  EXPECT_EQ(e.kind(), ErrorKind::kContract) << e.what();
  EXPECT_EQ(e.context(), std::vector<std::string>{"loading the package folder " + dir.path().string()});
  EXPECT_NE(e.message().find("manifest.json"), std::string::npos) << e.message();
  EXPECT_EQ(e.message().find("\n  while"), std::string::npos) << e.message();
}

TEST(ErrorContext, TemplateFaultNamesVariantPassAndCall) {
  // hostile_range: the template asks for range(65536), past the engine's iteration limit, when rendered at
  // the first call. Its manifest has one variant "copy" with one pass "main" (data/hostile_base).
  TempDir dir;
  copy_package(kData / "hostile_base", dir.path());
  copy_package(kData / "hostile_range", dir.path());
  write_metadata(dir.path(), "webgpu-kernels/wgk.test.Copy");
  const Kernel k = load_kernel_directory(dir.path().string());
  const HostTensor x = f32({4}, {1, 2, 3, 4});
  const Error e = caught([&] { (void)k({{"x", x}}); });
  EXPECT_EQ(e.kind(), ErrorKind::kContract) << e.what();
  EXPECT_EQ(e.context(), (std::vector<std::string>{"rendering wgk.test.Copy: variant copy, pass main",
                                                   "calling webgpu-kernels/wgk.test.Copy"}));
  EXPECT_NE(e.message().find("65536"), std::string::npos) << e.message();
}

TEST(ErrorContext, BadCallNamesTheKernel) {
  const HostTensor x = f32({1, 2, 3});  // rank 3: ONNX RotaryEmbedding-23 takes X of rank 3 or 4, so the
                                        // missing cos_cache is the fault here
  const Error e = caught([&] { (void)onnx_kernel()({{"x", x}}); });
  EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument) << e.what();
  EXPECT_EQ(e.context(), std::vector<std::string>{std::string("calling ") + kOnnxId});
  EXPECT_EQ(e.message().find("\n  while"), std::string::npos) << e.message();
  EXPECT_EQ(std::string(e.what()), e.message() + "\n  while calling " + kOnnxId);
}

TEST(ErrorContext, UnknownPackageNamesWhatWasBeingLoaded) {
  const Error e = caught([] { (void)get_kernel("webgpu-kernels/no.such.Package", {.version = 1}); });
  EXPECT_EQ(e.kind(), ErrorKind::kNotFound) << e.what();
  EXPECT_EQ(e.context(), std::vector<std::string>{"loading package webgpu-kernels/no.such.Package version 1"});
}

}  // namespace
}  // namespace wgk::testing
