// The call path itself: plan and pipeline caches, chaining device tensors, the asynchronous form,
// concurrent calls. Expected values come from the CPU reference in double precision.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "call_helpers.h"
#include "reference/compare.h"
#include "reference/rotary_embedding.h"
#include "reference/rounding.h"
#include "wgk/introspect.h"

namespace wgk::testing {
namespace {


// f32 rotation of values |x| < 1 with |cos|, |sin| < 1: two products and a sum, each rounded once
// (2^-24 relative of |y| <= 2) -- 1e-6 absolute is a margin of ~4x over 3 roundings of 2^-24 * 2.
constexpr reference::Tolerance kF32{1e-6, 0};

struct RotaryInputs {
  HostTensor x = random_f32({2, 4, 6, 16}, 1);
  HostTensor cos = random_f32({32, 8}, 2);
  HostTensor sin = random_f32({32, 8}, 3);
  HostTensor pos = positions({2, 6}, 32);
  Inputs inputs() const { return {{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}; }
  std::vector<double> expected(const HostTensor& input) const {
    return reference::rotary_embedding_onnx(input, cos, sin, &pos, {});
  }
};

TEST(KernelCall, RepeatCallRendersAndCompilesNothing) {
  const RotaryInputs in;
  const Kernel& k = onnx_kernel();
  CallInfo first, second;
  k.call(in.inputs(), {{"interleaved", std::int64_t{1}}}, {}, &first);
  const wgk::CacheStats before = k.device()->cache_stats();
  Outputs out = k.call(in.inputs(), {{"interleaved", std::int64_t{1}}}, {}, &second);
  EXPECT_TRUE(second.plan_cached);
  EXPECT_EQ(second.variant, first.variant);
  const wgk::CacheStats after = k.device()->cache_stats();
  EXPECT_EQ(after.compilations, before.compilations) << "a repeat call compiled a pipeline";
  EXPECT_EQ(after.renders, before.renders) << "a repeat call rendered a template";
  EXPECT_EQ(after.plans_made, before.plans_made) << "a repeat call planned again";
  reference::RotaryAttributes attrs;
  attrs.interleaved = true;
  const auto cmp = reference::compare(out.at("y").read(),
                                      reference::rotary_embedding_onnx(in.x, in.cos, in.sin, &in.pos, attrs), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

// Inputs built from temporaries and kept for later calls own them (a TensorArg of an rvalue HostTensor):
// before, the map held pointers to destroyed tensors and the call read freed memory (std::bad_alloc).
TEST(KernelCall, InputsMadeOfTemporariesStayValid) {
  const RotaryInputs ref;
  const Inputs kept{{"x", random_f32({2, 4, 6, 16}, 1)}, {"cos", random_f32({32, 8}, 2)},
                    {"sin", random_f32({32, 8}, 3)}, {"positionIds", positions({2, 6}, 32)}};
  std::vector<std::byte> churn(1 << 20, std::byte{0x7f});  // reuse the freed memory, if any was freed
  for (int i = 0; i < 2; ++i) {
    Outputs out = onnx_kernel()(kept, {});
    const auto cmp = reference::compare(out.at("y").read(), ref.expected(ref.x), kF32);
    EXPECT_TRUE(cmp.ok()) << cmp.summary();
  }
}

TEST(KernelCall, OutputsChainWithoutCopies) {
  // y2 = RoPE(RoPE(x)): the second call takes the first call's DeviceTensor as x.
  const RotaryInputs in;
  const Kernel& k = onnx_kernel();
  Outputs first = k(in.inputs());
  Outputs second = k({{"x", first.at("y")}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", in.pos}});
  // The reference of the chain rotates the first output as the GPU stored it (f32).
  const HostTensor y1 = first.at("y").read();
  const auto cmp = reference::compare(second.at("y").read(), in.expected(y1), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
  const auto cmp1 = reference::compare(y1, in.expected(in.x), kF32);
  EXPECT_TRUE(cmp1.ok()) << cmp1.summary();
}

TEST(KernelCall, AsyncCallReadsEveryOutput) {
  const RotaryInputs in;
  auto future = onnx_kernel().call_async(in.inputs());
  auto host = future.get();
  ASSERT_EQ(host.count("y"), 1u);
  EXPECT_EQ(host.at("y").shape, in.x.shape);
  const auto cmp = reference::compare(host.at("y"), in.expected(in.x), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
}

TEST(KernelCall, ConcurrentCallsFromFourThreads) {
  const Kernel& k = onnx_kernel();
  std::vector<RotaryInputs> ins(4);
  for (unsigned t = 0; t < 4; ++t) ins[t].x = random_f32({2, 4, 6, 16}, 100 + t);
  std::vector<std::thread> threads;
  std::vector<std::string> failures(4);
  for (unsigned t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const auto cmp = reference::compare(k(ins[t].inputs()).at("y").read(), ins[t].expected(ins[t].x), kF32);
        if (!cmp.ok()) failures[t] = cmp.summary();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& f : failures) EXPECT_EQ(f, "");
}

TEST(KernelCall, DevicePositionIdsMustAlreadyBeNarrowed) {
  const RotaryInputs in;
  const Kernel& k = onnx_kernel();
  const auto device_pos = DeviceTensor::upload(in.pos, k.device());  // int64 on the device
  const std::string message = error_of([&] {
    k({{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", device_pos}});
  });
  EXPECT_NE(message.find("positionIds"), std::string::npos) << message;
  EXPECT_NE(message.find("uint32"), std::string::npos) << message;

  // The same positions narrowed by the caller (uint32) are accepted.
  std::vector<std::uint32_t> words;
  for (std::int64_t i = 0; i < in.pos.numel(); ++i) words.push_back(static_cast<std::uint32_t>(in.pos.element(i)));
  const auto narrowed = DeviceTensor::upload(HostTensor::from(DType::kUInt32, in.pos.shape, words), k.device());
  Outputs out = k({{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", narrowed}});
  const auto cmp = reference::compare(out.at("y").read(), in.expected(in.x), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();

  // A device-resident position past the cache (32 rows: valid rows 0..31) is read back and refused,
  // not gathered from a row that does not exist.
  words[3] = 32;
  const auto past = DeviceTensor::upload(HostTensor::from(DType::kUInt32, in.pos.shape, words), k.device());
  const std::string range = error_of([&] { k({{"x", in.x}, {"cos", in.cos}, {"sin", in.sin}, {"positionIds", past}}); });
  EXPECT_NE(range.find("positionIds[3] = 32"), std::string::npos) << range;
  EXPECT_NE(range.find("[0, 31]"), std::string::npos) << range;
}

TEST(KernelCall, TunableOverridesAreChecked) {
  const RotaryInputs in;
  const Kernel& k = onnx_kernel();
  // WORKGROUP_SIZE 64 is a valid override: same values, another pipeline.
  Outputs out = k.call(in.inputs(), {}, {{"WORKGROUP_SIZE", std::int64_t{64}}}, nullptr);
  const auto cmp = reference::compare(out.at("y").read(), in.expected(in.x), kF32);
  EXPECT_TRUE(cmp.ok()) << cmp.summary();
  const std::string unknown = error_of([&] { k.call(in.inputs(), {}, {{"TILE", std::int64_t{2}}}, nullptr); });
  EXPECT_NE(unknown.find("unknown tunable 'TILE'"), std::string::npos) << unknown;
  const std::string wrong = error_of([&] { k.call(in.inputs(), {}, {{"WORKGROUP_SIZE", std::string("big")}}, nullptr); });
  EXPECT_NE(wrong.find("WORKGROUP_SIZE"), std::string::npos) << wrong;
  EXPECT_NE(wrong.find("not an integer"), std::string::npos) << wrong;
}

}  // namespace
}  // namespace wgk::testing
