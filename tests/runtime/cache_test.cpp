// The device cache (runtime/cache.h): bounded by its budget under ever new shapes, a new sequence length
// renders and compiles nothing, nothing cached keeps a caller's dropped buffer alive, and the LRU order
// across kinds. Expected outputs come from the CPU reference in double precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "call_helpers.h"
#include "gpu/device.h"
#include "reference/compare.h"
#include "reference/rms_normalization.h"
#include "reference/rotary_embedding.h"
#include "runtime/cache.h"

namespace wgk::testing {
namespace {

// Inputs are multiples of 0.25 in [-1.5, 1.5] and caches of 0.25 * k: products and sums of such values
// are exact in f32, so the GPU must match the double-precision reference to the last bit.
constexpr reference::Tolerance kExact{0, 0};


// ai.onnx prefill of `s` tokens: x (1, 2, s, 16), caches (rows, 8), position ids 0 .. s-1.
struct Prefill {
  Kernel kernel;
  HostTensor cos, sin;
  explicit Prefill(const std::shared_ptr<Device>& device, std::int64_t rows = 256)
      : kernel(get_kernel(kOnnxId, {.version = 1}, device)), cos(f32({rows, 8})), sin(f32({rows, 8})) {}
  // Calls with `s` tokens and checks y against the reference.
  void check(std::int64_t s, const Attributes& tunables = {}) const {
    const HostTensor x = f32({1, 2, s, 16}), pos = positions({1, s}, s);
    Outputs out = kernel.call({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}, {}, tunables, nullptr);
    const auto cmp = reference::compare(out.at("y").read(), reference::rotary_embedding_onnx(x, cos, sin, &pos, {}), kExact);
    EXPECT_TRUE(cmp.ok()) << "s = " << s << ": " << cmp.summary();
  }
};

TEST(DeviceCache, AllocationSizesAreQuarterOctaves) {
  // 2^k * (1, 1.25, 1.5, 1.75), at least 256: hand-computed.
  EXPECT_EQ(runtime::allocation_size(1), 256u);
  EXPECT_EQ(runtime::allocation_size(256), 256u);
  EXPECT_EQ(runtime::allocation_size(257), 320u);    // 256 + 64
  EXPECT_EQ(runtime::allocation_size(1000), 1024u);  // 512, 640, 768, 896, 1024
  EXPECT_EQ(runtime::allocation_size(1025), 1280u);  // 1024 + 256
  EXPECT_EQ(runtime::allocation_size(3000), 3072u);  // 2048, 2560, 3072
  EXPECT_EQ(runtime::allocation_size((1u << 20) + 1), 1310720u);  // 1.25 MiB
  EXPECT_EQ(runtime::allocation_size(std::uint64_t{64} << 20), std::uint64_t{64} << 20);
}

TEST(DeviceCache, AnEvictedProgramTakesItsPlansWithItWhenNextUsed) {
  // Budget for one program and one plan: a second program evicts the least recently used entry, the
  // first program, so its plan must be planned again (find_plan reports a miss and drops it).
  constexpr std::uint64_t kOne = runtime::DeviceCache::kPipelineBytes + 64 * 1024;
  runtime::DeviceCache cache(kOne + 8 * 1024);
  auto a = cache.program("k", "a", "a", [] { return std::string("// a"); });
  auto plan = std::make_shared<runtime::CachedPlan>();
  plan->plan = std::make_shared<const plan::Plan>();
  plan->programs.push_back(a);
  cache.insert_plan("p", plan);
  a.reset();
  std::vector<std::shared_ptr<runtime::Program>> programs;
  ASSERT_NE(cache.find_plan("p", &programs), nullptr);  // touched, and `a` with it (a plan hit uses its programs)
  ASSERT_EQ(programs.size(), 1u);
  programs.clear();
  auto b = cache.program("k", "b", "b", [] { return std::string("// b"); });
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.programs.entries, 1u) << "program a should have been evicted";
  EXPECT_LE(s.cached_bytes, s.budget_bytes);
  EXPECT_EQ(cache.find_plan("p", &programs), nullptr) << "a plan whose program is gone must be made again";
  EXPECT_EQ(cache.stats().plans.entries, 0u);
  EXPECT_EQ(s.renders, 2u);
}

TEST(DeviceCache, ABindGroupSetOfAnEvictedProgramIsNotCached) {
  // A set holds its programs (the pipelines its dispatches use). Made for a program the budget has
  // evicted already, it would never be found again (program ids are never reused) yet hold that
  // program: it is not cached. Budget for one program: `b` evicts `a`.
  runtime::DeviceCache cache(runtime::DeviceCache::kPipelineBytes + 64 * 1024);
  auto a = cache.program("k", "a", "a", [] { return std::string("// a"); });
  auto b = cache.program("k", "b", "b", [] { return std::string("// b"); });
  ASSERT_TRUE(a->evicted);
  ASSERT_FALSE(b->evicted);
  auto of_a = std::make_shared<runtime::BindGroupSet>();
  of_a->programs.push_back(a);
  cache.insert_bind_groups("set a", of_a, {});
  auto of_b = std::make_shared<runtime::BindGroupSet>();
  of_b->programs.push_back(b);
  cache.insert_bind_groups("set b", of_b, {});
  EXPECT_EQ(cache.find_bind_groups("set a"), nullptr);
  EXPECT_EQ(cache.find_bind_groups("set b"), of_b);
  EXPECT_EQ(cache.stats().bind_groups.entries, 1u);
  a.reset();
  of_a.reset();
  cache.release_evicted();
}

TEST(DeviceCache, NewSequenceLengthsRenderAndCompileNothing) {
  const auto device = device_with_budget(DeviceOptions{}.cache_budget_bytes);
  const Prefill p(device);
  p.check(1);
  const CacheStats first = device->cache_stats();
  EXPECT_EQ(first.renders, 1u);
  EXPECT_EQ(first.compilations, 1u);
  for (std::int64_t s = 2; s <= 48; ++s) p.check(s);
  const CacheStats after = device->cache_stats();
  EXPECT_EQ(after.renders, first.renders) << "a new sequence length rendered a template";
  EXPECT_EQ(after.compilations, first.compilations) << "a new sequence length compiled a pipeline";
  EXPECT_EQ(after.plans_made, first.plans_made + 47);
  EXPECT_EQ(after.evictions, 0u);
  // A repeat of an earlier length is a plan-cache hit.
  p.check(17);
  EXPECT_EQ(device->cache_stats().plans_made, after.plans_made);
  // A tunable the template reads (WORKGROUP_SIZE) is a new program: rendered and compiled once.
  p.check(5, {{"WORKGROUP_SIZE", std::int64_t{64}}});
  p.check(9, {{"WORKGROUP_SIZE", std::int64_t{64}}});
  EXPECT_EQ(device->cache_stats().renders, first.renders + 1);
  EXPECT_EQ(device->cache_stats().compilations, first.compilations + 1);
}

TEST(DeviceCache, PlansKeepToTheirShareOfTheBudgetLeastRecentlyUsedFirst) {
  // Budget 1 MiB: plans may hold 1 MiB / 8 = 128 KiB (DeviceCache::kPlanShare), at least 2 KiB each
  // (kPlanBaseBytes), so at most 64 of them; 200 new lengths must evict plans but neither the program
  // (one render, one compilation) nor results. Length 1, used again before every new length, stays.
  const std::uint64_t budget = 1 << 20;
  const auto device = device_with_budget(budget);
  const Prefill p(device);
  p.check(1);
  for (std::int64_t s = 2; s <= 200; ++s) {
    p.check(s);
    p.check(1);
    const CacheStats st = device->cache_stats();
    ASSERT_LE(st.plans.bytes, budget / 8) << "after length " << s;
    ASSERT_LE(st.plans.entries, 64u) << "after length " << s;
  }
  const CacheStats st = device->cache_stats();
  EXPECT_EQ(st.renders, 1u);
  EXPECT_EQ(st.compilations, 1u);
  EXPECT_EQ(st.plans_made, 200u) << "length 1 was planned again: the most recently used plan was evicted";
  EXPECT_GE(st.evictions, 200u - 64u);
}

TEST(DeviceCache, CachedBytesStayUnderTheBudgetAndResultsStayRight) {
  // 256 KiB holds no compiled pipeline (512 KiB each): every call compiles again, and every output is
  // still right. Shapes, tunables and both packages vary; after each call the cache is within budget.
  const std::uint64_t budget = 256 * 1024;
  const auto device = device_with_budget(budget);
  const Prefill p(device, 512);
  const Kernel ms = get_kernel(kMsId, {.version = 1}, device);
  for (std::int64_t i = 1; i <= 40; ++i) {
    p.check(i * 7, i % 3 == 0 ? Attributes{{"WORKGROUP_SIZE", std::int64_t{32 + i}}} : Attributes{});
    const HostTensor x = f32({1, i, 32}), c = f32({i + 3, 8}), s = f32({i + 3, 8}), off = i64({1}, {3});
    Outputs out = ms({{"x", x}, {"cos", c}, {"sin", s}, {"positionIds", off}}, {{"num_heads", std::int64_t{2}}});
    reference::RotaryAttributes attrs;
    attrs.num_heads = 2;
    const auto cmp = reference::compare(out.at("y").read(), reference::rotary_embedding_ms(x, off, c, s, attrs), kExact);
    EXPECT_TRUE(cmp.ok()) << "i = " << i << ": " << cmp.summary();
    const CacheStats st = device->cache_stats();
    ASSERT_LE(st.cached_bytes, budget) << "after call " << i;
    EXPECT_EQ(st.budget_bytes, budget);
  }
  const CacheStats st = device->cache_stats();
  EXPECT_GT(st.evictions, 0u);
  EXPECT_GE(st.compilations, 80u) << "no pipeline fits the budget, so each call compiles";
}

TEST(DeviceCache, NothingCachedKeepsADroppedBufferAlive) {
  // With budget 0 nothing is cached: once the caller drops its outputs, no storage buffer is left.
  const auto device = device_with_budget(0);
  const Prefill p(device);
  for (std::int64_t s = 1; s <= 12; ++s) p.check(s);
  CacheStats st = device->cache_stats();
  EXPECT_EQ(st.cached_bytes, 0u);
  EXPECT_EQ(st.buffers_alive, 0u);
  EXPECT_EQ(st.buffer_bytes_alive, 0u);
  EXPECT_EQ(st.plans_made, 12u);
  // A held output stays alive (and readable); dropping it frees it.
  const HostTensor x = f32({1, 2, 3, 16}), pos = positions({1, 3}, 3);
  std::optional<Outputs> held = p.kernel({{"x", x}, {"cos", p.cos}, {"sin", p.sin}, {"positionIds", pos}});
  EXPECT_EQ(device->cache_stats().buffers_alive, 1u);
  const auto cmp = reference::compare(held->at("y").read(), reference::rotary_embedding_onnx(x, p.cos, p.sin, &pos, {}), kExact);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
  held.reset();
  EXPECT_EQ(device->cache_stats().buffers_alive, 0u);
}

TEST(DeviceCache, AProgramInUseThroughACachedPlanIsKept) {
  // The fresh-clone tester's lru.cpp, smaller: RMSNormalization at one shape every iteration (a plan hit each
  // time, its program used through the plan) between SkipSimplifiedLayerNormalization calls of ever new row
  // counts (new plans, pooled buffers of new sizes: up to 3 x 512 KiB a call) that fill a 4 MiB budget. Two
  // programs are ever in use (each call here runs one pass of the variant CallInfo names), so two compilations
  // hold for the whole run; before, a plan hit did not count as a use of its program, which aged out of the LRU
  // under the buffers and was compiled again (the tester: 76 compilations in 1,500 iterations).
  const std::uint64_t budget = 4 << 20;
  const auto device = device_with_budget(budget);
  const Kernel rms = get_kernel("webgpu-kernels/ai.onnx.RMSNormalization", {.version = 1}, device);
  const Kernel skip = get_kernel("webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization", {.version = 1}, device);
  constexpr std::int64_t kHidden = 256;
  const HostTensor gamma = f32({kHidden}), xa = f32({4, kHidden});
  std::set<std::string> variants;
  for (int i = 0; i < 300; ++i) {
    const std::int64_t rows = 1 + (i * 37) % 500;
    const HostTensor x = f32({rows, kHidden});
    CallInfo info;
    (void)skip.call({{"x", x}, {"skip", x}, {"gamma", gamma}}, {}, {}, &info);
    variants.insert("skip/" + info.variant);
    (void)rms.call({{"x", xa}, {"scale", gamma}}, {}, {}, &info);
    variants.insert("rms/" + info.variant);
    ASSERT_LE(device->cache_stats().cached_bytes, budget) << "after iteration " << i;
  }
  std::string chosen;
  for (const auto& v : variants) chosen += " " + v;
  ASSERT_EQ(variants.size(), 2u) << "one variant a kernel:" << chosen;
  const CacheStats st = device->cache_stats();
  EXPECT_GT(st.evictions, 0u) << "the budget must be filled for the test to mean anything";
  EXPECT_EQ(st.compilations, 2u) << "variants:" << chosen << "; evictions " << st.evictions;
}

TEST(DeviceCache, ProgramsSurvivePooledBuffersFillingTheBudget) {
  // The outside user's soak at a 16 MiB budget: tensors of 3-5 MB pooled after each call filled the one LRU,
  // so the programs (not used since) were evicted and about half the calls compiled again. Pooled buffers keep
  // to half the budget (DeviceCache::kBufferShare) and go first past the budget: 8 programs (4 MiB and a bit)
  // and their plans stay however many buffers of new sizes come back, and so do 8 more programs; a buffer over
  // the pool's share is not pooled at all.
  constexpr std::uint64_t kBudget = 16 << 20, kMiB = 1 << 20;
  runtime::DeviceCache cache(kBudget);
  gpu::Device gpu;
  std::vector<std::shared_ptr<runtime::CachedPlan>> plans;
  for (int i = 0; i < 8; ++i) {
    const std::string name = "program " + std::to_string(i);
    auto plan = std::make_shared<runtime::CachedPlan>();
    plan->plan = std::make_shared<const plan::Plan>();
    plan->programs.push_back(cache.program("k", name, name, [&] { return "// " + name; }));
    cache.insert_plan("plan " + std::to_string(i), plan);
  }
  ASSERT_EQ(cache.stats().programs.entries, 8u);
  // 24 buffers of 3 .. 5 MiB (every size class between: 3, 3.5, 4, 5 MiB), each taken and given back, as
  // outputs of calls that the caller dropped: 90 MiB pooled in all, more than five budgets.
  std::uint64_t given = 0, most_pooled = 0, most_cached = 0;
  for (int i = 0; i < 24; ++i) {
    const std::uint64_t bytes = 3 * kMiB + (i % 5) * (kMiB / 2) - 1000;  // 3 MiB - 1000 .. 5 MiB - 1000
    cache.give_back(cache.take_buffer(gpu, bytes, ~std::uint64_t{0}, "pooled"));
    given += runtime::allocation_size(bytes);
    const CacheStats st = cache.stats();
    most_pooled = std::max(most_pooled, st.pooled_buffers.bytes);
    most_cached = std::max(most_cached, st.cached_bytes);
  }
  cache.release_evicted();
  CacheStats st = cache.stats();
  ASSERT_GT(given, 5 * kBudget);
  EXPECT_LE(most_pooled, kBudget / 2) << "pooled buffers passed their share";
  EXPECT_LE(most_cached, kBudget);
  EXPECT_GT(st.pooled_buffers.entries, 0u) << "buffers under the pool's share are pooled";
  EXPECT_EQ(st.programs.entries, 8u) << "pooled buffers evicted programs";
  EXPECT_EQ(st.plans.entries, 8u) << "pooled buffers evicted plans";
  for (int i = 0; i < 8; ++i) {
    std::vector<std::shared_ptr<runtime::Program>> programs;
    EXPECT_NE(cache.find_plan("plan " + std::to_string(i), &programs), nullptr) << "plan " << i << " is gone";
  }
  EXPECT_EQ(st.renders, 8u);
  // A buffer over the pool's share (9 MiB, allocated as 10 MiB > 8 MiB) works as any other, and is released
  // when given back.
  const std::size_t pooled = st.pooled_buffers.entries, alive = st.buffers_alive;
  gpu::Buffer big = cache.take_buffer(gpu, 9 * kMiB, ~std::uint64_t{0}, "big");
  EXPECT_EQ(big.size(), 10 * kMiB);
  EXPECT_EQ(cache.stats().buffers_alive, alive + 1);
  cache.give_back(std::move(big));
  cache.release_evicted();
  st = cache.stats();
  EXPECT_EQ(st.pooled_buffers.entries, pooled) << "a buffer over the pool's share was pooled";
  EXPECT_EQ(st.buffers_alive, alive);
  EXPECT_EQ(st.programs.entries, 8u);
  // 8 programs more (16 in all, 8 MiB and a bit) pass the budget with the pool at its share: pooled buffers go
  // first, though the first 8 programs are older than every one of them.
  for (int i = 8; i < 16; ++i) {
    const std::string name = "program " + std::to_string(i);
    plans.push_back(std::make_shared<runtime::CachedPlan>());
    plans.back()->plan = std::make_shared<const plan::Plan>();
    plans.back()->programs.push_back(cache.program("k", name, name, [&] { return "// " + name; }));
    cache.insert_plan("plan " + std::to_string(i), plans.back());
  }
  st = cache.stats();
  EXPECT_EQ(st.programs.entries, 16u) << "a program went while buffers were pooled";
  EXPECT_EQ(st.plans.entries, 16u);
  EXPECT_LT(st.pooled_buffers.bytes, kBudget / 2) << "no pooled buffer went";
  EXPECT_LE(st.cached_bytes, kBudget);
  cache.clear();
}

TEST(DeviceCache, ATensorOverThePoolsShareIsRightAndNotPooled) {
  // Budget 1 MiB: the pool holds at most 512 KiB; y of 256 x 1024 float32 (1 MiB) is allocated per call and
  // released when dropped, and the result is the reference's.
  const auto device = device_with_budget(1 << 20);
  const Kernel rms = get_kernel("webgpu-kernels/ai.onnx.RMSNormalization", {.version = 1}, device);
  const HostTensor x = f32({256, 1024}), scale = f32({1024});
  for (int i = 0; i < 2; ++i) {
    const HostTensor y = rms({{"x", x}, {"scale", scale}}).at("y").read();
    // The float32 reduction and products: 1e-5 relative (the package's test.json derives it).
    const auto cmp = reference::compare(y, reference::rms_normalization(x, scale, {}).y, {1e-6, 1e-5});
    EXPECT_TRUE(cmp.ok()) << cmp.summary();
    const CacheStats st = device->cache_stats();
    EXPECT_EQ(st.buffers_alive, st.pooled_buffers.entries) << "call " << i << ": y is dropped, x was uploaded";
    EXPECT_LE(st.pooled_buffers.bytes, (1u << 20) / 2);
  }
}

TEST(DeviceCache, NearbyLengthsShareBuffersAndBindGroups) {
  // Default budget: the pool keeps buffers, and bind groups that bind them. Calls with device-resident
  // caches and outputs dropped at once reuse the same pooled buffers and bind groups; with the
  // uniforms rewritten per call every result is right.
  const auto device = device_with_budget(DeviceOptions{}.cache_budget_bytes);
  const Prefill p(device);
  const auto cos = DeviceTensor::upload(p.cos, device), sin = DeviceTensor::upload(p.sin, device);
  for (std::int64_t s : {9, 10, 9, 10, 9}) {  // x and y of 1,152 and 1,280 bytes: one size class (1,280)
    const HostTensor x = f32({1, 2, s, 16}), pos = positions({1, s}, s);
    Outputs out = p.kernel({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}});
    const auto cmp = reference::compare(out.at("y").read(), reference::rotary_embedding_onnx(x, p.cos, p.sin, &pos, {}), kExact);
    EXPECT_TRUE(cmp.ok()) << "s = " << s << ": " << cmp.summary();
  }
  const CacheStats st = device->cache_stats();
  // x and y take the two pooled buffers of that class in either order: at most two sets of bind groups.
  EXPECT_LE(st.bind_groups.entries, 2u) << "lengths in one size class share buffers and bind groups";
  EXPECT_EQ(st.plans.entries, 2u);
  // Every buffer alive is pooled (counted in the budget) or held by this test (cos, sin).
  EXPECT_EQ(st.buffers_alive, st.pooled_buffers.entries + 2);
}

}  // namespace
}  // namespace wgk::testing

