// ABI conformance: each value or layout in src/gpu/abi.h, and each struct src/gpu passes to Dawn, is checked
// against the linked binary here. A wrong value fails a test instead of silently enabling something else.
// These tests include <webgpu/webgpu.h> on purpose (they test the binding itself).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "gpu/abi.h"
#include "gpu/device.h"
#include "wgk/error.h"

namespace wgk::gpu {
namespace {

WGPUAdapter first_adapter(WGPUInstance instance) {
  WGPURequestAdapterOptions options{};
  WGPUAdapter adapter = nullptr;
  WGPURequestAdapterCallbackInfo callback{};
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestAdapterStatus, WGPUAdapter a, WGPUStringView, void* out, void*) {
    *static_cast<WGPUAdapter*>(out) = a;
  };
  callback.userdata1 = &adapter;
  WGPUFutureWaitInfo info{wgpuInstanceRequestAdapter(instance, &options, callback), 0};
  EXPECT_EQ(wgpuInstanceWaitAny(instance, 1, &info, 5'000'000'000ull), WGPUWaitStatus_Success);
  return adapter;
}

// wgpuGetInstanceCapabilities writes the 24-byte {next, timedWaitAnyEnable, timedWaitAnyMaxCount} of abi.h and
// nothing past it (canary). Probe on lavapipe: enable = 1, max count = 64.
TEST(Abi, InstanceCapabilitiesLayout) {
  unsigned char bytes[48];
  std::memset(bytes, 0xAB, sizeof bytes);
  std::memset(bytes, 0, sizeof(WGPUChainedStruct*));  // nextInChain = null
  ASSERT_EQ(abi::wgpuGetInstanceCapabilities(reinterpret_cast<abi::InstanceCapabilities*>(bytes)),
            WGPUStatus_Success);
  abi::InstanceCapabilities caps;
  std::memcpy(&caps, bytes, sizeof caps);
  EXPECT_EQ(caps.timedWaitAnyEnable, 1u);
  EXPECT_GE(caps.timedWaitAnyMaxCount, 1u);
  for (size_t i = sizeof(abi::InstanceCapabilities); i < sizeof bytes; ++i) EXPECT_EQ(bytes[i], 0xAB) << "byte " << i;
}

// The binary honours timedWaitAnyEnable at the offset abi.h gives: off -> a timed wait is refused (Error),
// on -> accepted. If the layout were wrong, both instances would behave the same.
TEST(Abi, InstanceDescriptorTimedWaitAny) {
  for (bool enable : {false, true}) {
    WGPUInstance instance = abi::create_instance(enable);
    ASSERT_NE(instance, nullptr);
    WGPURequestAdapterOptions options{};
    WGPURequestAdapterCallbackInfo callback{};
    callback.mode = WGPUCallbackMode_WaitAnyOnly;
    callback.callback = [](WGPURequestAdapterStatus, WGPUAdapter a, WGPUStringView, void*, void*) {
      if (a) wgpuAdapterRelease(a);
    };
    WGPUFutureWaitInfo info{wgpuInstanceRequestAdapter(instance, &options, callback), 0};
    const WGPUWaitStatus status = wgpuInstanceWaitAny(instance, 1, &info, 1'000'000'000ull);
    EXPECT_EQ(status, enable ? WGPUWaitStatus_Success : WGPUWaitStatus_Error) << "timedWaitAnyEnable=" << enable;
    if (status != WGPUWaitStatus_Success) wgpuInstanceWaitAny(instance, 1, &info, 0);  // drain the callback
    wgpuInstanceRelease(instance);
  }
}

// wgpuAdapterGetLimits writes exactly sizeof(WGPULimits) = 152 bytes (canary after it untouched) and the
// fields we read hold plausible values: WebGPU's minimum guaranteed limits (spec §3.6.2 "Limits") are
// maxComputeWorkgroupsPerDimension >= 65535, maxComputeInvocationsPerWorkgroup >= 256,
// maxStorageBufferBindingSize >= 128 MiB, maxBufferSize >= 256 MiB, minStorageBufferOffsetAlignment a power of 2 <= 256.
TEST(Abi, LimitsSizeAndValues) {
  WGPUInstance instance = abi::create_instance(true);
  WGPUAdapter adapter = first_adapter(instance);
  ASSERT_NE(adapter, nullptr);
  alignas(8) unsigned char bytes[abi::kLimitsSize + 64];
  std::memset(bytes, 0xCD, sizeof bytes);
  std::memset(bytes, 0, sizeof(WGPUChainedStruct*));
  ASSERT_EQ(wgpuAdapterGetLimits(adapter, reinterpret_cast<WGPULimits*>(bytes)), WGPUStatus_Success);
  for (size_t i = abi::kLimitsSize; i < sizeof bytes; ++i) EXPECT_EQ(bytes[i], 0xCD) << "canary byte " << i;
  WGPULimits limits;
  std::memcpy(&limits, bytes, sizeof limits);
  EXPECT_GE(limits.maxComputeWorkgroupsPerDimension, 65535u);
  EXPECT_LT(limits.maxComputeWorkgroupsPerDimension, 1u << 31);
  EXPECT_GE(limits.maxComputeInvocationsPerWorkgroup, 256u);
  EXPECT_LE(limits.maxComputeInvocationsPerWorkgroup, 65536u);
  EXPECT_GE(limits.maxComputeWorkgroupSizeX, 256u);
  EXPECT_GE(limits.maxComputeWorkgroupSizeZ, 64u);
  EXPECT_GE(limits.maxStorageBufferBindingSize, 128ull << 20);
  EXPECT_GE(limits.maxBufferSize, 256ull << 20);
  EXPECT_GE(limits.maxBufferSize, limits.maxStorageBufferBindingSize);
  EXPECT_GE(limits.maxBindGroups, 4u);
  EXPECT_GE(limits.maxStorageBuffersPerShaderStage, 8u);
  EXPECT_TRUE(limits.minStorageBufferOffsetAlignment != 0 &&
              (limits.minStorageBufferOffsetAlignment & (limits.minStorageBufferOffsetAlignment - 1)) == 0 &&
              limits.minStorageBufferOffsetAlignment <= 256);
  wgpuAdapterRelease(adapter);
  wgpuInstanceRelease(instance);
}

// WGPUAdapterInfo: strings and enums land in the fields we read. Backend must be a known value (Vulkan 6 on
// lavapipe/NVIDIA), adapter type 1..4, the device name non-empty.
TEST(Abi, AdapterInfoFields) {
  WGPUInstance instance = abi::create_instance(true);
  WGPUAdapter adapter = first_adapter(instance);
  ASSERT_NE(adapter, nullptr);
  WGPUAdapterInfo info{};
  ASSERT_EQ(wgpuAdapterGetInfo(adapter, &info), WGPUStatus_Success);
  EXPECT_GT(info.device.length, 0u);
  EXPECT_TRUE(info.backendType == WGPUBackendType_Vulkan || info.backendType == WGPUBackendType_OpenGLES)
      << info.backendType;
  EXPECT_GE(info.adapterType, WGPUAdapterType_DiscreteGPU);
  EXPECT_LE(info.adapterType, WGPUAdapterType_Unknown);
  EXPECT_LE(info.subgroupMinSize, info.subgroupMaxSize);
  EXPECT_LE(info.subgroupMaxSize, 128u);
  wgpuAdapterInfoFreeMembers(info);
  wgpuAdapterRelease(adapter);
  wgpuInstanceRelease(instance);
}

// The adapter's feature list decodes with the binary numbering: the three we use, if present, have the
// values of abi.h, and 0x12 (CoreFeaturesAndLimits in the binary) is not mistaken for subgroups.
TEST(Abi, FeatureNamesOfBinary) {
  EXPECT_EQ(abi::feature_name(0x0A), "shader-f16");
  EXPECT_EQ(abi::feature_name(0x03), "timestamp-query");
  EXPECT_EQ(abi::feature_name(0x11), "subgroups");
  EXPECT_EQ(abi::feature_name(0x12), "core-features-and-limits");
  EXPECT_NE(WGPUFeatureName_ShaderF16, abi::kShaderF16) << "header and binary agree now: abi.h may be stale";
}

// ShaderF16 = 0x0A: a device requested with it compiles `enable f16;`. Skips where the adapter lacks the
// feature (the H200 under Vulkan): a capability to report, not a failure.
TEST(Abi, ShaderF16EnablesF16) {
  Device device;
  if (!device.features().shader_f16) GTEST_SKIP() << device.adapter_info().device << " has no shader-f16";
  const char* wgsl = R"(enable f16;
@group(0) @binding(0) var<storage, read_write> y : array<f16>;
@compute @workgroup_size(1) fn main() { y[0] = y[0] * 2.0h; })";
  EXPECT_NO_THROW(device.create_compute_pipeline(wgsl, "f16"));
}

// Without the feature, `enable f16;` must fail: proves the previous test passes because of 0x0A, not always.
TEST(Abi, F16NeedsTheFeature) {
  WGPUInstance instance = abi::create_instance(true);
  WGPUAdapter adapter = first_adapter(instance);
  ASSERT_NE(adapter, nullptr);
  WGPUDeviceDescriptor descriptor{};  // no features
  WGPUDevice device = nullptr;
  WGPURequestDeviceCallbackInfo callback{};
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestDeviceStatus, WGPUDevice d, WGPUStringView, void* out, void*) {
    *static_cast<WGPUDevice*>(out) = d;
  };
  callback.userdata1 = &device;
  WGPUFutureWaitInfo info{wgpuAdapterRequestDevice(adapter, &descriptor, callback), 0};
  ASSERT_EQ(wgpuInstanceWaitAny(instance, 1, &info, 5'000'000'000ull), WGPUWaitStatus_Success);
  ASSERT_NE(device, nullptr);
  EXPECT_FALSE(wgpuDeviceHasFeature(device, abi::kShaderF16));
  wgpuDeviceRelease(device);
  wgpuAdapterRelease(adapter);
  wgpuInstanceRelease(instance);
}

// QueueWorkDone callback: the binary passes (status, message, userdata1, userdata2) as 0.5.11 declares, not
// (status, userdata1, userdata2) as the bun-webgpu header does (abi.h). Wrong -> userdata pointers differ.
TEST(Abi, QueueWorkDoneUserdata) {
  Device device;  // the public path (Device::wait) must succeed too
  EXPECT_NO_THROW(device.wait(std::chrono::seconds(5)));
  WGPUInstance instance = abi::create_instance(true);
  WGPUAdapter adapter = first_adapter(instance);
  ASSERT_NE(adapter, nullptr);
  WGPUDeviceDescriptor descriptor{};
  WGPUDevice raw = nullptr;
  WGPURequestDeviceCallbackInfo callback{};
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestDeviceStatus, WGPUDevice d, WGPUStringView, void* out, void*) {
    *static_cast<WGPUDevice*>(out) = d;
  };
  callback.userdata1 = &raw;
  WGPUFutureWaitInfo info{wgpuAdapterRequestDevice(adapter, &descriptor, callback), 0};
  ASSERT_EQ(wgpuInstanceWaitAny(instance, 1, &info, 5'000'000'000ull), WGPUWaitStatus_Success);
  WGPUQueue queue = wgpuDeviceGetQueue(raw);
  int marker1 = 0, marker2 = 0;
  struct Seen {
    void* u1 = nullptr;
    void* u2 = nullptr;
    int status = 0;
  };
  static Seen seen;
  WGPUQueueWorkDoneCallbackInfo done{};
  done.mode = WGPUCallbackMode_WaitAnyOnly;
  done.callback = [](WGPUQueueWorkDoneStatus status, WGPUStringView, void* u1, void* u2) { seen = {u1, u2, status}; };
  done.userdata1 = &marker1;
  done.userdata2 = &marker2;
  WGPUFutureWaitInfo wait{wgpuQueueOnSubmittedWorkDone(queue, done), 0};
  ASSERT_EQ(wgpuInstanceWaitAny(instance, 1, &wait, 5'000'000'000ull), WGPUWaitStatus_Success);
  EXPECT_EQ(seen.u1, &marker1);
  EXPECT_EQ(seen.u2, &marker2);
  EXPECT_EQ(seen.status, WGPUQueueWorkDoneStatus_Success);
  wgpuQueueRelease(queue);
  wgpuDeviceRelease(raw);
  wgpuAdapterRelease(adapter);
  wgpuInstanceRelease(instance);
}

// TimestampQuery = 0x03 and WGPUQueryType_Timestamp = 2: a query set is valid on the device (no error), and
// timestamps around a dispatch are nonzero and non-decreasing (end >= begin, the second pass after the first).
TEST(Abi, TimestampQuerySet) {
  Device device;
  if (!device.features().timestamp_query) GTEST_SKIP() << device.adapter_info().device << " has no timestamp-query";
  TimestampQuery query = device.create_timestamp_query(2);
  ComputePipeline pipeline = device.create_compute_pipeline(R"(
@group(0) @binding(0) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id : vec3<u32>) {
  var acc = id.x;
  for (var i = 0u; i < 1000u; i++) { acc = acc * 1664525u + 1013904223u; }
  y[id.x] = acc;
})",
                                                            "busy");
  Buffer y = device.create_buffer(4 * 64 * 64, BufferUsage::kStorage);
  const BindGroupEntry entries[] = {{0, &y}};
  BindGroup group = device.create_bind_group(pipeline, entries);
  const Dispatch passes[] = {{&pipeline, &group, 64, 1, 1}, {&pipeline, &group, 64, 1, 1}};
  device.submit(passes, &query);
  const std::vector<uint64_t> t = device.read_timestamps(query);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_LE(t[0], t[1]);
  EXPECT_LE(t[1], t[2]);
  EXPECT_LE(t[2], t[3]);
  // Not t[3] > t[0]: Dawn quantizes timestamps to 65,536 ns, and on the H200 both passes can end inside one
  // quantum (seen). Zero is what a wrong query type or feature value gives.
  EXPECT_GT(t[0], 0u) << "timestamps are zero: the query type or feature is wrong";
}

}  // namespace
}  // namespace wgk::gpu
