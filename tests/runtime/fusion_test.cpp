// Fused calls in a Batch (docs/kernel-conventions.md "Fused calls"): consecutive decode calls of one plan
// whose pass declares `fusion` share one dispatch. The fused outputs equal the same calls made one by one
// with Kernel::call, bit for bit, and the CPU reference (double precision); Batch::dispatches() counts
// what a flush submits; what must break fusion does (another plan, another shared buffer, other
// attributes, a call reading another's output); a refused call in the middle leaves the others right.
//
// The expected dispatch counts are derived from the packages' manifests (every pass with fusion: maxCalls 8, a
// params uniform once; RoPE: per call x and y, shared cos_cache, sin_cache, position_ids) and the device's
// limits, which WebGPU counts per kind of buffer: maxStorageBuffersPerShaderStage and
// maxUniformBuffersPerShaderStage (10 and 12 on lavapipe and on the H200). A call's read-only input of 16-byte
// elements (the vec4 kernels) and at most maxUniformBufferBindingSize bytes (65,536) may be bound as a uniform
// instead, when that fuses more calls (fused_calls below). So decode RoPE's vec4 kernels serve K = min(8, 7 / 1,
// 11 / 1) = 7 calls a dispatch, its u32-word and scalar kernels K = min(8, 7 / 2) = 3, and n calls make
// ceil(n / K) dispatches.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "call_helpers.h"
#include "plan/device_caps.h"
#include "reference/compare.h"
#include "reference/random.h"
#include "reference/rms_normalization.h"
#include "reference/rotary_embedding.h"
#include "reference/rounding.h"
#include "reference/skip_simplified_layer_normalization.h"
#include "wgk/introspect.h"

