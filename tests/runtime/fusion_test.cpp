// Fused calls in a Batch (docs/kernel-conventions.md "Fused calls"): consecutive decode calls of one plan
// whose pass declares `fusion` share one dispatch. The fused outputs equal the same calls made one by one
// with Kernel::call, bit for bit, and the CPU reference (double precision); Batch::dispatches() counts
// what a flush submits; what must break fusion does (another plan, another shared buffer, other
// attributes, a call reading another's output); a refused call in the middle leaves the others right.
//
// The expected dispatch counts are derived from the packages' manifest (every RoPE pass: fusion maxCalls 8,
// per call x and y, shared cos_cache, sin_cache, position_ids) and the device's
// maxStorageBuffersPerShaderStage: K = min(8, (limit - 3) / 2) calls a dispatch (3 on lavapipe and on the
// H200, whose limit is 10), so n calls make ceil(n / K) dispatches.
#include <gtest/gtest.h>

#include <algorithm>

#include "call_helpers.h"
#include "plan/device_caps.h"
#include "reference/compare.h"
#include "reference/random.h"
#include "reference/rms_normalization.h"
#include "reference/rotary_embedding.h"
#include "wgk/introspect.h"

namespace wgk::testing {
namespace {

// f32 rotation of |x| < 1 by |cos|, |sin| < 1 (kernel_test.cpp): 1e-6 absolute per step.
constexpr reference::Tolerance kF32{1e-6, 0};

std::size_t calls_per_dispatch(const Device& device) {
  const std::int64_t limit = introspect::caps(device).limit("maxStorageBuffersPerShaderStage").value_or(8);
  return static_cast<std::size_t>(std::clamp<std::int64_t>((limit - 3) / 2, 1, 8));
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Random values in [-1, 1) of `dtype` (float32 or float16), from `seed`.
HostTensor random_of(DType dtype, const Shape& shape, unsigned seed) {
  if (dtype == DType::kFloat32) return random_f32(shape, seed);
  std::mt19937_64 rng(seed);
  return reference::random_float(dtype, shape, rng);
}

// A decode step of one layer (bench.json's decode_r4_b1_h32x128 at 8 heads): x [1, 8, 1, head] (batch, heads,
// one token, head size; 128 unless given), caches of 256 rows of `pairs` (rotary_dim / 2; 64 unless given), one
// position; the caches and the position live on the device, as a model's do.
struct Decode {
  explicit Decode(const Kernel& kernel, std::int64_t position = 37, DType dtype = DType::kFloat32,
                  std::int64_t head = 128, std::int64_t pairs = 64)
      : dtype(dtype),
        head(head),
        cos_host(random_of(dtype, {256, pairs}, 21)),
        sin_host(random_of(dtype, {256, pairs}, 22)),
        pos_host(i64({1, 1}, {position})),
        cos(DeviceTensor::upload(cos_host, kernel.device())),
        sin(DeviceTensor::upload(sin_host, kernel.device())),
        // Device-resident positions are uint32 (the contract's storage: narrowing needs host data).
        pos(DeviceTensor::upload(HostTensor::from(DType::kUInt32, {1, 1}, std::vector<std::uint32_t>{
                                                      static_cast<std::uint32_t>(position)}),
                                 kernel.device())) {}
  HostTensor x(unsigned seed) const { return random_of(dtype, {1, 8, 1, head}, seed); }
  Inputs onnx(const TensorArg& x) const { return {{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}; }
  std::vector<double> onnx_ref(const HostTensor& x, const reference::RotaryAttributes& attributes = {}) const {
    return reference::rotary_embedding_onnx(x, cos_host, sin_host, &pos_host, attributes);
  }
  DType dtype;
  std::int64_t head;
  HostTensor cos_host, sin_host, pos_host;
  DeviceTensor cos, sin, pos;
};

// Records `inputs` in a batch (each one call; each must choose `variant`), checks the dispatch count,
// flushes, and expects every output to equal Kernel::call's of the same inputs byte for byte. Returns the
// batch's outputs, read back.
std::vector<HostTensor> expect_batch_equals_calls(const Kernel& kernel, const std::vector<Inputs>& inputs,
                                                  const Attributes& attrs, std::size_t dispatches, const std::string& what,
                                                  const std::string& variant = "quad", const Attributes& tunables = {}) {
  Batch batch(kernel.device());
  std::vector<DeviceTensor> batched;
  for (const Inputs& in : inputs) {
    CallInfo info;
    batched.push_back(batch.record(kernel, in, attrs, tunables, &info).at("y"));
    EXPECT_EQ(info.variant, variant) << what << ": the case must reach this variant";
  }
  EXPECT_EQ(batch.size(), inputs.size()) << what;
  EXPECT_EQ(batch.dispatches(), dispatches) << what;
  batch.flush();
  EXPECT_EQ(batch.dispatches(), 0u) << what;
  std::vector<HostTensor> ys;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ys.push_back(batched[i].read());
    EXPECT_EQ(ys.back().data, kernel.call(inputs[i], attrs, tunables, nullptr).at("y").read().data)
        << what << ": call " << i << " differs from the same call made alone";
  }
  return ys;
}

TEST(FusedCalls, OneTwoAndThreeCallsEqualTheCallsMadeOneByOne) {
  // Both packages' quad variant (non-interleaved decode) and vec4 variant (interleaved=1: vec4Preferred) fuse.
  for (const Kernel* kernel : {&onnx_kernel(), &ms_kernel()}) {
    const Decode d(*kernel);
    const std::size_t k = calls_per_dispatch(*kernel->device());
    for (std::int64_t interleaved : {0, 1}) {
      for (std::size_t n = 1; n <= 3; ++n) {
        std::vector<Inputs> inputs;
        std::vector<HostTensor> xs;
        xs.reserve(n);  // the inputs point at them
        for (std::size_t i = 0; i < n; ++i) {
          xs.push_back(d.x(static_cast<unsigned>(100 + i)));
          inputs.push_back(d.onnx(xs.back()));  // a [1, 1] position table: row 37 in both packages
        }
        const Attributes attrs{{"interleaved", interleaved}};
        const std::string what = kernel->id() + " interleaved=" + std::to_string(interleaved) + ", " +
                                 std::to_string(n) + " calls";
        const std::vector<HostTensor> ys =
            expect_batch_equals_calls(*kernel, inputs, attrs, ceil_div(n, k), what, interleaved != 0 ? "vec4" : "quad");
        if (kernel != &onnx_kernel()) continue;
        // And the reference of each call, in double precision.
        for (std::size_t i = 0; i < n; ++i) {
          const auto cmp = reference::compare(ys[i], d.onnx_ref(xs[i], {.interleaved = interleaved != 0}), kF32);
          EXPECT_TRUE(cmp.ok()) << what << ", call " << i << ": " << cmp.summary();
        }
      }
    }
  }
}

TEST(FusedCalls, EveryRopeVariantFusesItsDecodeCalls) {
  // The decode calls that reach RoPE's other variants (ai.onnx; com.microsoft renders the same templates):
  // interleaved or partial rotation, head sizes that are not a multiple of 8, and float16 stored packed in u32
  // words (F16_STORAGE packed, what an adapter without shader-f16 such as the H200 under Vulkan runs). Each
  // shares cos, sin and position_ids, so K = 3 on lavapipe as for quad.
  struct Case {
    const char* variant;
    DType dtype;
    std::int64_t head, pairs;  // x [1, 8, 1, head], caches [256, pairs]: rotary_dim = 2 * pairs
    std::int64_t interleaved;
  };
  const Case cases[] = {
      {"vec4", DType::kFloat32, 128, 32, 0},         // partial rotation (64 of 128): vec4Preferred
      {"output_vec4", DType::kFloat32, 128, 10, 0},  // partial, rotary_dim / 2 = 10: not a multiple of 4
      {"pair", DType::kFloat32, 10, 5, 0},           // head 10: not a multiple of 4
      {"pair", DType::kFloat32, 128, 10, 1},         // interleaved, rotary_dim / 2 = 10
      {"packed_quad", DType::kFloat16, 128, 64, 0},
      {"packed_vec4", DType::kFloat16, 128, 64, 1},  // interleaved: packedVec4Preferred
      {"packed", DType::kFloat16, 12, 6, 0},         // head 12: not a multiple of 8
  };
  const Kernel& onnx = onnx_kernel();
  const std::size_t k = calls_per_dispatch(*onnx.device());
  for (const Case& c : cases) {
    const Decode d(onnx, 200, c.dtype, c.head, c.pairs);
    const Attributes attrs{{"interleaved", c.interleaved}, {"rotary_embedding_dim", 2 * c.pairs}};
    const Attributes tunables =
        c.dtype == DType::kFloat16 ? Attributes{{"F16_STORAGE", std::string("packed")}} : Attributes{};
    // f32: kF32. f16: one rounding to f16 of an f32 rotation, half an ulp of |y| < 2 (2^-11), plus f32's error.
    const reference::Tolerance tolerance = c.dtype == DType::kFloat16 ? reference::Tolerance{1e-3, 0} : kF32;
    for (std::size_t n : {1u, 2u, 5u}) {
      std::vector<HostTensor> xs;
      for (std::size_t i = 0; i < n; ++i) xs.push_back(d.x(static_cast<unsigned>(500 + i)));
      std::vector<Inputs> inputs;
      for (const HostTensor& x : xs) inputs.push_back(d.onnx(x));
      const std::string what = std::string(c.variant) + " head " + std::to_string(c.head) + " rotary_dim " +
                               std::to_string(2 * c.pairs) + " interleaved " + std::to_string(c.interleaved) + ", " +
                               std::to_string(n) + " calls";
      const std::vector<HostTensor> ys =
          expect_batch_equals_calls(onnx, inputs, attrs, ceil_div(n, k), what, c.variant, tunables);
      for (std::size_t i = 0; i < n; ++i) {
        const auto cmp = reference::compare(
            ys[i], d.onnx_ref(xs[i], {.interleaved = c.interleaved != 0, .rotary_embedding_dim = 2 * c.pairs}), tolerance);
        EXPECT_TRUE(cmp.ok()) << what << ", call " << i << ": " << cmp.summary();
      }
    }
  }
}

// RMSNormalization's K for fusion on this device: its row kernels bind x and y per call and scale once
// (fusion maxCalls 8): min(8, (maxStorageBuffersPerShaderStage - 1) / 2), 4 on lavapipe.
std::size_t rms_calls_per_dispatch(const Kernel& rms) {
  const std::int64_t limit = introspect::caps(*rms.device()).limit("maxStorageBuffersPerShaderStage").value_or(8);
  return static_cast<std::size_t>(std::clamp<std::int64_t>((limit - 1) / 2, 1, 8));
}

// Records one RMSNormalization call per x in one Batch (attributes `op`) and checks: a variant in `variants`
// ran, the batch made ceil(n / K) dispatches, and each output is byte-equal to the same call made with
// Kernel::call and within `tolerance` of the CPU reference in double precision.
void expect_fused_rms_equal_one_by_one(const Kernel& rms, const std::vector<HostTensor>& xs, const HostTensor& scale_host,
                                       const DeviceTensor& scale, const Attributes& tunables,
                                       const std::vector<std::string>& variants, double tolerance,
                                       const std::string& label, const reference::RmsNormalizationAttributes& op = {}) {
  const Attributes attrs{{"axis", op.axis}, {"epsilon", op.epsilon}, {"stash_type", op.stash_type}};
  Batch batch(rms.device());
  std::vector<DeviceTensor> ys;
  std::string variant;
  for (const HostTensor& x : xs) {
    CallInfo info;
    ys.push_back(batch.record(rms, {{"x", x}, {"scale", scale}}, attrs, tunables, &info).at("y"));
    variant = info.variant;
  }
  const std::string what = variant + ", " + label + ", " + std::to_string(xs.size()) + " calls";
  EXPECT_NE(std::find(variants.begin(), variants.end(), variant), variants.end()) << what;
  EXPECT_EQ(batch.dispatches(), ceil_div(xs.size(), rms_calls_per_dispatch(rms))) << what;
  batch.flush();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const HostTensor y = ys[i].read();
    EXPECT_EQ(y.data, rms.call({{"x", xs[i]}, {"scale", scale}}, attrs, tunables, nullptr).at("y").read().data)
        << what << ", call " << i;
    const auto cmp = reference::compare(y, reference::rms_normalization(xs[i], scale_host, op).y,
                                        reference::Tolerance{tolerance, tolerance});
    EXPECT_TRUE(cmp.ok()) << what << ", call " << i << ": " << cmp.summary();
  }
}

TEST(FusedCalls, RmsNormalizationDecodeCallsEqualTheCallsMadeOneByOne) {
  // ai.onnx.RMSNormalization's row kernels: decode_1x4096_f32 of its bench.json, with the subgroup and the
  // workgroup reduction (barriers and subgroupAdd inside each call's function, run for workgroup_id.z).
  const Kernel rms = get_kernel("webgpu-kernels/ai.onnx.RMSNormalization", {.version = 1});
  const HostTensor scale_host = random_f32({4096}, 61);
  const DeviceTensor scale = DeviceTensor::upload(scale_host, rms.device());
  for (const Attributes& tunables : {Attributes{}, Attributes{{"REDUCTION", std::string("workgroup")}}}) {
    for (std::size_t n : {1u, 2u, 4u, 5u, 9u}) {
      std::vector<HostTensor> xs;
      for (std::size_t i = 0; i < n; ++i) xs.push_back(random_f32({1, 4096}, static_cast<unsigned>(300 + i)));
      // f32 sums of 4096 squares and one rsqrt: a few ulps of |y| < 8.
      expect_fused_rms_equal_one_by_one(rms, xs, scale_host, scale, tunables, {"row_vec4", "rows_vec4", "row"}, 1e-5,
                                        tunables.empty() ? "subgroup reduction" : "workgroup reduction");
    }
  }
}

TEST(FusedCalls, PackedF16RmsNormalizationCallsEqualTheCallsMadeOneByOne) {
  // The packed-f16 row kernels (F16_STORAGE packed, what the H200 under Vulkan runs): rows of 4096 (vec4<u32>
  // loads, row_packed_vec8) and odd rows of 1023 (u32 words shared by two rows, row_packed: loadX per call).
  const Kernel rms = get_kernel("webgpu-kernels/ai.onnx.RMSNormalization", {.version = 1});
  const Attributes tunables{{"F16_STORAGE", std::string("packed")}};
  std::mt19937_64 rng(71);
  for (const Shape& shape : {Shape{1, 4096}, Shape{2, 1023}}) {
    const HostTensor scale_host = reference::random_float(DType::kFloat16, {shape[1]}, rng);
    const DeviceTensor scale = DeviceTensor::upload(scale_host, rms.device());
    for (std::size_t n : {1u, 2u, 5u}) {
      std::vector<HostTensor> xs;
      for (std::size_t i = 0; i < n; ++i) xs.push_back(reference::random_float(DType::kFloat16, shape, rng));
      // One rounding to f16 (2^-11 relative) of an f32 result.
      expect_fused_rms_equal_one_by_one(rms, xs, scale_host, scale, tunables,
                                        {"row_packed_vec8", "rows_packed_vec8", "row_packed"}, 1e-3,
                                        std::to_string(shape[1]) + "-element rows");
    }
  }
}

TEST(FusedCalls, RmsNormalizationGeneralCallsEqualTheCallsMadeOneByOne) {
  // The general kernels (general; packed f16: general_packed): x [1, 8, 128] normalized from axis 1 (rows of
  // 1,024) with a scale of [8, 1], one value per head broadcast over its 128 (not a scale the row kernels
  // take: simpleScale is false). scale is shared, so K = 4 on lavapipe as for the row kernels.
  const Kernel rms = get_kernel("webgpu-kernels/ai.onnx.RMSNormalization", {.version = 1});
  for (DType dtype : {DType::kFloat32, DType::kFloat16}) {
    const bool packed = dtype == DType::kFloat16;
    const HostTensor scale_host = random_of(dtype, {8, 1}, 91);
    const DeviceTensor scale = DeviceTensor::upload(scale_host, rms.device());
    for (std::size_t n : {1u, 2u, 5u}) {
      std::vector<HostTensor> xs;
      for (std::size_t i = 0; i < n; ++i) xs.push_back(random_of(dtype, {1, 8, 128}, static_cast<unsigned>(400 + i)));
      // f32: sums of 1,024 squares and one rsqrt, a few ulps of |y| < 8; f16: one rounding (2^-11 relative).
      expect_fused_rms_equal_one_by_one(
          rms, xs, scale_host, scale, packed ? Attributes{{"F16_STORAGE", std::string("packed")}} : Attributes{},
          {packed ? "general_packed" : "general"}, packed ? 1e-3 : 1e-5, "axis 1, scale [8, 1]", {.axis = 1});
    }
  }
}

TEST(FusedCalls, SixtyFourCallsMakeCeil64OverKDispatches) {
  const Kernel& kernel = onnx_kernel();
  const Decode d(kernel);
  const std::size_t k = calls_per_dispatch(*kernel.device());
  ASSERT_GE(k, 2u) << "this device's maxStorageBuffersPerShaderStage leaves no room to fuse";
  std::vector<Inputs> inputs;
  std::vector<HostTensor> xs;
  for (unsigned i = 0; i < 64; ++i) {
    xs.push_back(d.x(200 + i));
    inputs.push_back(d.onnx(DeviceTensor::upload(xs.back(), kernel.device())));
  }
  expect_batch_equals_calls(kernel, inputs, {}, ceil_div(64, k), "64 calls");
  Batch batch(kernel.device());
  std::vector<DeviceTensor> ys;
  for (const Inputs& in : inputs) ys.push_back(batch.record(kernel, in).at("y"));
  batch.flush();
  for (std::size_t i = 0; i < 64; i += 7) {
    const auto cmp = reference::compare(ys[i].read(), d.onnx_ref(xs[i]), kF32);
    EXPECT_TRUE(cmp.ok()) << "call " << i << ": " << cmp.summary();
  }
}

TEST(FusedCalls, WhatBreaksFusionBreaksIt) {
  const Kernel& onnx = onnx_kernel();
  const Kernel& ms = ms_kernel();
  const Decode d(onnx);
  const std::size_t k = calls_per_dispatch(*onnx.device());
  ASSERT_GE(k, 2u);
  const HostTensor x0 = d.x(1), x1 = d.x(2), x2 = d.x(3);

  // Another plan in between: onnx, ms, onnx are three dispatches (each its own plan's).
  {
    const DeviceTensor offset =
        DeviceTensor::upload(HostTensor::from(DType::kUInt32, {1}, std::vector<std::uint32_t>{37}), onnx.device());
    Batch batch(onnx.device());
    const DeviceTensor a = batch.record(onnx, d.onnx(x0)).at("y");
    const DeviceTensor b = batch.record(ms, {{"x", x1}, {"cos", d.cos}, {"sin", d.sin}, {"positionIds", offset}}).at("y");
    const DeviceTensor c = batch.record(onnx, d.onnx(x2)).at("y");
    EXPECT_EQ(batch.dispatches(), 3u);
    batch.flush();
    EXPECT_EQ(a.read().data, onnx(d.onnx(x0)).at("y").read().data);
    EXPECT_EQ(b.read().data, ms({{"x", x1}, {"cos", d.cos}, {"sin", d.sin}, {"positionIds", offset}}).at("y").read().data);
    EXPECT_EQ(c.read().data, onnx(d.onnx(x2)).at("y").read().data);
  }
  // Another shared buffer: the same cache values in another device buffer; host caches (a new upload each call).
  {
    const DeviceTensor cos2 = DeviceTensor::upload(d.cos_host, onnx.device());
    Inputs other = d.onnx(x1);
    other.insert_or_assign("cos", TensorArg(cos2));
    expect_batch_equals_calls(onnx, {d.onnx(x0), other}, {}, 2, "another cos buffer");
    Inputs host = d.onnx(x1);
    host.insert_or_assign("sin", TensorArg(d.sin_host));
    Inputs host2 = d.onnx(x2);
    host2.insert_or_assign("sin", TensorArg(d.sin_host));
    expect_batch_equals_calls(onnx, {host, host2}, {}, 2, "host sin caches");
  }
  // Other attributes: another plan, though the same variant (num_heads is not consulted at rank 4).
  {
    const Attributes heads{{"num_heads", std::int64_t{8}}};
    Batch batch(onnx.device());
    CallInfo info;
    const DeviceTensor a = batch.record(onnx, d.onnx(x0)).at("y");
    const DeviceTensor b = batch.record(onnx, d.onnx(x1), heads, {}, &info).at("y");
    EXPECT_EQ(info.variant, "quad");
    const DeviceTensor c = batch.record(onnx, d.onnx(x2), heads).at("y");  // joins b's dispatch
    EXPECT_EQ(batch.dispatches(), 2u);
    batch.flush();
    EXPECT_EQ(a.read().data, onnx(d.onnx(x0)).at("y").read().data);
    EXPECT_EQ(b.read().data, onnx(d.onnx(x1), heads).at("y").read().data);
    EXPECT_EQ(c.read().data, onnx(d.onnx(x2), heads).at("y").read().data);
  }
  // A call reading the previous call's output: in one dispatch it would read before the write.
  {
    Batch batch(onnx.device());
    const DeviceTensor y1 = batch.record(onnx, d.onnx(x0)).at("y");
    const DeviceTensor y2 = batch.record(onnx, d.onnx(y1)).at("y");
    const DeviceTensor y3 = batch.record(onnx, d.onnx(x1)).at("y");  // joins y2's dispatch
    EXPECT_EQ(batch.dispatches(), 2u);
    batch.flush();
    const DeviceTensor s1 = onnx(d.onnx(x0)).at("y");
    EXPECT_EQ(y1.read().data, s1.read().data);
    EXPECT_EQ(y2.read().data, onnx(d.onnx(s1)).at("y").read().data);
    EXPECT_EQ(y3.read().data, onnx(d.onnx(x1)).at("y").read().data);
    const auto cmp = reference::compare(y2.read(), d.onnx_ref(y1.read()), kF32);
    EXPECT_TRUE(cmp.ok()) << cmp.summary();
  }
}

TEST(FusedCalls, ARefusedCallInTheMiddleLeavesTheOthersRight) {
  const Kernel& onnx = onnx_kernel();
  const Decode d(onnx);
  const std::size_t k = calls_per_dispatch(*onnx.device());
  ASSERT_GE(k, 3u) << "the counts below assume three calls a dispatch";
  const HostTensor xs[] = {d.x(31), d.x(32), d.x(33), d.x(34)};
  Batch batch(onnx.device());
  std::vector<DeviceTensor> ys;
  ys.push_back(batch.record(onnx, d.onnx(xs[0])).at("y"));
  ys.push_back(batch.record(onnx, d.onnx(xs[1])).at("y"));
  // Position 256 is past the caches' 256 rows: refused at the boundary, not recorded.
  Inputs bad = d.onnx(xs[2]);
  bad.insert_or_assign("positionIds", TensorArg(i64({1, 1}, {256})));
  expect_error([&] { batch.record(onnx, bad); }, {"positionIds[0] = 256", "[0, 255]"});
  // A bad shape too: refused before anything is allocated.
  Inputs bad_shape = d.onnx(random_f32({1, 8, 1, 120}, 9));
  expect_error([&] { batch.record(onnx, bad_shape); }, {"x"});
  EXPECT_EQ(batch.size(), 2u);
  ys.push_back(batch.record(onnx, d.onnx(xs[2])).at("y"));  // the third call of the first dispatch
  ys.push_back(batch.record(onnx, d.onnx(xs[3])).at("y"));  // the first of the next
  EXPECT_EQ(batch.dispatches(), 2u);
  batch.flush();
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ys[i].read().data, onnx(d.onnx(xs[i])).at("y").read().data) << "call " << i;
    const auto cmp = reference::compare(ys[i].read(), d.onnx_ref(xs[i]), kF32);
    EXPECT_TRUE(cmp.ok()) << "call " << i << ": " << cmp.summary();
  }
}

TEST(FusedCalls, ADroppedBatchWithAnOpenDispatchLeavesItsOutputsUnreadable) {
  const Kernel& onnx = onnx_kernel();
  const Decode d(onnx);
  DeviceTensor y;
  {
    Batch batch(onnx.device());
    batch.record(onnx, d.onnx(d.x(41)));
    y = batch.record(onnx, d.onnx(d.x(42))).at("y");
  }
  expect_error([&] { y.read(); }, {"destroyed before flush()", "never computed"});
  // The device and the plan's fused program still serve a new batch.
  const HostTensor x = d.x(43);
  expect_batch_equals_calls(onnx, {d.onnx(x), d.onnx(x)}, {}, 1, "after a dropped batch");
}

}  // namespace
}  // namespace wgk::testing
