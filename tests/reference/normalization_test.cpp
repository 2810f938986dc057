// The CPU references of ai.onnx::RMSNormalization-23 and com.microsoft::SkipSimplifiedLayerNormalization
// against hand-derived values and against ONNX Runtime 1.30's CPU provider (tests/oracles/ort_run.mjs, when
// node and onnxruntime-node are installed; skipped otherwise).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

#include "../error_helpers.h"
#include "../ort_oracle.h"
#include "io/npy.h"
#include "reference/rms_normalization.h"
#include "reference/skip_simplified_layer_normalization.h"

namespace wgk::testing {
namespace {

namespace fs = std::filesystem;
using reference::RmsNormalizationAttributes;
using reference::rms_normalization;
using reference::skip_simplified_layer_normalization;

HostTensor f32(Shape shape, const std::vector<float>& v) { return HostTensor::from(DType::kFloat32, std::move(shape), v); }

HostTensor random_tensor(DType dtype, Shape shape, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(numel(shape)));
  for (float& f : v) f = u(rng);
  if (dtype == DType::kFloat32) return f32(std::move(shape), v);
  std::vector<std::uint16_t> h(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) h[i] = float_to_half(v[i]);
  return HostTensor::from(DType::kFloat16, std::move(shape), h);
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// ---- hand-derived values ------------------------------------------------------------------------

TEST(RmsNormalizationReference, OneRowByHand) {
  // x = (3, 4), epsilon 0.5: mean of squares (9 + 16) / 2 = 12.5, rms = sqrt(13); scale (2, -1):
  // y = (2 * 3, -4) / sqrt(13) = (1.6641005886756874, -1.1094003924504583).
  RmsNormalizationAttributes a;
  a.epsilon = 0.5;
  const auto out = rms_normalization(f32({1, 2}, {3, 4}), f32({2}, {2, -1}), a);
  expect_near_all(out.y, {6 / std::sqrt(13.0), -4 / std::sqrt(13.0)}, 1e-12);
}

TEST(RmsNormalizationReference, AxisMinusTwoWithAnInnerBroadcastScaleByHand) {
  // x (1, 2, 2) = 1, 2, 3, 4 with axis -2: one row of 4, mean of squares 30 / 4 = 7.5, epsilon 0.5:
  // rms = sqrt(8). scale (2, 1) = (10, 100) broadcasts over the last dim: y = (10, 20, 300, 400) / sqrt(8).
  RmsNormalizationAttributes a;
  a.axis = -2;
  a.epsilon = 0.5;
  const auto out = rms_normalization(f32({1, 2, 2}, {1, 2, 3, 4}), f32({2, 1}, {10, 100}), a);
  const double r = std::sqrt(8.0);
  expect_near_all(out.y, {10 / r, 20 / r, 300 / r, 400 / r}, 1e-12);
}

TEST(RmsNormalizationReference, StashTypesRoundStageOne) {
  // The values derived in tests/runtime/normalization_test.cpp (StashTypesRoundStageOneAsTheFunctionBody):
  // x = (3, 4), epsilon 1e-5, scale 1: float16 stage one (0.8486328125, 1.1318359375), bfloat16
  // (0.84765625, 1.1328125); double (11) is exact: (3, 4) / sqrt(12.50001).
  RmsNormalizationAttributes a;
  a.stash_type = 10;
  EXPECT_EQ(rms_normalization(f32({1, 2}, {3, 4}), f32({1}, {1}), a).y, (std::vector<double>{0.8486328125, 1.1318359375}));
  a.stash_type = 16;
  EXPECT_EQ(rms_normalization(f32({1, 2}, {3, 4}), f32({1}, {1}), a).y, (std::vector<double>{0.84765625, 1.1328125}));
  a.stash_type = 11;
  expect_near_all(rms_normalization(f32({1, 2}, {3, 4}), f32({1}, {1}), a).y,
                  {3 / std::sqrt(12.5 + static_cast<double>(1e-5)), 4 / std::sqrt(12.5 + static_cast<double>(1e-5))}, 1e-12);
  a.stash_type = 2;
  expect_has(error_of([&] { rms_normalization(f32({1, 2}, {3, 4}), f32({1}, {1}), a); }),
             {"stash_type 2", "1 (float32), 10 (float16), 11 (double) or 16 (bfloat16)"});
}

TEST(RmsNormalizationReference, RefusesWhatTheSpecForbids) {
  RmsNormalizationAttributes a;
  a.axis = 2;
  expect_has(error_of([&] { rms_normalization(f32({2, 2}, {1, 2, 3, 4}), f32({2}, {1, 1}), a); }),
             {"axis 2", "[-2, 2)", "[2, 2]"});
  expect_has(error_of([&] { rms_normalization(f32({2, 2}, {1, 2, 3, 4}), f32({3}, {1, 1, 1}), {}); }),
             {"scale of shape [3]", "does not broadcast", "[2, 2]"});
}

TEST(RmsNormalizationReference, StashTypeOneSumsSquaresInFloat32sRange) {
  // stash_type 1: the mean of squares is float32 (the function body's Cast to float), whose largest value is
  // FLT_MAX = (2 - 2^-23) * 2^127 = 3.4028235e38. x = (2e19, 1): 2e19^2 = 4e38 > FLT_MAX, so the sum is +Inf,
  // rms = Inf and y = x / Inf * scale = (0, 0). x = (1e19, 1e19): each square 1e38 (to float32's precision),
  // sum 2e38 < FLT_MAX, mean 1e38, rms = 1e19 (epsilon vanishes): y = scale = (2, 3) within float32's rounding
  // of 1e19 (relative 2^-24). stash_type 11 (double) keeps the exact value: y[0] = 2e19 / sqrt(2e38) * 2 = 2 sqrt 2.
  const HostTensor big = f32({2}, {2e19f, 1.0f});
  expect_near_all(rms_normalization(big, f32({2}, {2, 3}), {}).y, {0, 0}, 0);
  expect_near_all(rms_normalization(f32({2}, {1e19f, 1e19f}), f32({2}, {2, 3}), {}).y, {2, 3}, 1e-6);
  RmsNormalizationAttributes stash_double;
  stash_double.stash_type = 11;
  EXPECT_NEAR(rms_normalization(big, f32({2}, {2, 3}), stash_double).y[0], 2 * std::sqrt(2.0), 1e-6);
}

TEST(RmsNormalizationReference, StashTypeOneSquaresUnderflowAsFloat32s) {
  // x = 1e-40 (a float32 subnormal): x^2 = 1e-80 is below float32's smallest subnormal (1.4e-45), so each square
  // is 0 in float32, the mean is 0 and with epsilon 0 rms = 0: y = x / 0 * scale = +Inf. In double the squares
  // would not vanish: y = x / 1e-40 = 1.
  RmsNormalizationAttributes a;
  a.epsilon = 0;
  for (double y : rms_normalization(f32({4}, {1e-40f, 1e-40f, 1e-40f, 1e-40f}), f32({1}, {1}), a).y) EXPECT_EQ(y, INFINITY);
  a.stash_type = 11;
  expect_near_all(rms_normalization(f32({4}, {1e-40f, 1e-40f, 1e-40f, 1e-40f}), f32({1}, {1}), a).y, {1, 1, 1, 1}, 1e-12);
}

TEST(SkipSimplifiedLayerNormalizationReference, OneRowWithBiasByHand) {
  // input (1, 2) = (1, 2), skip (2, 2), bias (1, 0): s = (4, 4); epsilon 0: mean of squares 16, inv_std_var
  // 1/4; gamma (1, 3): y = (1, 3).
  const HostTensor bias = f32({2}, {1, 0});
  const auto out = skip_simplified_layer_normalization(f32({1, 2}, {1, 2}), f32({1, 2}, {2, 2}), f32({2}, {1, 3}), &bias, 0.0);
  expect_near_all(out.y, {1, 3}, 1e-12);
  expect_near_all(out.inv_std_var, {0.25}, 1e-12);
  expect_near_all(out.input_skip_bias_sum, {4, 4}, 1e-12);
  EXPECT_EQ(out.inv_std_var_shape, (Shape{1, 1}));
}

TEST(SkipSimplifiedLayerNormalizationReference, SkipBroadcastOverTheBatchByHand) {
  // input (2, 1, 2) = (1, 2), (3, 4); skip (1, 2) = (1, 1) added to both rows: s = (2, 3), (4, 5);
  // epsilon 0: inv_std_var = 1 / sqrt(13 / 2), 1 / sqrt(41 / 2); gamma 1.
  const auto out = skip_simplified_layer_normalization(f32({2, 1, 2}, {1, 2, 3, 4}), f32({1, 2}, {1, 1}),
                                                       f32({2}, {1, 1}), nullptr, 0.0);
  const double a = 1 / std::sqrt(6.5), b = 1 / std::sqrt(20.5);
  expect_near_all(out.inv_std_var, {a, b}, 1e-12);
  expect_near_all(out.y, {2 * a, 3 * a, 4 * b, 5 * b}, 1e-12);
  EXPECT_EQ(out.inv_std_var_shape, (Shape{2, 1, 1}));
}

TEST(SkipSimplifiedLayerNormalizationReference, SumsInFloat32sRange) {
  // ORT's kernel computes s and the sum of squares in float32 (FLT_MAX = 3.4028235e38). input (2e19, 0), skip 0:
  // s = (2e19, 0), s^2 = 4e38 > FLT_MAX: the sum is +Inf, inv_std_var = 1 / sqrt(Inf) = 0, output = s * 0 = (0, 0).
  // input (3e38, 1), skip (1e38, 0): s[0] = 4e38 overflows float32 to +Inf, so input_skip_bias_sum is (Inf, 1),
  // inv_std_var 0 and output[0] = Inf * 0 = NaN, output[1] = 1 * 0 = 0.
  const auto small = skip_simplified_layer_normalization(f32({1, 2}, {2e19f, 0}), f32({1, 2}, {0, 0}),
                                                         f32({2}, {1, 1}), nullptr, 1e-5);
  expect_near_all(small.inv_std_var, {0}, 0);
  expect_near_all(small.y, {0, 0}, 0);
  const auto big = skip_simplified_layer_normalization(f32({1, 2}, {3e38f, 1}), f32({1, 2}, {1e38f, 0}),
                                                       f32({2}, {1, 1}), nullptr, 1e-5);
  EXPECT_EQ(big.input_skip_bias_sum[0], INFINITY);
  EXPECT_EQ(big.input_skip_bias_sum[1], 1);
  EXPECT_EQ(big.inv_std_var[0], 0);
  EXPECT_TRUE(std::isnan(big.y[0]));
  EXPECT_EQ(big.y[1], 0);
}

TEST(SkipSimplifiedLayerNormalizationReference, AddsInFloat32AsORT) {
  // s = (input + skip) + bias, each add in float32. input (1, 1), skip (1e8, 0), bias (-1e8, 0): 1 + 1e8 rounds
  // to 1e8 (float32's spacing there is 8), minus 1e8 is 0, so s = (0, 1) (exactly: (1, 1)); epsilon 0: mean of
  // squares 1/2, inv_std_var = sqrt 2, output = (0, sqrt 2). input (3e38, 1), skip (3e38, 0), bias (-3e38, 0):
  // 3e38 + 3e38 overflows to +Inf before bias is added, so s = (Inf, 1), inv_std_var 0, output (NaN, 0).
  const HostTensor bias = f32({2}, {-1e8f, 0});
  const auto cancel = skip_simplified_layer_normalization(f32({1, 2}, {1, 1}), f32({1, 2}, {1e8f, 0}), f32({2}, {1, 1}),
                                                          &bias, 0.0);
  expect_near_all(cancel.input_skip_bias_sum, {0, 1}, 0);
  expect_near_all(cancel.inv_std_var, {std::sqrt(2.0)}, 1e-12);
  expect_near_all(cancel.y, {0, std::sqrt(2.0)}, 1e-12);
  const HostTensor undo = f32({2}, {-3e38f, 0});
  const auto over = skip_simplified_layer_normalization(f32({1, 2}, {3e38f, 1}), f32({1, 2}, {3e38f, 0}), f32({2}, {1, 1}),
                                                        &undo, 0.0);
  EXPECT_EQ(over.input_skip_bias_sum[0], INFINITY);
  EXPECT_EQ(over.inv_std_var[0], 0);
  EXPECT_TRUE(std::isnan(over.y[0]));
  EXPECT_EQ(over.y[1], 0);
}

TEST(SkipSimplifiedLayerNormalizationReference, RefusesWhatORTRefuses) {
  // The rules and wording of ORT 1.30's CPU provider (seen running it: "input is expected to have 3 or 2
  // dimensions, got 4", "last two dimensions of skip needs to be same as input").
  expect_has(error_of([] {
               skip_simplified_layer_normalization(f32({1, 1, 1, 2}, {1, 2}), f32({1, 2}, {1, 1}), f32({2}, {1, 1}),
                                                   nullptr, 0.0);
             }),
             {"input is expected to have 3 or 2 dimensions, got 4"});
  expect_has(error_of([] {
               skip_simplified_layer_normalization(f32({2, 1, 2}, {1, 2, 3, 4}), f32({2, 2}, {1, 1, 1, 1}),
                                                   f32({2}, {1, 1}), nullptr, 0.0);
             }),
             {"last two dimensions of skip [2, 2]", "input [2, 1, 2]"});
  expect_has(error_of([] {
               skip_simplified_layer_normalization(f32({1, 2}, {1, 2}), f32({1, 2}, {1, 1}), f32({3}, {1, 1, 1}),
                                                   nullptr, 0.0);
             }),
             {"gamma of shape [3]", "(2)"});
}

// ---- against ONNX Runtime ---------------------------------------------------------------------------

#ifdef WGK_NODE
std::vector<double> doubles(const HostTensor& t) {
  std::vector<double> v(static_cast<std::size_t>(t.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.element(static_cast<std::int64_t>(i));
  return v;
}

// ORT computes in float32 and rounds once to T: the reference (double) agrees within float32 error
// (1e-5 relative for rows up to 512) for f32, and within half an f16 unit (2^-11 relative) for f16; equal
// infinities and NaN against NaN match.
void expect_close(const std::vector<double>& ref, const HostTensor& ort, DType dtype, const std::string& what) {
  ASSERT_EQ(ref.size(), static_cast<std::size_t>(ort.numel())) << what;
  const double rel = dtype == DType::kFloat32 ? 1e-5 : 1e-3, abs = dtype == DType::kFloat32 ? 1e-6 : 1e-5;
  const std::vector<double> o = doubles(ort);
  int bad = 0;
  for (std::size_t i = 0; i < ref.size() && bad < 5; ++i)
    if (!(ref[i] == o[i] || (std::isnan(ref[i]) && std::isnan(o[i])) || std::abs(ref[i] - o[i]) <= abs + rel * std::abs(o[i]))) {
      ADD_FAILURE() << what << " element " << i << ": reference " << ref[i] << ", ORT " << o[i];
      ++bad;
    }
}

// The Skip reference of case `c` against ORT's outputs `got`: y, and invStdVar (shape, float32) and
// inputSkipBiasSum where ORT was asked for them. Returns the reference.
reference::SkipSimplifiedLayerNormalizationOutputs expect_skip_close(const OrtCase& c,
                                                                     const std::map<std::string, HostTensor>& got) {
  auto bias = c.inputs.find("bias");
  auto ref = skip_simplified_layer_normalization(c.inputs.at("x"), c.inputs.at("skip"), c.inputs.at("gamma"),
                                                 bias == c.inputs.end() ? nullptr : &bias->second, c.epsilon);
  expect_close(ref.y, got.at("y"), c.dtype, c.name + " y");
  if (got.count("invStdVar")) {
    EXPECT_EQ(got.at("invStdVar").shape, ref.inv_std_var_shape) << c.name;
    EXPECT_EQ(got.at("invStdVar").dtype, DType::kFloat32) << c.name;
    expect_close(ref.inv_std_var, got.at("invStdVar"), DType::kFloat32, c.name + " invStdVar");
    expect_close(ref.input_skip_bias_sum, got.at("inputSkipBiasSum"), c.dtype, c.name + " inputSkipBiasSum");
  }
  return ref;
}

TEST(NormalizationReferenceVsORT, RandomCasesOfBothOpsAgree) {
  std::mt19937 rng(20261201);
  std::vector<OrtCase> cases;
  auto dim = [&](int lo, int hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int k = 0; k < 60; ++k) {
    const DType dt = k % 2 ? DType::kFloat16 : DType::kFloat32;
    OrtCase r{"rms" + std::to_string(k), "RMSNormalization", "ai.onnx", dt, {}, {"y"}};
    const int rank = static_cast<int>(dim(1, 4));
    Shape x;
    for (int d = 0; d < rank; ++d) x.push_back(dim(1, 6));
    r.axis = dim(-rank, rank - 1);
    const std::int64_t axis = r.axis < 0 ? r.axis + rank : r.axis;
    // scale: the trailing part of X.shape[axis:], each dim kept or broadcast (1) at random
    Shape scale;
    for (std::int64_t d = axis + dim(0, rank - axis - 1); d < rank; ++d) scale.push_back(dim(0, 3) == 0 ? 1 : x[d]);
    r.epsilon = k % 3 == 0 ? 0.1 : 1e-5;
    r.inputs.emplace("x", random_tensor(dt, x, rng));
    r.inputs.emplace("scale", random_tensor(dt, scale, rng));
    cases.push_back(std::move(r));

    OrtCase s{"skip" + std::to_string(k), "SkipSimplifiedLayerNormalization", "com.microsoft", dt, {}, {"y"}};
    const std::int64_t b = dim(1, 3), seq = dim(1, 4), h = dim(1, 40);
    const bool rank3 = k % 4 != 1;
    const Shape in = rank3 ? Shape{b, seq, h} : Shape{seq, h};
    const int form = static_cast<int>(dim(0, 2));  // skip: input's shape, (1, S, H), (S, H)
    const Shape sk = !rank3 || form == 0 ? in : form == 1 ? Shape{1, seq, h} : Shape{seq, h};
    s.inputs.emplace("x", random_tensor(dt, in, rng));
    s.inputs.emplace("skip", random_tensor(dt, sk, rng));
    s.inputs.emplace("gamma", random_tensor(dt, {h}, rng));
    if (k % 3 != 0) s.inputs.emplace("bias", random_tensor(dt, {h}, rng));
    s.outputs = k % 2 ? std::vector<std::string>{"y", "invStdVar", "inputSkipBiasSum"} : std::vector<std::string>{"y"};
    s.epsilon = k % 3 == 1 ? 0.25 : 1e-5;
    cases.push_back(std::move(s));
  }
  const fs::path dir = fs::temp_directory_path() / ("wgk_norm_ort_" + std::to_string(::getpid()));
  const auto ort = run_ort(cases, dir);
  fs::remove_all(dir);
  for (const OrtCase& c : cases) {
    const auto& got = ort.at(c.name);
    if (c.op == "RMSNormalization") {
      RmsNormalizationAttributes a;
      a.axis = c.axis;
      a.epsilon = c.epsilon;
      expect_close(rms_normalization(c.inputs.at("x"), c.inputs.at("scale"), a).y, got.at("y"), c.dtype, c.name + " y");
      continue;
    }
    expect_skip_close(c, got);
  }
}

TEST(NormalizationReferenceVsORT, SumsOfSquaresPastFloat32sRangeAgree) {
  // Rows whose float32 sum of squares passes FLT_MAX (|x| = 2e19 > 1.84e19): ORT gives y = 0 there; rows just
  // inside the range (1e19: squares 1e38, sums up to 3e38) stay finite.
  std::vector<OrtCase> cases;
  OrtCase r{"rms_range", "RMSNormalization", "ai.onnx", DType::kFloat32, {}, {"y"}};
  r.inputs.emplace("x", f32({3, 3}, {2e19f, 1, -1, 1e19f, 1e19f, -1e19f, -3e19f, 0.5f, 0}));
  r.inputs.emplace("scale", f32({3}, {1, -2, 3}));
  cases.push_back(std::move(r));
  OrtCase s{"skip_range", "SkipSimplifiedLayerNormalization", "com.microsoft", DType::kFloat32, {}, {"y", "invStdVar", "inputSkipBiasSum"}};
  s.inputs.emplace("x", f32({2, 3}, {1e19f, 1e19f, 0, 1, 2, 3}));
  s.inputs.emplace("skip", f32({2, 3}, {1e19f, 0, 1, 0, 0, 0}));
  s.inputs.emplace("gamma", f32({3}, {1, 2, 3}));
  cases.push_back(std::move(s));
  OrtCase u{"rms_underflow", "RMSNormalization", "ai.onnx", DType::kFloat32, {}, {"y"}};
  u.inputs.emplace("x", f32({2, 4}, {1e-40f, -1e-40f, 1e-40f, 2e-40f, 1e-15f, 1e-30f, 0, 1e-40f}));
  u.inputs.emplace("scale", f32({4}, {1, 2, 3, 4}));
  u.epsilon = 0;
  cases.push_back(std::move(u));
  OrtCase c{"skip_float32_adds", "SkipSimplifiedLayerNormalization", "com.microsoft", DType::kFloat32, {}, {"y", "invStdVar", "inputSkipBiasSum"}};
  c.inputs.emplace("x", f32({2, 3}, {1, 1, 3e38f, 0.1f, 1000.5f, -7}));
  c.inputs.emplace("skip", f32({2, 3}, {1e8f, 0, 3e38f, 0.2f, 2000.25f, 7}));
  c.inputs.emplace("bias", f32({3}, {-1e8f, 0.5f, -3e38f}));
  c.inputs.emplace("gamma", f32({3}, {1, 1, 1}));
  cases.push_back(std::move(c));
  const fs::path dir = fs::temp_directory_path() / ("wgk_norm_range_" + std::to_string(::getpid()));
  const auto ort = run_ort(cases, dir);
  fs::remove_all(dir);
  const auto rms = rms_normalization(cases[0].inputs.at("x"), cases[0].inputs.at("scale"), {});
  expect_close(rms.y, ort.at("rms_range").at("y"), DType::kFloat32, "rms_range y");
  EXPECT_EQ(rms.y[0], 0);  // the first row overflows: the reference, like ORT, gives 0
  const auto skip = expect_skip_close(cases[1], ort.at("skip_range"));
  EXPECT_EQ(skip.inv_std_var[0], 0);  // s = (2e19, 1e19, 1): 5e38 > FLT_MAX
  // squares that underflow in float32 (epsilon 0): ORT's y is +-Inf where the whole row's squares vanish
  RmsNormalizationAttributes eps0;
  eps0.epsilon = 0;
  const auto under = rms_normalization(cases[2].inputs.at("x"), cases[2].inputs.at("scale"), eps0);
  expect_close(under.y, ort.at("rms_underflow").at("y"), DType::kFloat32, "rms_underflow y");
  EXPECT_EQ(under.y[0], INFINITY);
  // (input + skip) + bias in float32: cancellation and an overflow the bias would undo, as ORT
  const auto adds = expect_skip_close(cases[3], ort.at("skip_float32_adds"));
  EXPECT_EQ(adds.input_skip_bias_sum[0], 0);         // 1 + 1e8 - 1e8 in float32
  EXPECT_EQ(adds.input_skip_bias_sum[2], INFINITY);  // 3e38 + 3e38 - 3e38 in float32
}
#endif

}  // namespace
}  // namespace wgk::testing