namespace wgk::testing {
namespace {

// f32 rotation of |x| < 1 by |cos|, |sin| < 1 (kernel_test.cpp): 1e-6 absolute per step.
constexpr reference::Tolerance kF32{1e-6, 0};

// K, the calls one dispatch serves, of a pass with fusion maxCalls 8 that binds `shared` storage buffers and
// one uniform (params) once, and for each call `storage` storage buffers (its outputs, and inputs that cannot be
// uniforms) and `small` inputs that can (16-byte elements, at most maxUniformBufferBindingSize bytes):
//   the small inputs as storage: min(8, (maxStorageBuffersPerShaderStage - shared) / (storage + small));
//   as uniforms: min(8, (maxStorageBuffersPerShaderStage - shared) / storage, (maxUniformBuffersPerShaderStage - 1)
//   / small), taken when it is larger; at least 1.
std::size_t fused_calls(const Device& device, std::int64_t shared, std::int64_t storage, std::int64_t small = 0) {
  const plan::DeviceCaps& caps = introspect::caps(device);
  const std::int64_t storage_limit = caps.limit("maxStorageBuffersPerShaderStage").value_or(8);
  const std::int64_t uniform_limit = caps.limit("maxUniformBuffersPerShaderStage").value_or(12);
  const std::int64_t all_storage = (storage_limit - shared) / (storage + small);
  const std::int64_t with_uniforms =
      small > 0 ? std::min((storage_limit - shared) / storage, (uniform_limit - 1) / small) : 0;
  return static_cast<std::size_t>(std::clamp<std::int64_t>(std::max(all_storage, with_uniforms), 1, 8));
}

// RoPE's vec4 kernels (quad, vec4, output_vec4, packed_quad, packed_vec4: x of vec4<f32> or vec4<u32>): cos_cache,
// sin_cache and position_ids shared, y per call, x per call and small at decode sizes (7 where the limits are 10
// and 12).
std::size_t calls_per_dispatch(const Device& device) { return fused_calls(device, 3, 1, 1); }
// RoPE's u32-word and scalar kernels (pair, packed): x and y per call, in storage (3).
std::size_t scalar_calls_per_dispatch(const Device& device) { return fused_calls(device, 3, 2); }

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

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
    const Decode d(kernel->device());
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

// A RoPE decode call of x [1, 8, 1, head] with caches [256, pairs] (rotary_dim = 2 * pairs) that reaches `variant`.
struct RopeDecodeCase {
  const char* variant;
  DType dtype;
  std::int64_t head, pairs;
  std::int64_t interleaved;
  bool vec4_x;  // the variant binds x as vec4<f32> or vec4<u32> (the manifest's bindings)
};

// 1, 2, 5 and 8 such calls in one batch fuse into ceil(n / K) dispatches, each equal to the call made alone and to
// the CPU reference (double precision; a [1, 1] position table reads the same row in both packages).
void expect_rope_decode_calls_fuse(const Kernel& kernel, const RopeDecodeCase& c) {
  const std::size_t k = c.vec4_x ? calls_per_dispatch(*kernel.device()) : scalar_calls_per_dispatch(*kernel.device());
  const Decode d(kernel.device(), 200, c.dtype, c.head, c.pairs);
  Attributes attrs{{"interleaved", c.interleaved}, {"rotary_embedding_dim", 2 * c.pairs}};
  // com.microsoft needs num_heads with rotary_embedding_dim at any rank (ORT 1.30's constructor); 8 is x's.
  if (&kernel == &ms_kernel()) attrs["num_heads"] = std::int64_t{8};
  const Attributes tunables =
      c.dtype == DType::kFloat16 ? Attributes{{"F16_STORAGE", std::string("packed")}} : Attributes{};
  // f32: kF32. f16: one rounding to f16 of an f32 rotation, half an ulp of |y| < 2 (2^-11), plus f32's error.
  const reference::Tolerance tolerance = c.dtype == DType::kFloat16 ? reference::Tolerance{1e-3, 0} : kF32;
  for (std::size_t n : {1u, 2u, 5u, 8u}) {
    std::vector<HostTensor> xs;
    for (std::size_t i = 0; i < n; ++i) xs.push_back(d.x(static_cast<unsigned>(500 + i)));
    std::vector<Inputs> inputs;
    for (const HostTensor& x : xs) inputs.push_back(d.onnx(x));
    const std::string what = kernel.id() + " " + c.variant + " head " + std::to_string(c.head) + " rotary_dim " +
                             std::to_string(2 * c.pairs) + " interleaved " + std::to_string(c.interleaved) + ", " +
                             std::to_string(n) + " calls";
    const std::vector<HostTensor> ys =
        expect_batch_equals_calls(kernel, inputs, attrs, ceil_div(n, k), what, c.variant, tunables);
    for (std::size_t i = 0; i < n; ++i) {
      const auto cmp = reference::compare(
          ys[i], d.onnx_ref(xs[i], {.interleaved = c.interleaved != 0, .rotary_embedding_dim = 2 * c.pairs}), tolerance);
      EXPECT_TRUE(cmp.ok()) << what << ", call " << i << ": " << cmp.summary();
    }
  }
}

TEST(FusedCalls, EveryRopeVariantFusesItsDecodeCalls) {
  // The decode calls that reach RoPE's other variants (ai.onnx; com.microsoft renders the same templates):
  // interleaved or partial rotation, head sizes that are not a multiple of 8, and float16 stored packed in u32
  // words (F16_STORAGE packed, what an adapter without shader-f16 such as the H200 under Vulkan runs). Each
  // shares cos, sin and position_ids: K = 7 on lavapipe for the vec4 kernels, as for quad (x of 1 KiB-4 KiB is
  // bound as a uniform), and 3 for pair and packed, whose x is u32 words or scalars.
  const RopeDecodeCase cases[] = {
      {"vec4", DType::kFloat32, 128, 32, 0, true},         // partial rotation (64 of 128): vec4Preferred
      {"output_vec4", DType::kFloat32, 128, 10, 0, true},  // partial, rotary_dim / 2 = 10: not a multiple of 4
      {"pair", DType::kFloat32, 10, 5, 0, false},          // head 10: not a multiple of 4
      {"pair", DType::kFloat32, 128, 10, 1, false},        // interleaved, rotary_dim / 2 = 10
      {"packed_quad", DType::kFloat16, 128, 64, 0, true},
      {"packed_vec4", DType::kFloat16, 128, 64, 1, true},  // interleaved: packedVec4Preferred
      {"packed", DType::kFloat16, 12, 6, 0, false},        // head 12: not a multiple of 8
  };
  for (const RopeDecodeCase& c : cases) expect_rope_decode_calls_fuse(onnx_kernel(), c);
}

TEST(FusedCalls, OddHeadsFuseInComMicrosoft) {
  // com.microsoft's odd heads with an even rotary_embedding_dim (the pair kernel's last pair of a head copies one
  // element; the packed kernel's oddHead branch, whose words and pairs straddle head rows), fused.
  const RopeDecodeCase cases[] = {
      {"pair", DType::kFloat32, 7, 3, 0, false},
      {"pair", DType::kFloat32, 9, 4, 1, false},
      {"packed", DType::kFloat16, 7, 3, 0, false},
      {"packed", DType::kFloat16, 9, 2, 1, false},
  };
  for (const RopeDecodeCase& c : cases) expect_rope_decode_calls_fuse(ms_kernel(), c);
}

// Checks one fused call's outputs against the CPU reference (double precision); `what` names the call.
using ReferenceCheck = std::function<void(std::size_t call, const Outputs& outputs, const std::string& what)>;

// Whether a normalization call's outputs may differ in the last bit between runs: the one-row-a-workgroup kernels
// (row, row_vec4, row_packed, row_packed_vec8) with the subgroup reduction add the subgroups' sums in the order
// the subgroups take their slots (workgroup-sum.wgsl.jinja), which varies on the H200 (not on lavapipe).
bool sum_order_may_vary(const Device& device, const Attributes& tunables, const std::string& variant) {
  const auto reduction = tunables.find("REDUCTION");
  const bool workgroup_tree = reduction != tunables.end() && reduction->second == AttributeValue(std::string("workgroup"));
  return introspect::caps(device).subgroups && !workgroup_tree && variant.rfind("row", 0) == 0 &&
         variant.rfind("rows", 0) != 0;
}

// Expects a batched call's output to equal the same call's made alone: byte for byte, or, where `order_may_vary`
// (sum_order_may_vary), within 2^-20 relative for f32 and 2^-10 for f16 (one ulp of an f32 sum, then rounded to
// the output's type).
void expect_same_output(const HostTensor& batched, const HostTensor& alone, bool order_may_vary, const std::string& what) {
  if (!order_may_vary) {
    EXPECT_EQ(batched.data, alone.data) << what;
    return;
  }
  const double rel = alone.dtype == DType::kFloat16 ? 0x1p-10 : 0x1p-20;
  const auto cmp = reference::compare(batched, reference::to_doubles(alone), reference::Tolerance{rel, rel});
  EXPECT_TRUE(cmp.ok()) << what << " (subgroup slots in arrival order): " << cmp.summary();
}

// Records one call of `kernel` per element of `calls` in one Batch (`attrs`, `tunables`, asking for
// `outputs`) and checks: each call ran a variant in `variants`, the batch made `dispatches` dispatches, every
// output of each call equals the same call's made alone with Kernel::call (expect_same_output), and `check`
// holds.
void expect_fused_equal_one_by_one(const Kernel& kernel, const std::vector<Inputs>& calls, const Attributes& tunables,
                                   const OutputNames& outputs, const std::vector<std::string>& variants,
                                   std::size_t dispatches, const ReferenceCheck& check, const std::string& label,
                                   const Attributes& attrs = {}) {
  Batch batch(kernel.device());
  std::vector<Outputs> batched;
  std::string variant;
  for (const Inputs& in : calls) {
    CallInfo info;
    batched.push_back(batch.record(kernel, in, attrs, tunables, &info, outputs));
    EXPECT_NE(std::find(variants.begin(), variants.end(), info.variant), variants.end()) << label << ": " << info.variant;
    variant = info.variant;
  }
  const std::string what = variant + ", " + label + ", " + std::to_string(calls.size()) + " calls";
  EXPECT_EQ(batch.dispatches(), dispatches) << what;
  batch.flush();
  const bool may_vary = sum_order_may_vary(*kernel.device(), tunables, variant);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const std::string call = what + ", call " + std::to_string(i);
    const Outputs alone = kernel.call(calls[i], attrs, tunables, nullptr, outputs);
    EXPECT_EQ(batched[i].size(), alone.size()) << call;
    for (const auto& [name, tensor] : alone)
      expect_same_output(batched[i].at(name).read(), tensor.read(), may_vary, call + ", " + name);
    check(i, batched[i], call);
  }
}

// RMSNormalization's row and general kernels bind x and y per call and scale once: K = 4 where the storage limit
// is 10; the row kernels' x (vec4<f32>, or vec4<u32> words when packed) of a decode row is small, so they serve
// min(8, 9 / 1, 11 / 1) = 8 (`vec4_x`).
void expect_fused_rms_equal_one_by_one(const Kernel& rms, const std::vector<HostTensor>& xs, const HostTensor& scale_host,
                                       const DeviceTensor& scale, const Attributes& tunables,
                                       const std::vector<std::string>& variants, double tolerance, bool vec4_x,
                                       const std::string& label, const reference::RmsNormalizationAttributes& op = {}) {
  const Attributes attrs{{"axis", op.axis}, {"epsilon", op.epsilon}, {"stash_type", op.stash_type}};
  std::vector<Inputs> calls;
  for (const HostTensor& x : xs) calls.push_back({{"x", x}, {"scale", scale}});
  expect_fused_equal_one_by_one(
      rms, calls, tunables, {}, variants, ceil_div(xs.size(), vec4_x ? fused_calls(*rms.device(), 1, 1, 1) : fused_calls(*rms.device(), 1, 2)),
      [&](std::size_t i, const Outputs& out, const std::string& what) {
        const auto cmp = reference::compare(out.at("y").read(), reference::rms_normalization(xs[i], scale_host, op).y,
                                            reference::Tolerance{tolerance, tolerance});
        EXPECT_TRUE(cmp.ok()) << what << ": " << cmp.summary();
      },
      label, attrs);
}

// One kernel a normalization package for the fused-call tests, so each program is compiled once. lavapipe
// compiles a pipeline when its first dispatch runs, so the first read after a flush waits for the batch's fused
// programs to compile: seconds each on a loaded 2-core machine (K copies of the row kernel), past the default
// 10 s gpu_timeout at times (RMSNormalization's decode test did, once, beside two other builds).
const Kernel& slow_compile_kernel(const std::string& id) {
  static std::map<std::string, Kernel> kernels;
  if (auto it = kernels.find(id); it != kernels.end()) return it->second;
  DeviceOptions options;
  options.gpu_timeout = std::chrono::seconds(120);
  return kernels.emplace(id, get_kernel(id, {.version = 1}, Device::create(options))).first->second;
}
const Kernel& rms_kernel() { return slow_compile_kernel("webgpu-kernels/ai.onnx.RMSNormalization"); }
const Kernel& skip_kernel() { return slow_compile_kernel("webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization"); }

TEST(FusedCalls, RmsNormalizationDecodeCallsEqualTheCallsMadeOneByOne) {
  // ai.onnx.RMSNormalization's row kernels: decode_1x4096_f32 of its bench.json, with the subgroup and the
  // workgroup reduction (barriers and subgroupAdd inside each call's function, run for workgroup_id.z).
  const Kernel& rms = rms_kernel();
  const HostTensor scale_host = random_f32({4096}, 61);
  const DeviceTensor scale = DeviceTensor::upload(scale_host, rms.device());
  for (const Attributes& tunables : {Attributes{}, Attributes{{"REDUCTION", std::string("workgroup")}}}) {
    for (std::size_t n : {1u, 2u, 4u, 5u, 9u}) {
      std::vector<HostTensor> xs;
      for (std::size_t i = 0; i < n; ++i) xs.push_back(random_f32({1, 4096}, static_cast<unsigned>(300 + i)));
      // f32 sums of 4096 squares and one rsqrt: a few ulps of |y| < 8.
      expect_fused_rms_equal_one_by_one(rms, xs, scale_host, scale, tunables, {"row_vec4", "rows_vec4", "row"}, 1e-5, true,
                                        tunables.empty() ? "subgroup reduction" : "workgroup reduction");
    }
  }
}

TEST(FusedCalls, PackedF16RmsNormalizationCallsEqualTheCallsMadeOneByOne) {
  // The packed-f16 row kernels (F16_STORAGE packed, what the H200 under Vulkan runs): rows of 4096 (vec4<u32>
  // loads, row_packed_vec8) and odd rows of 1023 (u32 words shared by two rows, row_packed: loadX per call).
  const Kernel& rms = rms_kernel();
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
                                        {"row_packed_vec8", "rows_packed_vec8", "row_packed"}, 1e-3, shape[1] == 4096,
                                        std::to_string(shape[1]) + "-element rows");
    }
  }
}

