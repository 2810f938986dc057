// wgk::Batch: many calls in one submit. Chains across both packages equal the same calls made one by one
// and the CPU reference (double precision); every recorded call is checked at the boundary; outputs are
// unreadable before the flush and for good when the batch is dropped; uniforms of calls that share
// buffers stay their own; the cache budget holds; several threads record into one batch.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <random>
#include <thread>

#include "call_helpers.h"
#include "reference/compare.h"
#include "reference/rotary_embedding.h"
#include "runtime/cache.h"
#include "wgk/introspect.h"

namespace wgk::testing {
namespace {


HostTensor u32(Shape shape, const std::vector<std::uint32_t>& values) {
  return HostTensor::from(DType::kUInt32, std::move(shape), values);
}

// f32 rotation of |x| < 1 by |cos|, |sin| < 1 (kernel_test.cpp): 1e-6 absolute per step.
constexpr reference::Tolerance kF32{1e-6, 0};
// Multiples of 0.25 (call_helpers f32) rotated by caches of 0.25 * k: exact in f32.
constexpr reference::Tolerance kExact{0, 0};


// x (2, 4, 6, 16) for both packages (rank 4: batch, heads, sequence, head), caches of 32 rows.
struct Rotary {
  HostTensor x = random_f32({2, 4, 6, 16}, 11);
  HostTensor cos = random_f32({32, 8}, 12);
  HostTensor sin = random_f32({32, 8}, 13);
  HostTensor pos = positions({2, 6}, 32);
  HostTensor offset = i64({1}, {5});  // com.microsoft: token s reads row 5 + s
  Inputs onnx(const TensorArg& in) const { return {{"x", in}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}; }
  Inputs ms(const TensorArg& in) const { return {{"x", in}, {"cos", cos}, {"sin", sin}, {"positionIds", offset}}; }
  std::vector<double> onnx_ref(const HostTensor& in) const { return reference::rotary_embedding_onnx(in, cos, sin, &pos, {}); }
  std::vector<double> ms_ref(const HostTensor& in) const { return reference::rotary_embedding_ms(in, offset, cos, sin, {}); }
};

HostTensor as_f32(const std::vector<double>& values, Shape shape) {
  std::vector<float> v(values.begin(), values.end());
  return HostTensor::from(DType::kFloat32, std::move(shape), v);
}

TEST(Batch, ChainAcrossBothPackagesEqualsTheCallsMadeOneByOne) {
  // y1 = onnx(x), y2 = ms(y1), y3 = onnx(y2), y4 = ms(y3): each output the next call's input, all in one
  // submit. The same chain made call by call gives the same bytes; each step matches the reference of
  // that step applied to the previous step's stored f32 output.
  const Rotary in;
  const Kernel& onnx = onnx_kernel();
  const Kernel& ms = ms_kernel();
  Batch batch(onnx.device());
  std::vector<DeviceTensor> batched;
  batched.push_back(batch.record(onnx, in.onnx(in.x)).at("y"));
  batched.push_back(batch.record(ms, in.ms(batched.back())).at("y"));
  batched.push_back(batch.record(onnx, in.onnx(batched.back())).at("y"));
  batched.push_back(batch.record(ms, in.ms(batched.back())).at("y"));
  EXPECT_EQ(batch.size(), 4u);
  batch.flush();
  EXPECT_EQ(batch.size(), 0u);

  std::vector<DeviceTensor> single;
  single.push_back(onnx(in.onnx(in.x)).at("y"));
  single.push_back(ms(in.ms(single.back())).at("y"));
  single.push_back(onnx(in.onnx(single.back())).at("y"));
  single.push_back(ms(in.ms(single.back())).at("y"));

  HostTensor previous = in.x;
  for (std::size_t i = 0; i < 4; ++i) {
    const HostTensor b = batched[i].read(), s = single[i].read();
    EXPECT_EQ(b.shape, in.x.shape);
    EXPECT_EQ(b.data, s.data) << "step " << i << ": the batched chain differs from the calls made one by one";
    const auto expected = i % 2 == 0 ? in.onnx_ref(previous) : in.ms_ref(previous);
    const auto cmp = reference::compare(b, expected, kF32);
    EXPECT_TRUE(cmp.ok()) << "step " << i << ": " << cmp.summary();
    previous = b;
  }
  // The whole chain in double, from x: four roundings of f32 accumulate to a few ulps at most.
  auto chain = in.x;
  for (int i = 0; i < 4; ++i) chain = as_f32(i % 2 == 0 ? in.onnx_ref(chain) : in.ms_ref(chain), in.x.shape);
  const auto cmp = reference::compare(batched[3].read(), std::vector<double>(reinterpret_cast<const float*>(chain.data.data()),
                                                                             reinterpret_cast<const float*>(chain.data.data()) + chain.numel()),
                                      reference::Tolerance{4e-6, 0});
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

TEST(Batch, RecordChecksEveryCallAtTheBoundaryAndNamesTheInput) {
  const Rotary in;
  const Kernel& onnx = onnx_kernel();
  Batch batch(onnx.device());
  const DeviceTensor y = batch.record(onnx, in.onnx(in.x)).at("y");
  // The errors of Kernel::call, at record time; a refused call is not recorded.
  const HostTensor bad_cos = random_f32({32, 7}, 5);
  expect_error([&] { batch.record(onnx, {{"x", y}, {"cos", bad_cos}, {"sin", in.sin}, {"positionIds", in.pos}}); },
               {"cos", "7"});
  const HostTensor past = i64({2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 32});
  expect_error([&] { batch.record(onnx, {{"x", y}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", past}}); },
               {"positionIds[11] = 32", "[0, 31]"});
  expect_error([&] { batch.record(onnx, in.onnx(in.x), {{"interleaved", std::int64_t{2}}}); }, {"interleaved", "2"});
  EXPECT_EQ(batch.size(), 1u) << "a refused call must not be recorded";

  // A kernel bound to another device: another wgk::Device object on the same adapter, which the message must
  // say (before, it printed the one adapter's description twice, as if they were one device).
  const Kernel other = get_kernel(kOnnxId, {.version = 1}, device_with_budget(1 << 20));
  expect_error([&] { batch.record(other, in.onnx(in.x)); },
               {"Batch::record: kernel " + std::string(kOnnxId) + " is bound to another device than the batch (the "
                "kernel's and the batch's are two different wgk::Device objects on the same adapter, " +
                    onnx.device()->description() + ")",
                "record it into a Batch(kernel.device()), or get the kernel with the batch's device"});

  // An unflushed output of this batch as position ids: its value range cannot be checked yet.
  const auto pos32 = DeviceTensor::upload(u32({2, 6}, {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}), onnx.device());
  const DeviceTensor as_ids = introspect::view(y, DType::kUInt32, {2, 6});
  expect_error([&] { batch.record(onnx, {{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", as_ids}}); },
               {"input positionIds", "not yet flushed", "[0, 31]"});

  // An unflushed output of this batch, given to another batch or to a call submitted at once.
  Batch second(onnx.device());
  expect_error([&] { second.record(onnx, in.onnx(y)); }, {"input x", "another Batch", "not yet flushed"});
  expect_error([&] { onnx(in.onnx(y)); }, {"input x", "Batch not yet flushed", "flush()"});
  EXPECT_EQ(second.size(), 0u);

  // Still right after the refusals.
  batch.record(onnx, {{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", pos32}});
  batch.flush();
  const auto cmp = reference::compare(y.read(), in.onnx_ref(in.x), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

TEST(Batch, EveryRecordOfACachedSignatureIsCheckedAgain) {
  // encode_call caches per signature (names, dtypes, shapes, attributes) the plan and what it resolves by
  // name; data and device-resident values are checked on every call. Each refused call below has the
  // signature of a call recorded (and planned) just before it, with a value that breaks a rule.
  const Rotary in;
  const Kernel& onnx = onnx_kernel();
  const auto device = onnx.device();
  Batch batch(device);
  const auto pos32 = DeviceTensor::upload(u32({2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 31}), device);
  const Inputs first{{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", pos32}};
  const DeviceTensor y = batch.record(onnx, first).at("y");
  CallInfo info;
  batch.record(onnx, first, {}, {}, &info);
  EXPECT_TRUE(info.plan_cached) << "the second record of one signature must hit the plan cache";

  // A device-resident position past the 32-row caches ([0, 31]), same dtype and shape as pos32.
  const auto past = DeviceTensor::upload(u32({2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 32, 31}), device);
  expect_error([&] { batch.record(onnx, {{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", past}}); },
               {"positionIds[10] = 32", "[0, 31]"});
  // A host position below 0 (int64, narrowed on the host): the signature of `in.onnx`.
  batch.record(onnx, in.onnx(in.x));
  const HostTensor negative = i64({2, 6}, {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, -1, 5});
  expect_error([&] { batch.record(onnx, {{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", negative}}); },
               {"positionIds[10] = -1", "below 0"});
  // Host data shorter than its shape: 2 * 4 * 6 * 16 float32 = 3072 bytes needed.
  HostTensor short_x = in.x;
  short_x.data.resize(short_x.data.size() - 4);
  expect_error([&] { batch.record(onnx, in.onnx(short_x)); }, {"input x", "3072 bytes", "got 3068"});
  // A tensor of another device with this signature.
  const auto other = device_with_budget(1 << 20);
  const auto x_elsewhere = DeviceTensor::upload(in.x, other);
  expect_error([&] { batch.record(onnx, in.onnx(x_elsewhere)); },
               {"input x lives on another device than the kernel (the tensor's and the kernel's are two different "
                "wgk::Device objects on the same adapter, " + onnx.device()->description() + ")",
                "DeviceTensor::upload(host, kernel.device())"});
  // An output of another batch, not yet flushed, with this signature (x of y's shape).
  Batch second(device);
  const DeviceTensor pending = second.record(onnx, in.onnx(in.x)).at("y");
  expect_error([&] { batch.record(onnx, in.onnx(pending)); }, {"input x", "another Batch", "not yet flushed"});
  // The signature-level rule still holds for an attribute value never planned: interleaved 2.
  expect_error([&] { batch.record(onnx, first, {{"interleaved", std::int64_t{2}}}); }, {"interleaved", "2"});
  EXPECT_EQ(batch.size(), 3u) << "a refused call must not be recorded";

  // A device-resident position the caller's earlier range check remembered, then forgot (as for ids a
  // kernel wrote): read back and checked again, not taken from what the plan cache saw.
  const auto reused = DeviceTensor::upload(u32({2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 40}), device);
  introspect::forget_range(reused);
  expect_error([&] { batch.record(onnx, {{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", reused}}); },
               {"positionIds[11] = 40", "[0, 31]"});
  batch.flush();
  second.flush();
  std::vector<std::int64_t> ids = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 31};
  const HostTensor pos64 = i64({2, 6}, ids);
  const auto cmp = reference::compare(y.read(), reference::rotary_embedding_onnx(in.x, in.cos, in.sin, &pos64, {}), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

TEST(Batch, CallsDifferingOnlyInNamesOrAttributeValuesGetTheirOwnPlans) {
  // Inputs by ONNX name (X, cos_cache, sin_cache, position_ids) and by argument name, interleaved absent, 1 and 0,
  // recorded in turn: each output is the CPU reference of its own
  // attributes (a plan-cache key that mixed them up would give one call another's plan).
  const Rotary in;
  const Kernel& onnx = onnx_kernel();
  Batch batch(onnx.device());
  const Inputs by_onnx_name{{"X", in.x}, {"cos_cache", in.cos}, {"sin_cache", in.sin}, {"position_ids", in.pos}};
  const std::vector<Attributes> attrs = {{}, {{"interleaved", std::int64_t{1}}}, {{"interleaved", std::int64_t{0}}}};
  std::vector<DeviceTensor> ys;
  for (int round = 0; round < 2; ++round)
    for (const Attributes& a : attrs) {
      ys.push_back(batch.record(onnx, in.onnx(in.x), a).at("y"));
      ys.push_back(batch.record(onnx, by_onnx_name, a).at("y"));
    }
  batch.flush();
  reference::RotaryAttributes interleaved;
  interleaved.interleaved = true;
  const std::vector<double> plain = in.onnx_ref(in.x);
  const std::vector<double> paired = reference::rotary_embedding_onnx(in.x, in.cos, in.sin, &in.pos, interleaved);
  for (std::size_t i = 0; i < ys.size(); ++i) {
    const bool is_interleaved = (i / 2) % attrs.size() == 1;
    const auto cmp = reference::compare(ys[i].read(), is_interleaved ? paired : plain, kF32);
    EXPECT_TRUE(cmp.ok()) << "call " << i << ": " << cmp.summary();
  }
}

// A device of its own (the default budget, so its cache counts only this test's work), ai.onnx.RotaryEmbedding
// on it and a decode step whose caches and position live there (Decode): consecutive calls fuse.
struct DecodeOnDevice {
  std::shared_ptr<Device> device = device_with_budget(DeviceOptions{}.cache_budget_bytes);
  Kernel k = get_kernel(kOnnxId, {.version = 1}, device);
  Decode d{device};
  // Expects each output y to be the ONNX RotaryEmbedding of its x (the CPU reference, double precision).
  void expect_reference(std::initializer_list<std::pair<DeviceTensor, HostTensor>> calls) const {
    for (const auto& [y, x] : calls) {
      const auto cmp = reference::compare(y.read(), d.onnx_ref(x), kF32);
      EXPECT_TRUE(cmp.ok()) << cmp.summary();
    }
  }
};

TEST(Batch, AFusedDispatchMakesItsOneBindGroupWhenItCloses) {
  // Two decode calls of one plan share a dispatch (RoPE's quad pass declares fusion; any WebGPU device's
  // maxStorageBuffersPerShaderStage, at least 8, holds its 3 shared and 2 x 2 per-call buffers). Its bind group
  // is made once, when the dispatch closes (at the flush here), for both calls: the device caches that one
  // set, not also one of the first call alone (before: made at its record, then replaced).
  const DecodeOnDevice t;
  const auto& [device, k, d] = t;
  const HostTensor x0 = d.x(1), x1 = d.x(2);
  Batch batch(device);
  CallInfo info;
  const DeviceTensor y0 = batch.record(k, d.onnx(x0), {}, {}, &info).at("y");
  ASSERT_EQ(info.variant, "quad") << "the case must reach a pass with fusion";
  const DeviceTensor y1 = batch.record(k, d.onnx(x1)).at("y");
  EXPECT_EQ(batch.dispatches(), 1u);
  EXPECT_EQ(device->cache_stats().bind_groups.entries, 0u) << "the open dispatch has no bind group yet";
  batch.flush();
  EXPECT_EQ(device->cache_stats().bind_groups.entries, 1u) << "one dispatch, one bind group";
  t.expect_reference({{y0, x0}, {y1, x1}});
}

TEST(Batch, AnAttributeGivenItsDefaultHasThePlanOfOneLeftOut) {
  // ai.onnx.RotaryEmbedding declares interleaved with default 0 (its manifest, as ONNX RotaryEmbedding-23),
  // RMSNormalization epsilon with default 1e-5 (ONNX RMSNormalization-23): the boundary binds a call giving
  // the default exactly as one leaving it out, so both are one signature, one plan, and two such decode
  // calls in a batch share a dispatch. Another value is another plan.
  const DecodeOnDevice t;
  const auto& [device, k, d] = t;
  const HostTensor x0 = d.x(3), x1 = d.x(4);
  Batch batch(device);
  const DeviceTensor y0 = batch.record(k, d.onnx(x0)).at("y");
  CallInfo info;
  const DeviceTensor y1 = batch.record(k, d.onnx(x1), {{"interleaved", std::int64_t{0}}}, {}, &info).at("y");
  EXPECT_TRUE(info.plan_cached) << "{interleaved: 0} was planned again after {}";
  EXPECT_EQ(batch.dispatches(), 1u) << "the second call must join the first's dispatch";
  batch.flush();
  EXPECT_EQ(device->cache_stats().plans_made, 1u);
  t.expect_reference({{y0, x0}, {y1, x1}});
  k.call(d.onnx(x0), {{"interleaved", std::int64_t{1}}}, {}, &info);
  EXPECT_FALSE(info.plan_cached) << "interleaved 1 is not the default";

  const Kernel rms = get_kernel("webgpu-kernels/ai.onnx.RMSNormalization", {.version = 1}, device);
  const HostTensor x = random_f32({1, 4096}, 5), scale = random_f32({4096}, 6);
  const std::uint64_t before = device->cache_stats().plans_made;
  rms.call({{"x", x}, {"scale", scale}}, {}, {}, &info);
  rms.call({{"x", x}, {"scale", scale}}, {{"epsilon", 1e-5}, {"axis", std::int64_t{-1}}}, {}, &info);
  EXPECT_TRUE(info.plan_cached) << "{epsilon: 1e-5, axis: -1} was planned again after {}";
  rms.call({{"x", x}, {"scale", scale}}, {{"epsilon", 2e-5}}, {}, &info);
  EXPECT_FALSE(info.plan_cached);
  EXPECT_EQ(device->cache_stats().plans_made, before + 2);
}

TEST(Batch, ABatchPlansAndCompilesWhatItsCallsShareOnceWhateverTheBudget) {
  // A budget of 0 caches nothing; a tester's batch of 16,384 calls then planned and compiled a program per
  // call (8.9 GB, 361 s). A batch holds what its recorded calls use until its flush, found again by its later
  // calls: the plan of each signature, and the programs.
  const auto device = device_with_budget(0);
  const Kernel k = get_kernel(kOnnxId, {.version = 1}, device);
  {
    // Prefill of 1 to 6 tokens, each twice, from host data (nothing shared, so no call fuses): a plan per
    // length, one program for all (the sequence length is a uniform: docs/kernel-conventions.md "Program
    // keys", cache_test NewSequenceLengthsRenderAndCompileNothing at the default budget).
    const HostTensor cos = f32({8, 8}), sin = f32({8, 8});
    std::vector<std::pair<DeviceTensor, std::vector<double>>> expected;
    Batch batch(device);
    for (int round = 0; round < 2; ++round)
      for (std::int64_t s = 1; s <= 6; ++s) {
        const HostTensor x = f32({1, 2, s, 16}), pos = positions({1, s}, 8);
        expected.emplace_back(batch.record(k, {{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}).at("y"),
                              reference::rotary_embedding_onnx(x, cos, sin, &pos, {}));
      }
    batch.flush();
    const CacheStats st = device->cache_stats();
    EXPECT_EQ(st.plans_made, 6u);
    EXPECT_EQ(st.renders, 1u);
    EXPECT_EQ(st.compilations, 1u);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const auto cmp = reference::compare(expected[i].first.read(), expected[i].second, kExact);
      EXPECT_TRUE(cmp.ok()) << "call " << i << ": " << cmp.summary();
    }
  }
  {
    // Decode calls sharing the caches on the device fuse: one plan, its program and those for 2 .. K fused
    // calls (K at most the quad pass's fusion maxCalls, 8), each compiled once whatever the dispatches.
    const CacheStats before = device->cache_stats();
    const Decode d(device);
    std::vector<HostTensor> xs;
    for (unsigned i = 0; i < 12; ++i) xs.push_back(d.x(40 + i));
    Batch batch(device);
    std::vector<DeviceTensor> ys;
    for (const HostTensor& x : xs) ys.push_back(batch.record(k, d.onnx(x)).at("y"));
    EXPECT_LE(batch.dispatches(), 6u) << "the calls must fuse";
    batch.flush();
    const CacheStats st = device->cache_stats();
    EXPECT_EQ(st.plans_made, before.plans_made + 1);
    EXPECT_GE(st.compilations, before.compilations + 2);
    EXPECT_LE(st.compilations, before.compilations + 8);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const auto cmp = reference::compare(ys[i].read(), d.onnx_ref(xs[i]), kF32);
      EXPECT_TRUE(cmp.ok()) << "call " << i << ": " << cmp.summary();
    }
  }
  EXPECT_EQ(device->cache_stats().cached_bytes, 0u);
}

TEST(Batch, AFusedPlanCountsInItsPlansCachedBytes) {
  // Fusing K calls makes the plan for K calls (after the one-call plan was cached): the plan's entry counts
  // it, at least a plan's base estimate (DeviceCache::kPlanBaseBytes) more, with no new entry.
  const DecodeOnDevice t;
  const auto& [device, k, d] = t;
  const HostTensor x0 = d.x(7), x1 = d.x(8);
  Batch batch(device);
  batch.record(k, d.onnx(x0));
  batch.flush();
  const CacheStats one = device->cache_stats();
  ASSERT_EQ(one.plans.entries, 1u);
  batch.record(k, d.onnx(x0));
  batch.record(k, d.onnx(x1));
  ASSERT_EQ(batch.dispatches(), 1u) << "the calls must fuse";
  batch.flush();
  const CacheStats two = device->cache_stats();
  EXPECT_EQ(two.plans.entries, 1u);
  EXPECT_GE(two.plans.bytes, one.plans.bytes + runtime::DeviceCache::kPlanBaseBytes);
  EXPECT_LE(two.cached_bytes, two.budget_bytes);
}

TEST(Batch, AnEmptyFlushDoesNothing) {
  const auto device = device_with_budget(DeviceOptions{}.cache_budget_bytes);
  Batch batch(device);
  const CacheStats before = device->cache_stats();
  batch.flush();
  batch.flush();
  EXPECT_EQ(batch.size(), 0u);
  const CacheStats after = device->cache_stats();
  EXPECT_EQ(after.buffers_alive, before.buffers_alive);
  EXPECT_EQ(after.plans_made, before.plans_made);
  EXPECT_THROW(introspect::timed_flush(batch), Error);  // nothing to time: refused, not a zero
}

TEST(Batch, ABatchRefusesCallsPastItsLimitAndRecordsAgainAfterAFlush) {
  // A tester's finding: some 62,000 pending calls crashed inside lavapipe (descriptor pools); a batch now
  // holds at most Batch::kMaxCalls, and the next record says to flush.
  const auto device = device_with_budget(DeviceOptions{}.cache_budget_bytes);
  const Kernel k = get_kernel(kMsId, {.version = 1}, device);
  const auto x = DeviceTensor::upload(f32({1, 1, 1, 8}), device), c = DeviceTensor::upload(f32({4, 4}), device);
  const auto off = DeviceTensor::upload(HostTensor::from(DType::kUInt32, {1}, std::vector<std::uint32_t>{0}), device);
  const Inputs in{{"x", x}, {"cos", c}, {"sin", c}, {"positionIds", off}};
  Batch batch(device);
  for (std::size_t i = 0; i < Batch::kMaxCalls; ++i) batch.record(k, in);
  expect_has(error_of([&] { batch.record(k, in); }), {"Batch::kMaxCalls", "flush() first"});
  EXPECT_EQ(batch.size(), Batch::kMaxCalls);
  batch.flush();
  Outputs last = batch.record(k, in);
  batch.flush();
  const HostTensor xs = f32({1, 1, 1, 8}), cs = f32({4, 4});
  const HostTensor offset = i64({1}, {0});
  const auto cmp = reference::compare(last.at("y").read(), reference::rotary_embedding_ms(xs, offset, cs, cs, {}), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

TEST(Batch, EmptyTensorCallsAndATimedFlush) {
  // A call with sequence 0 has no pass to run: recorded, its empty output is readable after the flush only.
  const Rotary in;
  const Kernel& onnx = onnx_kernel();
  const HostTensor x0 = f32({1, 2, 0, 16}), pos0 = i64({1, 0}, {});
  Batch only_empty(onnx.device());
  const DeviceTensor e = only_empty.record(onnx, {{"x", x0}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", pos0}}).at("y");
  expect_error([&] { e.read(); }, {"not yet flushed"});
  expect_error([&] { introspect::timed_flush(only_empty); }, {"timed_flush", "no pass to run", "1 calls recorded"});
  EXPECT_EQ(only_empty.size(), 1u) << "a refused timed flush leaves the batch as it was";
  only_empty.flush();
  const HostTensor y0 = e.read();
  EXPECT_EQ(y0.shape, x0.shape);
  EXPECT_TRUE(y0.data.empty());

  // Mixed with real calls, timed: a positive span, and the outputs right.
  Batch batch(onnx.device());
  const DeviceTensor a = batch.record(onnx, in.onnx(in.x)).at("y");
  batch.record(onnx, {{"x", x0}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", pos0}});
  const DeviceTensor b = batch.record(onnx, in.onnx(a)).at("y");
  EXPECT_GT(introspect::timed_flush(batch), 0u);
  const HostTensor ya = a.read();
  EXPECT_TRUE(reference::compare(ya, in.onnx_ref(in.x), kF32).ok());
  const auto cmp = reference::compare(b.read(), in.onnx_ref(ya), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

TEST(Batch, OutputsAreUnreadableBeforeTheFlushAndRightAfter) {
  const Rotary in;
  const Kernel& onnx = onnx_kernel();
  Batch batch(onnx.device());
  const DeviceTensor y = batch.record(onnx, in.onnx(in.x)).at("y");
  expect_error([&] { y.read(); }, {"reading a DeviceTensor", "float32 [2, 4, 6, 16]", "not yet flushed", "flush()"});
  expect_error([&] { y.read_async().get(); }, {"not yet flushed"});
  // The flush may come from another thread.
  std::thread([&] { batch.flush(); }).join();
  const auto cmp = reference::compare(y.read(), in.onnx_ref(in.x), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
  // Flushed outputs are ordinary tensors: a call submitted at once takes them.
  const auto cmp2 = reference::compare(onnx(in.onnx(y)).at("y").read(), in.onnx_ref(y.read()), kF32);
  EXPECT_TRUE(cmp2.ok()) << cmp2.summary();
}

TEST(Batch, ADestroyedBatchDropsItsCallsAndTheirBuffers) {
  // Budget 0: nothing pooled, so every buffer alive is held by someone.
  const auto device = device_with_budget(0);
  const Kernel k = get_kernel(kOnnxId, {.version = 1}, device);
  const Rotary in;
  std::optional<DeviceTensor> kept;
  {
    Batch batch(device);
    kept = batch.record(k, in.onnx(in.x)).at("y");
    batch.record(k, in.onnx(*kept));  // its output dropped by the caller: held by the batch
    // x, cos, sin and positionIds of the first call uploaded, cos, sin, positionIds of the second, two outputs.
    EXPECT_EQ(device->cache_stats().buffers_alive, 9u);
  }
  EXPECT_EQ(device->cache_stats().buffers_alive, 1u) << "a dropped batch keeps nothing but what the caller holds";
  expect_error([&] { kept->read(); }, {"destroyed before flush()", "never computed"});
  expect_error([&] { k(in.onnx(*kept)); }, {"input x", "destroyed before flush()"});
  Batch again(device);
  expect_error([&] { again.record(k, in.onnx(*kept)); }, {"input x", "never computed"});
  kept.reset();
  EXPECT_EQ(device->cache_stats().buffers_alive, 0u);
  // After a flush the batch holds nothing either.
  again.record(k, in.onnx(in.x));
  again.flush();
  EXPECT_EQ(device->cache_stats().buffers_alive, 0u);
}

TEST(Batch, CallsOfOtherSequenceLengthsSharingBuffersKeepTheirUniforms) {
  // Prefill of 9 and 10 tokens on the same device buffers: x, cos, sin and position ids are one upload
  // each, the 9-token calls view a prefix of them. Both lengths' outputs (1,152 and 1,280 bytes) fall in
  // one pooled size class, so a call whose output buffer is another call's freed one binds the same
  // buffers and shares its bind-group set, whose uniform buffers (the sequence length) are rewritten per
  // call. Inside one submit every uniform write lands before the first pass runs: a 9-token call that read
  // the 10-token call's uniforms (or the reverse) would be wrong. Intermediate outputs are dropped by the
  // caller before the flush, as a decode loop does. The batch keeps them (and claims its sets) until the
  // submit, so no two pending calls share a set; with neither, this test fails (151 of 320 elements wrong).
  // Between batches the sets are shared and rewritten, as for calls submitted at once.
  const auto device = device_with_budget(DeviceOptions{}.cache_budget_bytes);
  const Kernel k = get_kernel(kOnnxId, {.version = 1}, device);
  const HostTensor cos = f32({16, 8}), sin = f32({16, 8});
  const HostTensor x10 = f32({1, 2, 10, 16});
  std::vector<std::uint32_t> ids(10);
  for (std::uint32_t i = 0; i < 10; ++i) ids[i] = 15 - i;  // rows 15 .. 6: every token its own row
  const HostTensor pos10 = u32({1, 10}, ids);
  const auto dx = DeviceTensor::upload(x10, device), dcos = DeviceTensor::upload(cos, device),
             dsin = DeviceTensor::upload(sin, device), dpos = DeviceTensor::upload(pos10, device);
  auto inputs = [&](const DeviceTensor& x, std::int64_t s) {
    return Inputs{{"x", s == 10 ? x : introspect::view(x, DType::kFloat32, {1, 2, 9, 16})},
                  {"cos", dcos}, {"sin", dsin},
                  {"positionIds", s == 10 ? dpos : introspect::view(dpos, DType::kUInt32, {1, 9})}};
  };
  // Host copies of what the 9-token views see (the first 288 floats and 9 ids), for the reference.
  HostTensor x9{DType::kFloat32, {1, 2, 9, 16}, {x10.data.begin(), x10.data.begin() + 2 * 9 * 16 * 4}};
  const HostTensor pos9 = i64({1, 9}, {15, 14, 13, 12, 11, 10, 9, 8, 7});
  const HostTensor pos10_64 = i64({1, 10}, {15, 14, 13, 12, 11, 10, 9, 8, 7, 6});

  for (int round = 0; round < 3; ++round) {
    Batch batch(device);
    std::vector<std::pair<std::int64_t, DeviceTensor>> results;
    for (std::int64_t s : {9, 10, 9, 10, 10, 9}) {
      // A call whose output feeds a second call of the same length, then is dropped.
      const DeviceTensor first = batch.record(k, inputs(dx, s)).at("y");
      const DeviceTensor second = batch.record(k, inputs(first, s)).at("y");
      results.emplace_back(s, second);
    }
    batch.flush();
    for (const auto& [s, y] : results) {
      const HostTensor& x = s == 10 ? x10 : x9;
      const HostTensor& pos = s == 10 ? pos10_64 : pos9;
      const HostTensor once = as_f32(reference::rotary_embedding_onnx(x, cos, sin, &pos, {}), x.shape);
      const auto cmp = reference::compare(introspect::view(y, DType::kFloat32, x.shape).read(),
                                          reference::rotary_embedding_onnx(once, cos, sin, &pos, {}), kExact);
      EXPECT_TRUE(cmp.ok()) << "round " << round << ", " << s << " tokens: " << cmp.summary();
    }
  }
  // Calls submitted at once on the same buffers afterwards, with the sets the batches left behind.
  for (std::int64_t s : {10, 9}) {
    const HostTensor& x = s == 10 ? x10 : x9;
    const HostTensor& pos = s == 10 ? pos10_64 : pos9;
    const auto cmp = reference::compare(introspect::view(k(inputs(dx, s)).at("y"), DType::kFloat32, x.shape).read(),
                                        reference::rotary_embedding_onnx(x, cos, sin, &pos, {}), kExact);
    EXPECT_TRUE(cmp.ok()) << s << " tokens: " << cmp.summary();
  }
}

TEST(Batch, TheCacheBudgetHoldsWhileRecordingAndAfterTheFlush) {
  // 256 KiB holds no compiled pipeline (512 KiB each): nothing compiled stays cached, the batch keeps what
  // its calls use (not counted: held, like a caller's tensors), and the cache stays within its budget. The
  // batch compiles each of its programs once (before: once per record, 40): a program is keyed by what the
  // template reads, not by the sequence length (docs/kernel-conventions.md "Program keys"), so ai.onnx's
  // calls use 7 (the default WORKGROUP_SIZE and the 6 values 32 + i), com.microsoft's 1.
  const std::uint64_t budget = 256 * 1024;
  const auto device = device_with_budget(budget);
  const Kernel onnx = get_kernel(kOnnxId, {.version = 1}, device);
  const Kernel ms = get_kernel(kMsId, {.version = 1}, device);
  const HostTensor cos = f32({512, 8}), sin = f32({512, 8});
  Batch batch(device);
  struct Expected {
    DeviceTensor y;
    std::vector<double> values;
  };
  std::vector<Expected> expected;
  for (std::int64_t i = 1; i <= 20; ++i) {
    const HostTensor x = f32({1, 2, i * 7, 16}), pos = positions({1, i * 7}, i * 7);
    const Attributes tunables = i % 3 == 0 ? Attributes{{"WORKGROUP_SIZE", std::int64_t{32 + i}}} : Attributes{};
    expected.push_back({batch.record(onnx, {{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}, {}, tunables).at("y"),
                        reference::rotary_embedding_onnx(x, cos, sin, &pos, {})});
    const HostTensor xm = f32({1, i, 32}), c = f32({i + 3, 8}), s = f32({i + 3, 8}), off = i64({1}, {3});
    reference::RotaryAttributes attrs;
    attrs.num_heads = 2;
    expected.push_back({batch.record(ms, {{"x", xm}, {"cos", c}, {"sin", s}, {"positionIds", off}}, {{"num_heads", std::int64_t{2}}}).at("y"),
                        reference::rotary_embedding_ms(xm, off, c, s, attrs)});
    ASSERT_LE(device->cache_stats().cached_bytes, budget) << "after record " << i;
  }
  batch.flush();
  const CacheStats st = device->cache_stats();
  EXPECT_LE(st.cached_bytes, budget);
  EXPECT_EQ(st.compilations, 8u);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto cmp = reference::compare(expected[i].y.read(), expected[i].values, kExact);
    EXPECT_TRUE(cmp.ok()) << "call " << i << ": " << cmp.summary();
  }
  EXPECT_LE(device->cache_stats().cached_bytes, budget);
}

TEST(Batch, SeveralThreadsRecordIntoOneBatch) {
  // Four threads each record a chain of 8 calls into one batch (their records interleave); one flush.
  const Kernel& onnx = onnx_kernel();
  const Rotary in;
  Batch batch(onnx.device());
  std::vector<HostTensor> xs;
  for (unsigned t = 0; t < 4; ++t) xs.push_back(random_f32({2, 4, 6, 16}, 200 + t));
  std::vector<std::vector<DeviceTensor>> chains(4);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      chains[t].push_back(batch.record(onnx, in.onnx(xs[t])).at("y"));
      for (int i = 1; i < 8; ++i) chains[t].push_back(batch.record(onnx, in.onnx(chains[t].back())).at("y"));
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(batch.size(), 32u);
  batch.flush();
  for (unsigned t = 0; t < 4; ++t) {
    HostTensor previous = xs[t];
    for (int i = 0; i < 8; ++i) {
      const HostTensor y = chains[t][i].read();
      const auto cmp = reference::compare(y, in.onnx_ref(previous), kF32);
      EXPECT_TRUE(cmp.ok()) << "thread " << t << " step " << i << ": " << cmp.summary();
      previous = y;
    }
  }
}

TEST(Batch, OtherThreadsUseTheDeviceBetweenRecords) {
  // An unflushed batch does not hold the device: another thread's calls and reads go ahead (submitted
  // before the batch), and a batch may take what they wrote.
  const Kernel& onnx = onnx_kernel();
  const Rotary in;
  Batch batch(onnx.device());
  const DeviceTensor y1 = batch.record(onnx, in.onnx(in.x)).at("y");
  auto other = std::async(std::launch::async, [&] {
    const DeviceTensor z = onnx(in.onnx(in.x)).at("y");
    const auto cmp = reference::compare(z.read(), in.onnx_ref(in.x), kF32);
    EXPECT_TRUE(cmp.ok()) << cmp.summary();
    return z;
  });
  ASSERT_EQ(other.wait_for(std::chrono::seconds(60)), std::future_status::ready) << "a call waited for the batch";
  const DeviceTensor z = other.get();
  const DeviceTensor y2 = batch.record(onnx, in.onnx(z)).at("y");
  batch.flush();
  const HostTensor first = y1.read();
  EXPECT_TRUE(reference::compare(first, in.onnx_ref(in.x), kF32).ok());
  const auto cmp = reference::compare(y2.read(), in.onnx_ref(z.read()), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

}  // namespace
}  // namespace wgk::testing
