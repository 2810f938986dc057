// ai.onnx.RMSNormalization and com.microsoft.SkipSimplifiedLayerNormalization on the default adapter against
// the CPU references in double precision (src/reference), every variant (both f16 paths through the
// F16_STORAGE tunable), optional inputs and outputs (an optional output is produced only when asked for), and
// a bad-input catalog breaking each rule of both contracts once.
#include <cmath>
#include <map>

#include <unistd.h>

#include "../ort_oracle.h"
#include "call_helpers.h"
#include "reference/op.h"
#include "reference/rms_normalization.h"
#include "reference/skip_simplified_layer_normalization.h"

namespace wgk::testing {
namespace {

constexpr const char* kRmsId = "webgpu-kernels/ai.onnx.RMSNormalization";
constexpr const char* kSkipId = "webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization";

const Kernel& rms_kernel() {
  static const Kernel k = get_kernel(kRmsId, {.version = 1});
  return k;
}
const Kernel& skip_kernel() {
  static const Kernel k = get_kernel(kSkipId, {.version = 1});
  return k;
}

HostTensor random_tensor(DType dtype, Shape shape, unsigned seed) {
  HostTensor t = random_f32(std::move(shape), seed);
  if (dtype == DType::kFloat32) return t;
  std::vector<std::uint16_t> h(static_cast<std::size_t>(t.numel()));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = float_to_half(static_cast<float>(t.element(static_cast<std::int64_t>(i))));
  return HostTensor::from(DType::kFloat16, t.shape, h);
}

// f32: the float32 reduction and products (<= 1e-5 relative, derivation in the packages' test.json);
// f16: plus one rounding on store, half a unit = 2^-11 relative.
void expect_matches(const HostTensor& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(static_cast<std::size_t>(got.numel()), want.size()) << what;
  const bool f16 = got.dtype == DType::kFloat16;
  const double rel = f16 ? 1e-3 : 1e-5, abs = f16 ? 1e-5 : 1e-6;
  int bad = 0;
  for (std::size_t i = 0; i < want.size() && bad < 5; ++i) {
    const double g = got.element(static_cast<std::int64_t>(i));
    if (!(std::abs(g - want[i]) <= abs + rel * std::abs(want[i]))) {
      ADD_FAILURE() << what << " element " << i << ": got " << g << ", reference " << want[i];
      ++bad;
    }
  }
}

// ---- RMSNormalization ---------------------------------------------------------------------------

struct RmsCase {
  Shape x, scale;
  std::int64_t axis;
  DType dtype;
  const char* storage;  // F16_STORAGE
  const char* variant;
};

TEST(RmsNormalization, EveryVariantMatchesTheReference) {
  const bool native_f16 = rms_kernel().device()->has_shader_f16();
  const RmsCase cases[] = {
      {{3, 64}, {64}, -1, DType::kFloat32, "native", "row_vec4"},
      {{2, 3, 7}, {7}, -1, DType::kFloat32, "native", "row"},
      {{2, 3, 8}, {8}, 1, DType::kFloat32, "native", "row_vec4"},         // scale repeated over the row
      {{2, 3, 8}, {1, 8}, -2, DType::kFloat32, "native", "row_vec4"},     // leading 1 broadcast
      {{2, 3, 5}, {1}, 0, DType::kFloat32, "native", "row"},              // one element, axis 0
      {{3, 8192}, {8192}, -1, DType::kFloat32, "native", "row_vec4"},     // long rows
      {{4, 32}, {32}, -1, DType::kFloat16, "native", native_f16 ? "row_vec4" : "row_packed_vec8"},
      {{4, 32}, {32}, -1, DType::kFloat16, "packed", "row_packed_vec8"},
      {{3, 6}, {6}, -1, DType::kFloat16, "packed", "row_packed"},
      {{5, 7}, {7}, -1, DType::kFloat16, "packed", "row_packed"},         // odd rows: words straddle rows
      {{2, 3, 5}, {5}, -2, DType::kFloat16, "packed", "row_packed"},      // odd rows, scale repeated
      {{2, 8192}, {8192}, -1, DType::kFloat16, "packed", "row_packed_vec8"},
      {{300, 64}, {64}, -1, DType::kFloat32, "native", "rows_vec4"},        // 64 rows a workgroup
      {{300, 64}, {64}, -1, DType::kFloat16, "packed", "rows_packed_vec8"}, // 128 rows a workgroup
      // Every other broadcast of scale to X.shape[axis:] (ONNX unidirectional broadcasting): the general path.
      {{2, 3, 4}, {1, 3, 4}, 0, DType::kFloat32, "native", "general"},     // leading 1, axis 0
      {{3, 8}, {3, 1}, 0, DType::kFloat32, "native", "general"},           // broadcast over the last dim
      {{2, 3, 8}, {3, 1}, -2, DType::kFloat32, "native", "general"},
      {{2, 3, 4, 5}, {3, 1, 5}, 1, DType::kFloat32, "native", "general"},  // kept, broadcast, kept
      {{5, 2, 3, 7}, {2, 1, 1}, 1, DType::kFloat32, "native", "general"},  // 5 rows: the last pair has one
      {{2, 3, 1000}, {3, 1}, 1, DType::kFloat32, "native", "general"},     // rows of 3,000: 12 loads an invocation
      {{2, 3, 8}, {3, 1}, -2, DType::kFloat16, "native", native_f16 ? "general" : "general_packed"},
      {{3, 5, 3}, {5, 1}, -2, DType::kFloat16, "packed", "general_packed"},  // rows of 15, 3 rows: odd words
      {{4, 2, 3}, {2, 3}, -2, DType::kFloat16, "packed", "row_packed"},       // a trailing form stays fast
  };
  unsigned seed = 1;
  for (const RmsCase& c : cases) {
    const std::string what = shape_string(c.x) + " scale " + shape_string(c.scale) + " axis " + std::to_string(c.axis) +
                             " " + std::string(dtype_name(c.dtype)) + " " + c.storage + " seed " + std::to_string(seed);
    const HostTensor x = random_tensor(c.dtype, c.x, seed++);
    const HostTensor scale = random_tensor(c.dtype, c.scale, seed++);
    CallInfo info;
    // ROW_CACHE in turn: rows kept in registers (auto) or read twice (off).
    const std::string row_cache = seed % 4 == 1 ? "auto" : "off";
    Outputs out = rms_kernel().call({{"x", x}, {"scale", scale}}, {{"axis", c.axis}, {"epsilon", 1e-3}},
                                    {{"F16_STORAGE", std::string(c.storage)}, {"ROW_CACHE", row_cache},
                                     {"REDUCTION", std::string(seed % 8 < 4 ? "auto" : "workgroup")}},
                                    &info);
    EXPECT_EQ(info.variant, c.variant) << what;
    reference::RmsNormalizationAttributes a;
    a.axis = c.axis;
    a.epsilon = 1e-3;
    expect_matches(out.at("y").read(), reference::rms_normalization(x, scale, a).y, what);
  }
}

TEST(RmsNormalization, EpsilonIsAFloatAttributeInTheUniforms) {
  // x = (3, 4) and epsilon 0.5: y = (3, 4) / sqrt(12.5 + 0.5) = (0.83205029, 1.10940039) (hand-derived);
  // epsilon 1e-5: (3, 4) / sqrt(12.50001) = (0.84852781, 1.13137042). The same program serves both.
  const HostTensor x = f32({1, 2}, {3, 4});
  const HostTensor scale = f32({2}, {1, 1});
  const HostTensor a = rms_kernel()({{"x", x}, {"scale", scale}}, {{"epsilon", 0.5}}).at("y").read();
  const std::uint64_t renders = rms_kernel().device()->cache_stats().renders;
  const HostTensor b = rms_kernel()({{"x", x}, {"scale", scale}}).at("y").read();
  EXPECT_EQ(rms_kernel().device()->cache_stats().renders, renders);
  EXPECT_NEAR(a.element(0), 3 / std::sqrt(13.0), 1e-6);
  EXPECT_NEAR(a.element(1), 4 / std::sqrt(13.0), 1e-6);
  EXPECT_NEAR(b.element(0), 3 / std::sqrt(12.50001), 1e-6);
  EXPECT_NEAR(b.element(1), 4 / std::sqrt(12.50001), 1e-6);
}

TEST(RmsNormalization, StashTypesRoundStageOneAsTheFunctionBody) {
  // The ONNX function body: XU = Cast(X, stash_type), XU * XU, ReduceMean, + Cast(epsilon), Sqrt, XU / RMS, each
  // in the stash type, then Cast to T and * scale. Hand-derived for x = (3, 4), scale 1, epsilon 1e-5:
  // float16 (10): 9, 16 and the mean 12.5 are exact; epsilon is the subnormal 168 * 2^-24 and 12.5 + it rounds
  //   to 12.5 (its unit is 2^-7); sqrt(12.5) = 3.5355339 -> 1810 * 2^-9 = 3.53515625; 3 / that = 0.8486196
  //   -> 1738 * 2^-11 = 0.8486328125; 4 / that = 1.1314917 -> 1159 * 2^-10 = 1.1318359375.
  // bfloat16 (16): 12.5 exact (5 bits), + epsilon rounds to 12.5; sqrt -> 226 * 2^-6 = 3.53125;
  //   3 / 3.53125 = 0.8495575 -> 217 * 2^-8 = 0.84765625; 4 / 3.53125 = 1.1327434 -> 145 * 2^-7 = 1.1328125.
  // float32 (1): 3 / sqrt(12.50001) = 0.84852781, 1.13137042.
  const HostTensor x = f32({1, 2}, {3, 4});
  const HostTensor one = f32({1}, {1});
  auto y = [&](std::int64_t stash) {
    return rms_kernel()({{"x", x}, {"scale", one}}, {{"stash_type", stash}}).at("y").read();
  };
  const HostTensor h = y(10), b = y(16), f = y(1);
  EXPECT_EQ(h.element(0), 0.8486328125);
  EXPECT_EQ(h.element(1), 1.1318359375);
  EXPECT_EQ(b.element(0), 0.84765625);
  EXPECT_EQ(b.element(1), 1.1328125);
  EXPECT_NEAR(f.element(0), 0.84852781, 1e-6);
  EXPECT_NEAR(f.element(1), 1.13137042, 1e-6);
  // float16 overflows where float32 does not: 300^2 = 90000 > 65504 is Inf, so RMS is Inf and y = 0; in
  // float32 y = 300 / sqrt(45000 + 1e-5) = 1.41421356.
  const HostTensor big = f32({1, 2}, {300, 0});
  EXPECT_EQ(rms_kernel()({{"x", big}, {"scale", one}}, {{"stash_type", std::int64_t{10}}}).at("y").read().element(0), 0.0);
  EXPECT_NEAR(rms_kernel()({{"x", big}, {"scale", one}}).at("y").read().element(0), 1.41421356, 1e-6);
  // Random rows against the reference's emulation of each stash type, T float32 and float16 (both f16
  // storages): each side rounds each step once, but the kernel sums the squares, divides and takes the square
  // root in f32 before rounding, so a step may round the other way: 2 units of the stash type (2^-10 float16,
  // 2^-7 bfloat16) relative, plus the f16 rounding of y.
  unsigned seed = 700;
  for (std::int64_t stash : {std::int64_t{10}, std::int64_t{16}}) {
    for (DType dt : {DType::kFloat32, DType::kFloat16}) {
      for (const char* storage : {"native", "packed"}) {
        if (dt == DType::kFloat32 && std::string(storage) == "packed") continue;
        const HostTensor xs = random_tensor(dt, {5, 37}, seed++);
        const HostTensor sc = random_tensor(dt, {37}, seed++);
        CallInfo info;
        const HostTensor got = rms_kernel()
                                   .call({{"x", xs}, {"scale", sc}}, {{"stash_type", stash}},
                                         {{"F16_STORAGE", std::string(storage)}}, &info)
                                   .at("y")
                                   .read();
        EXPECT_EQ(info.variant.rfind("general", 0), 0u) << info.variant;
        reference::RmsNormalizationAttributes a;
        a.stash_type = stash;
        const auto want = reference::rms_normalization(xs, sc, a).y;
        const double unit = stash == 10 ? 0x1p-10 : 0x1p-7;
        for (std::int64_t i = 0; i < got.numel(); ++i)
          EXPECT_NEAR(got.element(i), want[static_cast<std::size_t>(i)], 1e-5 + (2 * unit + 0x1p-11) * std::abs(want[static_cast<std::size_t>(i)]))
              << "stash_type " << stash << " " << dtype_name(dt) << " " << storage << " element " << i;
      }
    }
  }
}

TEST(RmsNormalization, Float32OverflowOfTheSumOfSquaresGivesZero) {
  // stash_type 1 sums x^2 in float32: past 3.4028235e38 the sum is Inf, 1 / sqrt(Inf) = 0 and y = 0, as ONNX
  // Runtime 1.30's CPU provider returns (probed through tests/oracles/ort_run.mjs: x = (1e20, 2e20, -1e20, 3)
  // and (1e19, 1.7e19, -1.8e19, 3) both give y = 0, 0, 0, 0). 1e19^2 + 1.7e19^2 + 1.8e19^2 = 7.13e38 > 3.4e38,
  // though each square alone is finite. The double reference gives finite values: the card documents this.
  const HostTensor x = f32({1, 4}, {1e19f, 1.7e19f, -1.8e19f, 3});
  const HostTensor y = rms_kernel()({{"x", x}, {"scale", f32({4}, {1, 1, 1, 1})}}).at("y").read();
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(std::abs(y.element(i)), 0.0) << i;
}

TEST(RmsNormalization, BadInputCatalog) {
  const HostTensor x = f32({2, 3, 8});
  const HostTensor s8 = f32({8});
  expect_error([&] { rms_kernel()({{"x", x}, {"scale", s8}}, {{"axis", std::int64_t{3}}}); },
               {"axis must lie in [-rank(X), rank(X))", "attrs.axis", "3"});
  expect_error([&] { rms_kernel()({{"x", x}, {"scale", f32({4})}}); },
               {"scale must broadcast", "shapes.scale", "[4]"});
  expect_error([&] { rms_kernel()({{"x", x}, {"scale", f32({2, 8})}}, {{"axis", std::int64_t{-1}}}); },
               {"scale must broadcast", "[2, 8]"});
  // A scale of rank 9 that is not one of the fast forms: the general path reads 8 dims.
  expect_error([&] {
                 rms_kernel()({{"x", f32({1, 1, 1, 1, 1, 1, 1, 1, 3, 2})}, {"scale", f32({1, 1, 1, 1, 1, 1, 1, 3, 1})}},
                              {{"axis", std::int64_t{0}}});
               },
               {"may have at most 8 dims", "[1, 1, 1, 1, 1, 1, 1, 3, 1]", "ranks.scale = 9"});
  expect_error([&] { rms_kernel()({{"x", x}, {"scale", s8}}, {{"stash_type", std::int64_t{2}}}); },
               {"'stash_type' = 2 is not allowed", "allowed values 1, 10, 16)"});
  // 11 (double) is an ONNX stash_type the package refuses (WebGPU has no f64): by the same rule, not a later check.
  expect_error([&] { rms_kernel()({{"x", x}, {"scale", s8}}, {{"stash_type", std::int64_t{11}}}); },
               {"'stash_type' = 11 is not allowed", "allowed values 1, 10, 16)"});
  expect_error([&] { rms_kernel()({{"x", x}, {"scale", s8}}, {{"epsilon", std::string("small")}}); },
               {"'epsilon'", "is not a number"});
  expect_error([&] { rms_kernel()({{"x", x}, {"scale", f16({8})}}); },
               {"'x' (X) and 'scale' must have the same type T", "float32", "float16"});
  expect_error([&] { rms_kernel()({{"x", x}}); }, {"missing required input 'scale'"});
  // Rank 0: the rank rule, before the axis range (which no axis could meet).
  expect_error([&] { rms_kernel()({{"x", f32({})}, {"scale", f32({})}}); }, {"X must have rank >= 1", "ranks.x = 0"});
  // The allowed values stated once ("= 48, not one of 1, 2, 4, ..."), not the `==` chain restated (1,039
  // characters before).
  try {
    rms_kernel().call({{"x", x}, {"scale", s8}}, {}, {{"WORKGROUP_SIZE", std::int64_t{48}}}, nullptr);
    ADD_FAILURE() << "WORKGROUP_SIZE 48 was accepted";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("WORKGROUP_SIZE must be a power of two"), std::string::npos) << m;
    EXPECT_NE(m.find("tunables.WORKGROUP_SIZE = 48, not one of "), std::string::npos) << m;
    EXPECT_NE(m.find("128, 256, 512, 1024"), std::string::npos) << m;
    EXPECT_LT(m.size(), 500u) << m;
  }
  expect_error([&] { rms_kernel()({{"x", x}, {"scale", s8}}, {}, {"invStdVar"}); },
               {"unknown output 'invStdVar'", "declared outputs: y (Y)"});
}

// ---- SkipSimplifiedLayerNormalization -----------------------------------------------------------

struct SkipCase {
  Shape x, skip;
  bool bias;
  DType dtype;
  const char* storage;
  const char* variant;
};

TEST(SkipSimplifiedLayerNormalization, EveryVariantAndOutputMatchesTheReference) {
  const bool native_f16 = skip_kernel().device()->has_shader_f16();
  const SkipCase cases[] = {
      {{2, 3, 64}, {2, 3, 64}, false, DType::kFloat32, "native", "row_vec4"},
      {{2, 3, 64}, {1, 3, 64}, true, DType::kFloat32, "native", "row_vec4"},
      {{3, 4, 16}, {4, 16}, true, DType::kFloat32, "native", "row_vec4"},
      {{5, 7}, {5, 7}, true, DType::kFloat32, "native", "row"},
      {{2, 3, 7}, {3, 7}, false, DType::kFloat32, "native", "row"},
      {{1, 2, 8192}, {1, 2, 8192}, true, DType::kFloat32, "native", "row_vec4"},
      {{2, 3, 32}, {2, 3, 32}, true, DType::kFloat16, "native", native_f16 ? "row_vec4" : "row_packed_vec8"},
      {{2, 3, 32}, {2, 3, 32}, true, DType::kFloat16, "packed", "row_packed_vec8"},
      {{2, 3, 16}, {3, 16}, false, DType::kFloat16, "packed", "row_packed_vec8"},  // skip repeated
      {{2, 3, 6}, {3, 6}, false, DType::kFloat16, "packed", "row_packed"},
      // Odd hidden_size in packed storage: one workgroup per pair of rows (no word shared between workgroups).
      {{2, 3, 7}, {2, 3, 7}, true, DType::kFloat16, "packed", "row_packed_pairs"},
      {{3, 5}, {3, 5}, false, DType::kFloat16, "packed", "row_packed_pairs"},     // 3 rows: the last pair has one
      {{2, 3, 5}, {3, 5}, true, DType::kFloat16, "packed", "row_packed_pairs"},   // skip broadcast, odd S * H
      {{3, 1, 1}, {1, 1, 1}, true, DType::kFloat16, "packed", "row_packed_pairs"},
      {{1, 3, 4097}, {1, 3, 4097}, true, DType::kFloat16, "packed", "row_packed_pairs"},
  };
  const std::vector<OutputNames> asks = {{}, {"invStdVar"}, {"inputSkipBiasSum"}, {"inv_std_var", "input_skip_bias_sum"}};
  unsigned seed = 100;
  for (const SkipCase& c : cases) {
    const HostTensor x = random_tensor(c.dtype, c.x, seed++);
    const HostTensor skip = random_tensor(c.dtype, c.skip, seed++);
    const HostTensor gamma = random_tensor(c.dtype, {c.x.back()}, seed++);
    const HostTensor bias = random_tensor(c.dtype, {c.x.back()}, seed++);
    Inputs inputs{{"x", x}, {"skip", skip}, {"gamma", gamma}};
    if (c.bias) inputs.emplace("bias", bias);
    // No epsilon given: the contrib schema's default, ORT's kDefaultSkipLayerNormEpsilon = 1e-12f.
    const auto ref = reference::skip_simplified_layer_normalization(x, skip, gamma, c.bias ? &bias : nullptr,
                                                                    static_cast<double>(1e-12f));
    // Each case with nothing optional asked for and one other set, the sets taken in turn (both spellings).
    const std::size_t turn = static_cast<std::size_t>(&c - cases);
    for (const OutputNames& ask : {asks[0], asks[1 + turn % 3]}) {
      std::string what = shape_string(c.x) + " skip " + shape_string(c.skip) + (c.bias ? " bias " : " ") +
                         std::string(dtype_name(c.dtype)) + " " + c.storage + " outputs:";
      for (const auto& n : ask) what += " " + n;
      CallInfo info;
      // ROW_CACHE in turn: s kept in registers (auto) or computed twice (off), the optional outputs in both.
      const std::string row_cache = turn % 2 ? "off" : "auto";
      what += " ROW_CACHE " + row_cache;
      Outputs out = skip_kernel().call(inputs, {},
                                       {{"F16_STORAGE", std::string(c.storage)}, {"ROW_CACHE", row_cache},
                                        {"REDUCTION", std::string(turn % 3 == 0 ? "workgroup" : "auto")}},
                                       &info, ask);
      EXPECT_EQ(info.variant, c.variant) << what;
      // Exactly y and the outputs asked for (by either name) come back.
      EXPECT_EQ(out.size(), 1 + ask.size()) << what;
      expect_matches(out.at("y").read(), ref.y, what + " y");
      if (out.count("invStdVar")) {
        const HostTensor inv = out.at("invStdVar").read();
        EXPECT_EQ(inv.dtype, DType::kFloat32) << what;
        EXPECT_EQ(inv.shape, ref.inv_std_var_shape) << what;
        expect_matches(inv, ref.inv_std_var, what + " invStdVar");
      }
      if (out.count("inputSkipBiasSum")) {
        const HostTensor sum = out.at("inputSkipBiasSum").read();
        EXPECT_EQ(sum.dtype, c.dtype) << what;
        EXPECT_EQ(sum.shape, c.x) << what;
        expect_matches(sum, ref.input_skip_bias_sum, what + " inputSkipBiasSum");
      }
    }
  }
}

TEST(SkipSimplifiedLayerNormalization, AnOutputNotAskedForIsNotAllocated) {
  // Asked for nothing optional, the call allocates one output buffer; asked for both, three.
  auto device = device_with_budget(0);  // nothing pooled: buffers alive are exactly the ones held
  const Kernel k = get_kernel(kSkipId, {.version = 1}, device);
  const HostTensor x = f32({2, 3, 16});
  const HostTensor gamma = f32({16});
  const Inputs inputs{{"x", x}, {"skip", x}, {"gamma", gamma}};
  Outputs only_y = k(inputs, {});
  const std::size_t with_y = device->cache_stats().buffers_alive;
  Outputs all = k(inputs, {}, {"invStdVar", "inputSkipBiasSum"});
  EXPECT_EQ(device->cache_stats().buffers_alive, with_y + 3);
  EXPECT_EQ(only_y.size(), 1u);
  EXPECT_EQ(all.size(), 3u);
}

TEST(SkipSimplifiedLayerNormalization, BatchRecordsOptionalOutputs) {
  const HostTensor x = f32({2, 8});
  const HostTensor gamma = f32({8}, {1, 1, 1, 1, 1, 1, 1, 1});
  Batch batch(skip_kernel().device());
  Outputs first = batch.record(skip_kernel(), {{"x", x}, {"skip", x}, {"gamma", gamma}}, {}, {}, nullptr, {"inputSkipBiasSum"});
  // The sum 2x chained into a second call as its input, skip zero: the same normalization of 2x.
  const HostTensor zeros = f32({2, 8}, std::vector<float>(16, 0.0f));
  Outputs second = batch.record(skip_kernel(), {{"x", first.at("inputSkipBiasSum")}, {"skip", zeros}, {"gamma", gamma}},
                                {}, {}, nullptr, {"invStdVar"});
  batch.flush();
  const HostTensor y1 = first.at("y").read(), y2 = second.at("y").read();
  for (std::int64_t i = 0; i < y1.numel(); ++i) EXPECT_NEAR(y1.element(i), y2.element(i), 1e-6) << i;
  // x row 0 = 0.25 * ((i % 13) - 6), i = 0..7: -1.5, -1.25, ..., 0.25; s = 2x; the sum of squares of x is
  // 0.0625 * (36 + 25 + 16 + 9 + 4 + 1 + 0 + 1) = 5.75, so inv_std_var of s = 1 / sqrt(4 * 5.75 / 8 + epsilon),
  // epsilon the contrib default 1e-12 (ORT's kDefaultSkipLayerNormEpsilon): 0.58976782; with RMSNormalization's
  // 1e-5 it would be 1.0e-6 lower, outside the tolerance.
  EXPECT_NEAR(second.at("invStdVar").read().element(0), 1 / std::sqrt(2.875 + 1e-12), 5e-7);
}

TEST(SkipSimplifiedLayerNormalization, BadInputCatalog) {
  const HostTensor x = f32({2, 3, 16});
  const HostTensor g16 = f32({16});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", f32({2, 3, 8})}, {"gamma", g16}}); },
               {"last two dimensions of skip must be those of input", "[2, 3, 8]"});
  expect_error([&] { skip_kernel()({{"x", f32({4, 3, 16})}, {"skip", x}, {"gamma", g16}}); },
               {"dimension 0 equal to 1 or to input's batch size", "[2, 3, 16]"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", f32({8})}}); },
               {"gamma must have shape (hidden_size)", "[8]"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", g16}, {"bias", f32({8})}}); },
               {"bias must have shape (hidden_size)", "[8]"});
  expect_error([&] { skip_kernel()({{"x", f32({1, 2, 3, 16})}, {"skip", x}, {"gamma", g16}}); },
               {"'x' (input)", "rank 4", "expected rank 2 or 3"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", f32({1, 16})}}); },
               {"'gamma'", "rank 2", "expected rank 1"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}}); }, {"missing required input 'gamma'"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", f16({2, 3, 16})}, {"gamma", g16}}); },
               {"must have the same type T", "float32", "float16"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", g16}}, {{"epsilon", std::string("x")}}); },
               {"'epsilon'", "is not a number"});
  // NaN fails both epsilon rules; the one named is finiteness (checked first), not the sign.
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", g16}}, {{"epsilon", std::nan("")}}); },
               {"epsilon must be finite in float32", "nan"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", g16}}, {{"epsilon", -1e-5}}); },
               {"epsilon must be at least 0", "-1e-05"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", g16}}, {}, {"mean"}); },
               {"unknown output 'mean'", "invStdVar (inv_std_var) [optional]", "inputSkipBiasSum (input_skip_bias_sum) [optional]"});
  // One output asked for twice, by both its names or by one (before: accepted, the output produced once).
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", g16}}, {}, {"invStdVar", "inv_std_var"}); },
               {"output 'inv_std_var' asked for twice (output invStdVar (inv_std_var), asked for already as 'invStdVar')",
                "name each output at most once"});
  expect_error([&] { skip_kernel()({{"x", x}, {"skip", x}, {"gamma", g16}}, {}, {"inputSkipBiasSum", "invStdVar", "invStdVar"}); },
               {"output 'invStdVar' asked for twice", "already as 'invStdVar'"});
}


// ---- against ONNX Runtime (the differential test of issue 16) -----------------------------------

#ifdef WGK_NODE
// Random calls of both ops, drawn by their plug-ins' generators (src/reference/ops: the cases of `wgk diff`, every
// scale broadcast, odd hidden sizes, now and then long rows, and RMSNormalization's one case in five of many short
// rows: at least 256 rows of at most 256 elements, the manifest's shortRows), each with random tunables (both f16
// storages, ROW_CACHE, REDUCTION, workgroups of 32-256) and, for Skip, a random set of optional outputs; on the GPU
// and on ORT 1.30's CPU provider, compared output by output within the plug-in's tolerance (both compute in
// float32 and round once: f32 within 2e-5 relative, two float32 reductions in different orders; f16 within one
// f16 unit, 2^-10 relative: each side's rounding may go the other way). WGK_NORM_ORT_COUNT cases per op (default
// 100), WGK_NORM_ORT_SEED fixes the cases (default: from the clock, printed).
TEST(NormalizationVsORT, RandomCallsOfBothOpsAgree) {
  const char* count_env = std::getenv("WGK_NORM_ORT_COUNT");
  const char* seed_env = std::getenv("WGK_NORM_ORT_SEED");
  const int count = count_env ? std::atoi(count_env) : 100;
  const unsigned seed = seed_env ? static_cast<unsigned>(std::strtoul(seed_env, nullptr, 10))
                                 : static_cast<unsigned>(std::random_device{}());
  std::printf("WGK_NORM_ORT_SEED=%u WGK_NORM_ORT_COUNT=%d\n", seed, count);
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  const reference::OpPlugin* rms = reference::find_op("ai.onnx", "RMSNormalization");
  const reference::OpPlugin* skip = reference::find_op("com.microsoft", "SkipSimplifiedLayerNormalization");
  ASSERT_TRUE(rms && rms->generate && skip && skip->generate);
  struct Run {
    OrtCase c;
    Attributes tunables;
    reference::Tolerance tolerance;
    std::string what;  // the generator's name of the case: what it covers
  };
  std::vector<Run> runs;
  int short_rows = 0;  // RMSNormalization calls of at least 256 rows of at most 256 elements
  int rows_under_32 = 0, rows_of_1_to_8 = 0;  // RMSNormalization calls of a normalized size < 32, of <= 8
  for (int k = 0; k < count; ++k) {
    Attributes tunables{{"F16_STORAGE", std::string(pick(0, 1) ? "packed" : "native")},
                        {"ROW_CACHE", std::string(pick(0, 1) ? "off" : "auto")},
                        {"REDUCTION", std::string(pick(0, 1) ? "workgroup" : "auto")},
                        {"WORKGROUP_SIZE", std::int64_t{1} << pick(5, 8)}};
    for (const reference::OpPlugin* op : {rms, skip}) {
      reference::RandomCase g = op->generate(rng, k);
      // Named for the oracle's files: the generator's names hold brackets and spaces.
      OrtCase c{(op == rms ? "rms" : "skip") + std::to_string(k), op->op, op->domain, g.dtype, {}, {"y"}};
      for (auto& [name, t] : g.inputs) c.inputs.emplace(name, std::move(t));
      c.epsilon = reference::float_attr(g.attrs, "epsilon", 1e-5);
      if (op == rms) {
        c.axis = reference::int_attr(g.attrs, "axis", -1);
        const Shape& x = c.inputs.at("x").shape;
        const std::int64_t rank = static_cast<std::int64_t>(x.size()), axis = c.axis < 0 ? c.axis + rank : c.axis;
        const std::int64_t row = numel(Shape(x.begin() + axis, x.end()));
        short_rows += row <= 256 && numel(x) >= 256 * row ? 1 : 0;
        rows_under_32 += row < 32 ? 1 : 0;
        rows_of_1_to_8 += row <= 8 ? 1 : 0;
      } else {
        if (pick(0, 1)) c.outputs.push_back("invStdVar");
        if (pick(0, 1)) c.outputs.push_back("inputSkipBiasSum");
      }
      runs.push_back({std::move(c), tunables, g.tolerance, g.name});
    }
  }
  // One RMS case in five has many short rows: none in 100 has probability 0.8^100 = 2e-10 (before: none ever).
  if (count >= 100) {
    EXPECT_GT(short_rows, 0) << "no RMSNormalization call of at least 256 rows of at most 256 elements";
  }
  std::vector<OrtCase> cases;
  for (const Run& r : runs) cases.push_back(r.c);
  const fs::path dir = fs::temp_directory_path() / ("wgk_norm_gpu_ort_" + std::to_string(::getpid()));
  const auto ort = run_ort(cases, dir);
  fs::remove_all(dir);
  int failed_cases = 0;
  std::map<std::string, int> variants;  // op.variant -> calls
  for (const Run& r : runs) {
    const OrtCase& c = r.c;
    Inputs inputs;
    for (const auto& [name, t] : c.inputs) inputs.emplace(name, t);
    Attributes attrs{{"epsilon", c.epsilon}};
    if (c.op == "RMSNormalization") attrs["axis"] = c.axis;
    OutputNames ask(c.outputs.begin() + 1, c.outputs.end());
    const Kernel& k = c.op == "RMSNormalization" ? rms_kernel() : skip_kernel();
    CallInfo info;
    Outputs out = k.call(inputs, attrs, r.tunables, &info, ask);
    ++variants[c.op + "." + info.variant];
    EXPECT_EQ(out.size(), c.outputs.size()) << c.name;
    bool ok = true;
    for (const auto& name : c.outputs) {
      const HostTensor got = out.at(name).read();
      const HostTensor& want = ort.at(c.name).at(name);
      EXPECT_EQ(got.shape, want.shape) << c.name << " " << name;
      EXPECT_EQ(got.dtype, want.dtype) << c.name << " " << name;
      for (std::int64_t i = 0; i < got.numel() && ok; ++i) {
        const double g = got.element(i), w = want.element(i);
        if (!(std::abs(g - w) <= r.tolerance.abs + r.tolerance.rel * std::abs(w))) {
          ADD_FAILURE() << r.what << " " << name << " element " << i << ": GPU " << g << ", ORT " << w << " (seed "
                        << seed << ")";
          ok = false;
        }
      }
    }
    failed_cases += ok ? 0 : 1;
  }
  std::printf("%zu calls compared with ORT, %d differed; RMSNormalization rows: %d calls of many short rows, %d of "
              "rows under 32 elements, %d of 1-8; variants:",
              runs.size(), failed_cases, short_rows, rows_under_32, rows_of_1_to_8);
  for (const auto& [variant, calls] : variants) std::printf(" %s=%d", variant.c_str(), calls);
  std::printf("\n");
}
#endif

}  // namespace
}  // namespace wgk::testing