// SkipSimplifiedLayerNormalization's decode calls: n calls of one signature, x and skip per call (uniform random in
// [-1, 1)), gamma and the optional bias shared (on the device, as a model's weights are).
struct SkipCalls {
  SkipCalls(const Kernel& kernel, DType dtype, const Shape& x, const Shape& skip, bool with_bias, std::size_t n,
            std::mt19937_64& rng)
      : gamma_host(reference::random_float(dtype, {x.back()}, rng)),
        bias_host(reference::random_float(dtype, {x.back()}, rng)),
        gamma(DeviceTensor::upload(gamma_host, kernel.device())),
        bias(DeviceTensor::upload(bias_host, kernel.device())),
        has_bias(with_bias) {
    for (std::size_t i = 0; i < n; ++i) {
      xs.push_back(reference::random_float(dtype, x, rng));
      skips.push_back(reference::random_float(dtype, skip, rng));
    }
  }
  std::vector<Inputs> calls() const {
    std::vector<Inputs> calls;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      calls.push_back({{"x", xs[i]}, {"skip", skips[i]}, {"gamma", gamma}});
      if (has_bias) calls.back().emplace("bias", bias);
    }
    return calls;
  }
  // K of these calls asking for `outputs`: gamma (and bias) shared; y and each optional output per call in
  // storage; x and skip per call, small (uniforms) where the kernel loads them as vec4 (rows of 4096: row_vec4,
  // row_packed_vec8; rows of 4094 run row and row_packed, of scalars and u32 words) and each is at most 65,536
  // bytes (maxUniformBufferBindingSize). On lavapipe and the H200 (limits 10 and 12), rows of 4096 of 1 x 4096:
  // min(8, 9 / 1, 11 / 2) = 5 without bias or outputs; rows of 4094 with bias and invStdVar: (10 - 2) / 4 = 2.
  std::size_t dispatches(const Device& device, const OutputNames& outputs) const {
    const bool vec4 = xs[0].shape.back() % 8 == 0;
    const std::int64_t small = vec4 ? (xs[0].data.size() <= 65536) + (skips[0].data.size() <= 65536) : 0;
    const std::int64_t storage = 3 - small + static_cast<std::int64_t>(outputs.size());
    return ceil_div(xs.size(), fused_calls(device, has_bias ? 2 : 1, storage, small));
  }
  // y, and invStdVar and inputSkipBiasSum when present, against the reference (epsilon: the contrib default
  // 1e-12f). f32: the float32 sum of 4096 squares and products, a few ulps (1e-5 relative, 1e-6 absolute, as
  // normalization_test.cpp); f16: plus one rounding on store, 2^-11 relative.
  ReferenceCheck reference() const {
    return [this](std::size_t i, const Outputs& out, const std::string& what) {
      const auto ref = reference::skip_simplified_layer_normalization(xs[i], skips[i], gamma_host,
                                                                      has_bias ? &bias_host : nullptr, 1e-12f);
      const reference::Tolerance f32{1e-6, 1e-5}, f16{1e-5, 1e-3};
      const reference::Tolerance& t = xs[i].dtype == DType::kFloat16 ? f16 : f32;
      auto expect = [&](const char* name, const std::vector<double>& want, const reference::Tolerance& tol) {
        if (!out.count(name)) return;
        const auto cmp = reference::compare(out.at(name).read(), want, tol);
        EXPECT_TRUE(cmp.ok()) << what << ", " << name << ": " << cmp.summary();
      };
      expect("y", ref.y, t);
      expect("invStdVar", ref.inv_std_var, f32);  // float32 whatever T is
      expect("inputSkipBiasSum", ref.input_skip_bias_sum, t);
    };
  }
  HostTensor gamma_host, bias_host;
  DeviceTensor gamma, bias;
  bool has_bias;
  std::vector<HostTensor> xs, skips;
};

