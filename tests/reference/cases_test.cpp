// Every shared reference case (WGK_SHARED_DIR/cases: ONNX's own node tests and ONNX Runtime 1.30.0 CPU outputs)
// reproduced by the double-precision reference.
#include <cmath>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/npy.h"
#include "reference/compare.h"
#include "reference/rotary_embedding.h"
#include "reference/rounding.h"

namespace wgk::reference {
namespace {

const std::filesystem::path kCases = std::filesystem::path(WGK_SHARED_DIR) / "cases";

// Runs at static initialization (test registration): a missing folder gives no cases, and the
// SharedCases.FolderExists test below fails with the path instead of the binary aborting.
std::vector<std::string> case_folders() {
  std::vector<std::string> out;
  for (const char* group : {"onnx-node", "ort-oracle"}) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(kCases / group, ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec))
      if (std::filesystem::exists(it->path() / "case.json")) out.push_back(std::string(group) + "/" + it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SharedCases, FolderExists) {
  EXPECT_TRUE(std::filesystem::is_directory(kCases / "onnx-node") && std::filesystem::is_directory(kCases / "ort-oracle"))
      << "the reference cases are read from " << kCases
      << ": the project's shared/ folder must be beside the checkout (configure with -DWGK_SHARED_DIR=... otherwise)";
  EXPECT_FALSE(case_folders().empty());
}

double max_abs(const HostTensor& t) {
  double m = 0;
  for (std::int64_t i = 0; i < t.numel(); ++i) m = std::max(m, std::fabs(t.element(i)));
  return m;
}

class SharedCase : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedCase, ReferenceReproducesTheExpectedOutput) {
  const auto folder = kCases / GetParam();
  const auto json = nlohmann::json::parse(std::ifstream(folder / "case.json"));
  const auto load = [&](const std::string& name) { return io::read_npy(folder / json["inputs"][name].get<std::string>()); };
  const HostTensor x = load("x"), cos = load("cos"), sin = load("sin");
  std::optional<HostTensor> position_ids;
  if (json["inputs"].contains("positionIds")) position_ids = load("positionIds");
  const HostTensor y = io::read_npy(folder / json["expected"]["y"].get<std::string>());

  RotaryAttributes attributes;
  const auto& a = json["attributes"];
  attributes.interleaved = a.value("interleaved", 0) != 0;
  attributes.num_heads = a.value("num_heads", 0);
  attributes.rotary_embedding_dim = a.value("rotary_embedding_dim", 0);
  attributes.scale = a.value("scale", 1.0);

  std::vector<double> out;
  if (json["domain"] == "com.microsoft") {
    ASSERT_TRUE(position_ids) << "the contrib op requires position_ids";
    out = rotary_embedding_ms(x, *position_ids, cos, sin, attributes);
  } else {
    out = rotary_embedding_onnx(x, cos, sin, position_ids ? &*position_ids : nullptr, attributes);
  }
  ASSERT_EQ(y.shape, x.shape);

  // Tolerance. The expected y is float32 arithmetic on float32 inputs (which the reference reads exactly):
  // y' = fl(fl(c*a) - fl(s*b)). With u = 2^-24 (float32 unit roundoff), M = max|x| and C = max(1, max|cos|,
  // max|sin|): each product is off by <= u*C*M and the difference, |y| <= 2*C*M, by <= 2*u*C*M; so
  // |y' - y| <= 4*u*C*M. We allow 8*u*C*M for a different association or an FMA in the oracle. For M ~ 1 this
  // is ~5e-7, the size of the recorded ONNX-reference-vs-ORT differences (2.4e-7). The copied tail must be exact,
  // which this bound also covers.
  const double u = std::ldexp(1.0, -24);
  const double c_max = std::max({1.0, max_abs(cos), max_abs(sin)});
  const Tolerance tolerance{8 * u * c_max * max_abs(x), 0.0};
  const Comparison c = compare(y, out, tolerance);
  EXPECT_TRUE(c.ok()) << GetParam() << " (tolerance " << tolerance.abs << "): " << c.summary();
  EXPECT_EQ(c.count, x.numel());
  std::cout << "  " << GetParam() << ": tolerance " << tolerance.abs << "; " << c.summary() << "\n";

  // Rounded once to float32, the reference should match the oracle's float32 bits for nearly all elements.
  const HostTensor rounded = round_to_tensor(out, DType::kFloat32, x.shape);
  EXPECT_TRUE(compare(rounded, to_doubles(y), tolerance).ok());
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SharedCase);  // no shared folder: FolderExists fails instead
INSTANTIATE_TEST_SUITE_P(AllCases, SharedCase, ::testing::ValuesIn(case_folders()), [](const auto& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

TEST(SharedCases, AllTwentyOneArePresent) { EXPECT_EQ(case_folders().size(), 21u); }

}  // namespace
}  // namespace wgk::reference