namespace wgk::testing {
namespace {

TEST(DeviceCache, AnInputNameThatSpellsAnotherCallsKeyIsRefused) {
  // A fresh-clone tester's finding: names were not length-prefixed in the plan key, so an input named
  // "cos\0<dtype><rank><dims>positionIds" (and no cos, no positionIds) spelled the key of the ordinary
  // call x, cos (4, 4), sin, positionIds, hit its plan and crashed. It must be refused like any unknown name.
  const Kernel& k = onnx_kernel();
  const HostTensor x = f32({1, 1, 2, 8}), cs = f32({4, 4}), pos = positions({1, 2}, 4);
  k({{"x", x}, {"cos", cs}, {"sin", cs}, {"positionIds", pos}});  // the ordinary call: its plan is cached
  std::string name = std::string("cos") + '\0' + static_cast<char>(DType::kFloat32) + static_cast<char>(2);
  const std::int64_t four = 4;
  name.append(reinterpret_cast<const char*>(&four), sizeof four).append(reinterpret_cast<const char*>(&four), sizeof four);
  name += "positionIds";
  const HostTensor bogus = i64({1, 2}, {0, 1});
  const std::string message = error_of([&] { k({{"x", x}, {"sin", cs}, {name, bogus}}); });
  expect_has(message, {"unknown input"});
}

}  // namespace
}  // namespace wgk::testing

namespace wgk::testing {
namespace {

TEST(DeviceOptionsAdapter, AnIndexPastAnyAdapterIsNotFound) {
  // std::stoul threw std::out_of_range for 20 digits (a tester's finding): a wgk::Error now.
  DeviceOptions options;
  options.adapter = "99999999999999999999999";
  expect_has(error_of([&] { Device::create(options); }, ErrorKind::kNotFound), {"99999999999999999999999"});
}

}  // namespace
}  // namespace wgk::testing
