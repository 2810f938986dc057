// Content pins: the legacy-format revision of ai.onnx.RotaryEmbedding (seed 000's manifest, kept in
// kernels/revisions/) loads by its content pin (the git blob id of its metadata.json; a Hub `revision`
// is a commit, src/store/store.h) and computes ONNX's own test outputs; `version: 1` serves the current
// package. Expected outputs: ONNX's backend node test data in ../shared/cases/onnx-node.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "call_helpers.h"
#include "contract/contract.h"
#include "io/npy.h"
#include "reference/compare.h"
#include "reference/rounding.h"
#include "wgk/introspect.h"

namespace wgk::testing {
namespace {

// `git hash-object kernels/revisions/ai.onnx.RotaryEmbedding-seed000/build/webgpu/metadata.json`: the pin a
// user of that older revision wrote down. These bytes are frozen; the test fails if any of them change.
constexpr const char* kLegacyRevision = "bd16bde5d0db516fb59378e8ae0f47ecddd0a056";

TEST(Revision, LegacyFormatRevisionLoadsByItsPin) {
  const Kernel legacy = get_kernel(kOnnxId, {.content = kLegacyRevision});
  EXPECT_EQ(legacy.content_id(), kLegacyRevision);
  EXPECT_EQ(introspect::contract(legacy)->format, contract::ManifestFormat::kLegacy);
  const Kernel current = get_kernel(kOnnxId, {.version = 1});
  EXPECT_EQ(introspect::contract(current)->format, contract::ManifestFormat::kCurrent);
  EXPECT_NE(current.content_id(), kLegacyRevision);
}

TEST(Revision, LegacyRevisionComputesOnnxTestOutputs) {
  const Kernel legacy = get_kernel(kOnnxId, {.content = kLegacyRevision});
  const std::filesystem::path root = std::filesystem::path(WGK_SHARED_DIR) / "cases" / "onnx-node";
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    std::ifstream in(entry.path() / "case.json");
    const auto j = nlohmann::json::parse(in);
    std::map<std::string, HostTensor, std::less<>> tensors;
    for (const auto& [name, file] : j.at("inputs").items())
      tensors[name] = io::read_npy(entry.path() / file.get<std::string>());
    Inputs inputs;
    for (const auto& [name, t] : tensors) inputs.emplace(name, t);
    Attributes attrs;
    for (const auto& [name, v] : j.at("attributes").items()) attrs[name] = v.get<std::int64_t>();
    CallInfo info;
    Outputs out = legacy.call(inputs, attrs, {}, &info);
    const HostTensor expected = io::read_npy(entry.path() / j.at("expected").at("y").get<std::string>());
    // Two f32 implementations of one rotation: a few ulps of values below 4 (1e-5 absolute).
    const auto cmp = reference::compare(out.at("y").read(), reference::to_doubles(expected), {1e-5, 0});
    EXPECT_TRUE(cmp.ok()) << entry.path().filename() << " [" << info.variant << "]: " << cmp.summary();
    ++cases;
  }
  EXPECT_EQ(cases, 8);
}

TEST(Revision, UnknownPinListsWhatExists) {
  const std::string message = error_of([] { get_kernel(kOnnxId, {.content = std::string(40, '0')}); },
                                       ErrorKind::kNotFound);
  EXPECT_NE(message.find(kLegacyRevision), std::string::npos) << message;
  EXPECT_NE(message.find("by content pin only"), std::string::npos) << message;
}

}  // namespace
}  // namespace wgk::testing