// A Skip case's label: `dtype`, rows x hidden size, ", bias" when it has one, `tunables` (a note) and each
// optional output asked for.
std::string skip_label(const std::string& dtype, const Shape& x, bool bias, const std::string& tunables,
                       const OutputNames& outputs) {
  std::string label = dtype + " " + std::to_string(x.front()) + " x " + std::to_string(x.back()) + (bias ? ", bias" : "") + tunables;
  for (const std::string& o : outputs) label += ", " + o;
  return label;
}

TEST(FusedCalls, SkipSimplifiedLayerNormalizationDecodeCallsEqualTheCallsMadeOneByOne) {
  // The row kernels (row_vec4 for rows of 4096, row for 4094), decode shapes of its bench.json (1-8 rows of
  // 4096), with bias, with each optional output and both (K = 1 there: one dispatch a call), both reductions,
  // s kept in registers and computed twice. Each fused K of a signature is a program to compile: few cases.
  const Kernel& skip = skip_kernel();
  std::mt19937_64 rng(81);
  struct Case {
    Shape x, skip;
    bool bias;
    OutputNames outputs;
    Attributes tunables;
    std::vector<std::size_t> ns;
  };
  const Attributes workgroup{{"REDUCTION", std::string("workgroup")}};
  const Case cases[] = {
      {{1, 4096}, {1, 4096}, false, {}, {}, {1, 4, 7}},
      {{8, 1, 4096}, {1, 4096}, false, {}, workgroup, {3}},  // 8 rows, skip (S, H) repeated over the batch
      {{2, 4096}, {2, 4096}, true, {"inputSkipBiasSum"}, {}, {3}},
      {{1, 4096}, {1, 4096}, true, {"invStdVar", "inputSkipBiasSum"}, {}, {2}},
      // row: 4094 loads over 256 invocations is 16 each, past ROW_CACHE's 8: s computed twice.
      {{1, 4094}, {1, 4094}, true, {"invStdVar"}, {}, {3}},
  };
  for (const Case& c : cases) {
    for (std::size_t n : c.ns) {
      const SkipCalls calls(skip, DType::kFloat32, c.x, c.skip, c.bias, n, rng);
      const std::string label = skip_label("f32", c.x, c.bias, c.tunables.empty() ? "" : ", tunables", c.outputs);
      expect_fused_equal_one_by_one(skip, calls.calls(), c.tunables, c.outputs, {"row_vec4", "row"},
                                    calls.dispatches(*skip.device(), c.outputs), calls.reference(), label);
    }
  }
}

