// load_contract_file: a package folder's manifest plus its shader files, which must exist beside
// the manifest and stay inside the folder (a package is untrusted input).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "contract/contract.h"
#include "contract/describe.h"
#include "seed_paths.h"
#include "wgk/error.h"

namespace wgk::contract {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A fresh copy of tests/contract/data/package in a temporary folder.
class PackageFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("wgk_contract_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    fs::copy(test::kDataDir + "/package", root_ / "package", fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string manifest() const { return (root_ / "package" / "manifest.json").string(); }
  void set_shader(const std::string& shader) {
    std::string text = test::read_text(manifest());
    const std::string from = "shaders/scale.wgsl.jinja";
    text.replace(text.find(from), from.size(), shader);
    std::ofstream(manifest(), std::ios::binary | std::ios::trunc) << text;
  }
  Error load_error() {
    try {
      load_contract_file(manifest());
    } catch (const Error& e) {
      return e;
    }
    return Error(ErrorKind::kInternal, "(loaded without error)");
  }
  fs::path root_;
};

TEST_F(PackageFolder, Loads) {
  const Contract c = load_contract_file(manifest());
  EXPECT_EQ(c.name, "Scale");
  ASSERT_EQ(c.variants.size(), 1u);
  EXPECT_EQ(c.variants[0].passes[0].shader, "shaders/scale.wgsl.jinja");
  EXPECT_EQ(c.bindings[2].kind, BindingKind::kUniform);
  EXPECT_EQ(c.bindings[2].fields[1].type, "f32");
  EXPECT_EQ(c.find_attribute("scale")->default_value, expr::Value(2.0));
}

TEST_F(PackageFolder, MissingShaderIsNotFound) {
  fs::remove(root_ / "package" / "shaders" / "scale.wgsl.jinja");
  const Error e = load_error();
  EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
  EXPECT_THAT(e.what(), HasSubstr("variants[0].passes[0]: shader file 'shaders/scale.wgsl.jinja' not found"));
  // Without the file check the manifest alone loads.
  EXPECT_NO_THROW(load_contract_file(manifest(), false));
}

TEST_F(PackageFolder, SymlinkOutsideThePackageIsRefused) {
  std::ofstream(root_ / "outside.wgsl.jinja") << "// not part of the package\n";
  fs::create_symlink(root_ / "outside.wgsl.jinja", root_ / "package" / "shaders" / "link.wgsl.jinja");
  set_shader("shaders/link.wgsl.jinja");
  const Error e = load_error();
  EXPECT_EQ(e.kind(), ErrorKind::kContract);
  EXPECT_THAT(e.what(), HasSubstr("shader file 'shaders/link.wgsl.jinja' resolves outside the package folder"));
}

TEST_F(PackageFolder, ParentPathRefusedBeforeTouchingTheDisk) {
  std::ofstream(root_ / "outside.wgsl.jinja") << "// exists, but outside\n";
  set_shader("../outside.wgsl.jinja");
  const Error e = load_error();
  EXPECT_EQ(e.kind(), ErrorKind::kContract);
  EXPECT_THAT(e.what(), HasSubstr("variants[0].passes[0].shader: shader path '../outside.wgsl.jinja' leaves the package folder"));
}

TEST_F(PackageFolder, MissingManifestIsNotFound) {
  try {
    load_contract_file((root_ / "nope" / "manifest.json").string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_THAT(e.what(), HasSubstr("cannot open the manifest"));
  }
}

// The packages that ship in kernels/ load with their shader files (facts from their manifests).
TEST(ShippedPackages, Load) {
  const std::string kernels = std::string(WGK_SOURCE_DIR) + "/kernels/";
  const Contract onnx = load_contract_file(kernels + "ai.onnx.RotaryEmbedding/build/webgpu/manifest.json");
  EXPECT_EQ(onnx.domain, "ai.onnx");
  EXPECT_EQ(onnx.since_version, 23);
  EXPECT_EQ(onnx.find_input("X"), onnx.find_input("x"));
  const Contract ms = load_contract_file(kernels + "com.microsoft.RotaryEmbedding/build/webgpu/manifest.json");
  EXPECT_EQ(ms.domain, "com.microsoft");
  ASSERT_NE(ms.find_input("position_ids"), nullptr);
  EXPECT_TRUE(ms.find_input("position_ids")->value_max.has_value());
}

// What `wgk contract` prints for the legacy seed: the conversions are visible.
TEST(Describe, LegacySeed) {
  const Contract c = load_contract_file(test::kLegacySeed, false);
  std::ostringstream out;
  print_contract(c, out);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("format: legacy\n"));
  EXPECT_THAT(text, HasSubstr("  positionIds (onnx position_ids): dtype M, rank 2, optional, storage uint32 (checked narrowing)\n"));
  EXPECT_THAT(text, HasSubstr("  num_heads: INT, no default\n"));
  EXPECT_THAT(text, HasSubstr("  interleaved: INT, default 0, allowed 0 1\n"));
  EXPECT_THAT(text, HasSubstr("  rank3_cache2_pos  priority 0\n"));
  EXPECT_THAT(text, HasSubstr("      @binding(3) position_ids [rank3Pos.position_ids]: read-only-storage positionIds, array<$M>\n"));
  EXPECT_THAT(text, HasSubstr("dispatch: x = min(ceilDiv((numel(shapes.X) / 2), (tunables.WORKGROUP_SIZE)), 65535); "
                              "y = ceilDiv(ceilDiv((numel(shapes.X) / 2), (tunables.WORKGROUP_SIZE)), 65535); z = 1\n"));
}

}  // namespace
}  // namespace wgk::contract