TEST(FusedCalls, RmsNormalizationGeneralCallsEqualTheCallsMadeOneByOne) {
  // The general kernels (general; packed f16: general_packed): x [1, 8, 128] normalized from axis 1 (rows of
  // 1,024) with a scale of [8, 1], one value per head broadcast over its 128 (not a scale the row kernels
  // take: simpleScale is false). scale is shared, so K = 4 on lavapipe as for the row kernels.
  const Kernel& rms = rms_kernel();
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
          {packed ? "general_packed" : "general"}, packed ? 1e-3 : 1e-5, false, "axis 1, scale [8, 1]", {.axis = 1});
    }
  }
}

TEST(FusedCalls, PackedF16SkipSimplifiedLayerNormalizationCallsEqualTheCallsMadeOneByOne) {
  // float16 packed in u32 words (what the H200 under Vulkan runs): row_packed_vec8 (rows of 4096) and
  // row_packed (4094: u32 words).
  const Kernel& skip = skip_kernel();
  std::mt19937_64 rng(91);
  const Attributes packed{{"F16_STORAGE", std::string("packed")}};
  const Attributes packed_no_cache{{"F16_STORAGE", std::string("packed")}, {"ROW_CACHE", std::string("off")}};
  struct Case {
    Shape x;
    bool bias;
    OutputNames outputs;
    const Attributes& tunables;
    std::size_t n;
  };
  const Case cases[] = {
      {{1, 4096}, false, {}, packed, 4},
      {{2, 4096}, true, {"invStdVar"}, packed_no_cache, 3},
      {{1, 4094}, false, {"inputSkipBiasSum"}, packed, 3},
  };
  for (const Case& c : cases) {
    const SkipCalls calls(skip, DType::kFloat16, c.x, c.x, c.bias, c.n, rng);
    const std::string label =
        skip_label("packed f16", c.x, c.bias, &c.tunables == &packed ? "" : ", ROW_CACHE off", c.outputs);
    expect_fused_equal_one_by_one(skip, calls.calls(), c.tunables, c.outputs, {"row_packed_vec8", "row_packed"},
                                  calls.dispatches(*skip.device(), c.outputs), calls.reference(), label);
  }
}

TEST(FusedCalls, ASkipThatIsThePreviousCallsOutputIsNotFused) {
  // Call b's skip is call a's y: in one dispatch b would read it before a writes it, so b starts a dispatch
  // (and c and d, of the same plan, join it: K = 5, x and skip as uniforms): 2 dispatches, each output equal to the calls made one by one.
  const Kernel& skip = skip_kernel();
  std::mt19937_64 rng(101);
  const SkipCalls calls(skip, DType::kFloat32, {1, 4096}, {1, 4096}, false, 4, rng);
  ASSERT_GE(fused_calls(*skip.device(), 1, 1, 2), 3u) << "the count below assumes three calls a dispatch";
  const std::vector<Inputs> in = calls.calls();
  Batch batch(skip.device());
  const DeviceTensor a = batch.record(skip, in[0]).at("y");
  Inputs chained = in[1];
  chained.insert_or_assign("skip", TensorArg(a));
  const DeviceTensor b = batch.record(skip, chained).at("y");
  const DeviceTensor c = batch.record(skip, in[2]).at("y");
  const DeviceTensor d = batch.record(skip, in[3]).at("y");
  EXPECT_EQ(batch.dispatches(), 2u);
  batch.flush();
  const DeviceTensor a_alone = skip(in[0]).at("y");
  const bool may_vary = sum_order_may_vary(*skip.device(), {}, "row_vec4");
  expect_same_output(a.read(), a_alone.read(), may_vary, "a");
  chained.insert_or_assign("skip", TensorArg(a_alone));
  expect_same_output(b.read(), skip(chained).at("y").read(), may_vary, "b");
  expect_same_output(c.read(), skip(in[2]).at("y").read(), may_vary, "c");
  expect_same_output(d.read(), skip(in[3]).at("y").read(), may_vary, "d");
  // b = the normalization of x1 + a, a read back.
  const auto ref = reference::skip_simplified_layer_normalization(calls.xs[1], a.read(), calls.gamma_host, nullptr, 1e-12f);
  const auto cmp = reference::compare(b.read(), ref.y, reference::Tolerance{1e-6, 1e-5});
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

TEST(FusedCalls, SixtyFourCallsMakeCeil64OverKDispatches) {
  const Kernel& kernel = onnx_kernel();
  const Decode d(kernel.device());
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
  const Decode d(onnx.device());
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
  const Decode d(onnx.device());
  const std::size_t k = calls_per_dispatch(*onnx.device());
  ASSERT_GE(k, 2u) << "the counts below assume at least two calls a dispatch";
  std::vector<HostTensor> xs;
  for (std::size_t i = 0; i <= k; ++i) xs.push_back(d.x(static_cast<unsigned>(31 + i)));
  Batch batch(onnx.device());
  std::vector<DeviceTensor> ys;
  for (std::size_t i = 0; i + 1 < k; ++i) ys.push_back(batch.record(onnx, d.onnx(xs[i])).at("y"));
  // Position 256 is past the caches' 256 rows: refused at the boundary, not recorded.
  Inputs bad = d.onnx(xs[k - 1]);
  bad.insert_or_assign("positionIds", TensorArg(i64({1, 1}, {256})));
  expect_error([&] { batch.record(onnx, bad); }, {"positionIds[0] = 256", "[0, 255]"});
  // A bad shape too: refused before anything is allocated.
  Inputs bad_shape = d.onnx(random_f32({1, 8, 1, 120}, 9));
  expect_error([&] { batch.record(onnx, bad_shape); }, {"x"});
  EXPECT_EQ(batch.size(), k - 1);
  ys.push_back(batch.record(onnx, d.onnx(xs[k - 1])).at("y"));  // the last call of the first dispatch
  ys.push_back(batch.record(onnx, d.onnx(xs[k])).at("y"));      // the first of the next
  EXPECT_EQ(batch.dispatches(), 2u);
  batch.flush();
  for (std::size_t i = 0; i <= k; ++i) {
    EXPECT_EQ(ys[i].read().data, onnx(d.onnx(xs[i])).at("y").read().data) << "call " << i;
    const auto cmp = reference::compare(ys[i].read(), d.onnx_ref(xs[i]), kF32);
    EXPECT_TRUE(cmp.ok()) << "call " << i << ": " << cmp.summary();
  }
}

TEST(FusedCalls, ADroppedBatchWithAnOpenDispatchLeavesItsOutputsUnreadable) {
  const Kernel& onnx = onnx_kernel();
  const Decode d(onnx.device());
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
