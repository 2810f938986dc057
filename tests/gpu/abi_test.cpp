// ABI conformance: each value or layout in src/gpu/abi.h, and each struct src/gpu passes to Dawn, is checked
// against the linked binary here. A wrong value fails a test instead of silently enabling something else.
// These tests include <webgpu/webgpu.h> on purpose (they test the binding itself).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "gpu/abi.h"
#include "gpu/device.h"
#include "gpu/device_state.h"
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
    const auto owned_instance = abi::create_instance(enable);
    WGPUInstance instance = owned_instance.get();
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
  }
}

// wgpuAdapterGetLimits writes exactly sizeof(WGPULimits) = 152 bytes (canary after it untouched) and the
// fields we read hold plausible values: WebGPU's minimum guaranteed limits (spec §3.6.2 "Limits") are
// maxComputeWorkgroupsPerDimension >= 65535, maxComputeInvocationsPerWorkgroup >= 256,
// maxStorageBufferBindingSize >= 128 MiB, maxBufferSize >= 256 MiB, minStorageBufferOffsetAlignment a power of 2 <= 256.
TEST(Abi, LimitsSizeAndValues) {
  const auto owned_instance = abi::create_instance(true);
  WGPUInstance instance = owned_instance.get();
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
}

// WGPUAdapterInfo: strings and enums land in the fields we read. Backend must be a known value (Vulkan 6 on
// lavapipe/NVIDIA), adapter type 1..4, the device name non-empty.
TEST(Abi, AdapterInfoFields) {
  const auto owned_instance = abi::create_instance(true);
  WGPUInstance instance = owned_instance.get();
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
  const auto owned_instance = abi::create_instance(true);
  WGPUInstance instance = owned_instance.get();
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
}

// QueueWorkDone callback: the binary passes (status, message, userdata1, userdata2) as 0.5.11 declares, not
// (status, userdata1, userdata2) as the bun-webgpu header does (abi.h). Wrong -> userdata pointers differ.
TEST(Abi, QueueWorkDoneUserdata) {
  Device device;  // the public path (Device::wait) must succeed too
  EXPECT_NO_THROW(device.wait(std::chrono::seconds(5)));
  const auto owned_instance = abi::create_instance(true);
  WGPUInstance instance = owned_instance.get();
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
}

// A few thousand cycles of work per invocation, so passes take measurable time.
constexpr const char* kBusyWgsl = R"(
@group(0) @binding(0) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id : vec3<u32>) {
  var acc = id.x;
  for (var i = 0u; i < 1000u; i++) { acc = acc * 1664525u + 1013904223u; }
  y[id.x] = acc;
})";

// TimestampQuery = 0x03 and WGPUQueryType_Timestamp = 2: a query set is valid on the device (no error), and
// timestamps around a dispatch are nonzero and non-decreasing (end >= begin, the second pass after the first).
TEST(Abi, TimestampQuerySet) {
  Device device;
  if (!device.features().timestamp_query) GTEST_SKIP() << device.adapter_info().device << " has no timestamp-query";
  TimestampQuery query = device.create_timestamp_query(2);
  ComputePipeline pipeline = device.create_compute_pipeline(kBusyWgsl, "busy");
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
  // Not t[3] > t[0]: where Dawn quantizes timestamps to 65,536 ns (its default; our devices turn that off,
  // but fall back to it if Dawn refuses, abi.h), both passes can end inside one quantum (seen on the H200
  // before the toggle was off). Zero is what a wrong query type or feature value gives.
  EXPECT_GT(t[0], 0u) << "timestamps are zero: the query type or feature is wrong";
}

// to_pairs reads WGPULimits at the offsets wgk::kWebGpuLimits' order and widths give (limits.cpp). Each
// member is set here, by its C name, to a distinct value (i * 1000 + 7, and 2^40 + i for the 64-bit ones,
// which a 32-bit read would truncate), so a row out of order, of the wrong width or misspelled reads
// another member's value or none.
TEST(Abi, LimitsTableReadsEveryWGPULimitsMember) {
  WGPULimits l{};
  uint64_t next = 0;
  auto u32 = [&] { return static_cast<uint32_t>(++next * 1000 + 7); };
  auto u64 = [&] { return (uint64_t{1} << 40) + ++next; };
  const std::vector<std::pair<std::string, uint64_t>> expected = {
      {"maxTextureDimension1D", l.maxTextureDimension1D = u32()},
      {"maxTextureDimension2D", l.maxTextureDimension2D = u32()},
      {"maxTextureDimension3D", l.maxTextureDimension3D = u32()},
      {"maxTextureArrayLayers", l.maxTextureArrayLayers = u32()},
      {"maxBindGroups", l.maxBindGroups = u32()},
      {"maxBindGroupsPlusVertexBuffers", l.maxBindGroupsPlusVertexBuffers = u32()},
      {"maxBindingsPerBindGroup", l.maxBindingsPerBindGroup = u32()},
      {"maxDynamicUniformBuffersPerPipelineLayout", l.maxDynamicUniformBuffersPerPipelineLayout = u32()},
      {"maxDynamicStorageBuffersPerPipelineLayout", l.maxDynamicStorageBuffersPerPipelineLayout = u32()},
      {"maxSampledTexturesPerShaderStage", l.maxSampledTexturesPerShaderStage = u32()},
      {"maxSamplersPerShaderStage", l.maxSamplersPerShaderStage = u32()},
      {"maxStorageBuffersPerShaderStage", l.maxStorageBuffersPerShaderStage = u32()},
      {"maxStorageTexturesPerShaderStage", l.maxStorageTexturesPerShaderStage = u32()},
      {"maxUniformBuffersPerShaderStage", l.maxUniformBuffersPerShaderStage = u32()},
      {"maxUniformBufferBindingSize", l.maxUniformBufferBindingSize = u64()},
      {"maxStorageBufferBindingSize", l.maxStorageBufferBindingSize = u64()},
      {"minUniformBufferOffsetAlignment", l.minUniformBufferOffsetAlignment = u32()},
      {"minStorageBufferOffsetAlignment", l.minStorageBufferOffsetAlignment = u32()},
      {"maxVertexBuffers", l.maxVertexBuffers = u32()},
      {"maxBufferSize", l.maxBufferSize = u64()},
      {"maxVertexAttributes", l.maxVertexAttributes = u32()},
      {"maxVertexBufferArrayStride", l.maxVertexBufferArrayStride = u32()},
      {"maxInterStageShaderVariables", l.maxInterStageShaderVariables = u32()},
      {"maxColorAttachments", l.maxColorAttachments = u32()},
      {"maxColorAttachmentBytesPerSample", l.maxColorAttachmentBytesPerSample = u32()},
      {"maxComputeWorkgroupStorageSize", l.maxComputeWorkgroupStorageSize = u32()},
      {"maxComputeInvocationsPerWorkgroup", l.maxComputeInvocationsPerWorkgroup = u32()},
      {"maxComputeWorkgroupSizeX", l.maxComputeWorkgroupSizeX = u32()},
      {"maxComputeWorkgroupSizeY", l.maxComputeWorkgroupSizeY = u32()},
      {"maxComputeWorkgroupSizeZ", l.maxComputeWorkgroupSizeZ = u32()},
      {"maxComputeWorkgroupsPerDimension", l.maxComputeWorkgroupsPerDimension = u32()},
  };
  l.maxImmediateSize = 0xDEAD;  // not read (abi.h)
  EXPECT_EQ(to_pairs(l), expected);
}

// ---- Dawn toggles: "timestamp_quantization" off (abi.h) --------------------------------------------------
constexpr uint64_t kQuantum = 65536;  // Dawn's timestamp quantization step, in ns
constexpr uint32_t kSubmits = 4, kPassesPerSubmit = 8;  // 64 timestamps

size_t count_off_quantum(const std::vector<uint64_t>& t) {
  size_t n = 0;
  for (uint64_t v : t) n += v % kQuantum != 0;
  return n;
}

// Timestamps of kSubmits submits of kPassesPerSubmit busy passes on a raw device (begin, end per pass).
std::vector<uint64_t> raw_timestamps(WGPUInstance instance, WGPUDevice device) {
  auto view = [](const char* text) { return WGPUStringView{text, WGPU_STRLEN}; };
  WGPUQueue queue = wgpuDeviceGetQueue(device);
  WGPUShaderSourceWGSL source{};
  source.chain.sType = WGPUSType_ShaderSourceWGSL;
  source.code = view(kBusyWgsl);
  WGPUShaderModuleDescriptor module_descriptor{};
  module_descriptor.nextInChain = &source.chain;
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &module_descriptor);
  WGPUComputePipelineDescriptor pipeline_descriptor{};
  pipeline_descriptor.compute.module = module;
  pipeline_descriptor.compute.entryPoint = view("main");
  WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(device, &pipeline_descriptor);
  WGPUBufferDescriptor buffer_descriptor{};
  buffer_descriptor.size = 4 * 64 * 64;
  buffer_descriptor.usage = WGPUBufferUsage_Storage;
  WGPUBuffer y = wgpuDeviceCreateBuffer(device, &buffer_descriptor);
  WGPUBindGroupEntry entry{};
  entry.binding = 0;
  entry.buffer = y;
  entry.size = WGPU_WHOLE_SIZE;
  WGPUBindGroupLayout layout = wgpuComputePipelineGetBindGroupLayout(pipeline, 0);
  WGPUBindGroupDescriptor group_descriptor{};
  group_descriptor.layout = layout;
  group_descriptor.entryCount = 1;
  group_descriptor.entries = &entry;
  WGPUBindGroup group = wgpuDeviceCreateBindGroup(device, &group_descriptor);
  constexpr uint32_t queries = 2 * kPassesPerSubmit;
  WGPUQuerySetDescriptor query_descriptor{};
  query_descriptor.type = WGPUQueryType_Timestamp;
  query_descriptor.count = queries;
  WGPUQuerySet query_set = wgpuDeviceCreateQuerySet(device, &query_descriptor);
  buffer_descriptor.size = 8 * queries;
  buffer_descriptor.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
  WGPUBuffer resolve = wgpuDeviceCreateBuffer(device, &buffer_descriptor);
  buffer_descriptor.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  WGPUBuffer readback = wgpuDeviceCreateBuffer(device, &buffer_descriptor);

  std::vector<uint64_t> out;
  for (uint32_t submit = 0; submit < kSubmits; ++submit) {
    WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(device, nullptr);
    for (uint32_t i = 0; i < kPassesPerSubmit; ++i) {
      WGPUPassTimestampWrites writes{};
      writes.querySet = query_set;
      writes.beginningOfPassWriteIndex = 2 * i;
      writes.endOfPassWriteIndex = 2 * i + 1;
      WGPUComputePassDescriptor pass_descriptor{};
      pass_descriptor.timestampWrites = &writes;
      WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &pass_descriptor);
      wgpuComputePassEncoderSetPipeline(pass, pipeline);
      wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, nullptr);
      wgpuComputePassEncoderDispatchWorkgroups(pass, 64, 1, 1);
      wgpuComputePassEncoderEnd(pass);
      wgpuComputePassEncoderRelease(pass);
    }
    wgpuCommandEncoderResolveQuerySet(encoder, query_set, 0, queries, resolve, 0);
    wgpuCommandEncoderCopyBufferToBuffer(encoder, resolve, 0, readback, 0, 8 * queries);
    WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
    wgpuQueueSubmit(queue, 1, &commands);
    wgpuCommandBufferRelease(commands);
    wgpuCommandEncoderRelease(encoder);
    WGPUBufferMapCallbackInfo map{};
    map.mode = WGPUCallbackMode_WaitAnyOnly;
    map.callback = [](WGPUMapAsyncStatus status, WGPUStringView, void* ok, void*) {
      *static_cast<bool*>(ok) = status == WGPUMapAsyncStatus_Success;
    };
    bool mapped = false;
    map.userdata1 = &mapped;
    WGPUFutureWaitInfo info{wgpuBufferMapAsync(readback, WGPUMapMode_Read, 0, 8 * queries, map), 0};
    EXPECT_EQ(wgpuInstanceWaitAny(instance, 1, &info, 10'000'000'000ull), WGPUWaitStatus_Success);
    EXPECT_TRUE(mapped);
    if (!mapped) break;
    const auto* t = static_cast<const uint64_t*>(wgpuBufferGetConstMappedRange(readback, 0, 8 * queries));
    out.insert(out.end(), t, t + queries);
    wgpuBufferUnmap(readback);
  }
  wgpuBufferRelease(readback);
  wgpuBufferRelease(resolve);
  wgpuQuerySetRelease(query_set);
  wgpuBindGroupRelease(group);
  wgpuBindGroupLayoutRelease(layout);
  wgpuBufferRelease(y);
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);
  wgpuQueueRelease(queue);
  return out;
}

// WGPUDawnTogglesDescriptor (sType 0x0005000A, 0.5.11 layout) really disables "timestamp_quantization":
// with it, some of 64 timestamps are not multiples of 65,536 ns (all 64 would be by chance with probability
// 2^-1024 on a 1 ns clock); with the fallback (a refused sType), all are (the control: Dawn's default
// quantization, so the first half of the test tells the two apart), and the refusal comes back as
// toggles_error instead of a failed device.
TEST(Abi, DawnTogglesDisableTimestampQuantization) {
  const auto owned_instance = abi::create_instance(true);
  WGPUInstance instance = owned_instance.get();
  WGPUAdapter adapter = first_adapter(instance);
  ASSERT_NE(adapter, nullptr);
  if (!wgpuAdapterHasFeature(adapter, abi::kTimestampQuery)) {
    wgpuAdapterRelease(adapter);
    GTEST_SKIP() << "adapter has no timestamp-query";
  }
  const WGPUFeatureName features[] = {abi::kTimestampQuery};
  WGPUDeviceDescriptor descriptor{};
  descriptor.requiredFeatureCount = 1;
  descriptor.requiredFeatures = features;

  abi::DeviceRequest with = abi::request_device(instance, adapter, descriptor, 5'000'000'000ull);
  ASSERT_TRUE(with.device) << with.error;
  EXPECT_EQ(with.toggles_error, "") << "Dawn refused the toggles descriptor";
  const std::vector<uint64_t> fine = raw_timestamps(instance, with.device.get());
  ASSERT_EQ(fine.size(), 2u * kSubmits * kPassesPerSubmit);
  EXPECT_GT(count_off_quantum(fine), 0u) << "every timestamp is a multiple of 65,536 ns: the toggle was not applied"
                                         << " (first: " << fine[0] << ")";

  // An sType the binary does not know: refused ("Unexpected chained struct ..."), then the fallback device.
  abi::DeviceRequest fallback =
      abi::request_device(instance, adapter, descriptor, 5'000'000'000ull, static_cast<WGPUSType>(0x0005FFFF));
  ASSERT_TRUE(fallback.device) << fallback.error;
  EXPECT_NE(fallback.toggles_error.find("Unexpected chained struct"), std::string::npos) << fallback.toggles_error;
  EXPECT_EQ(fallback.error, "");
  const std::vector<uint64_t> coarse = raw_timestamps(instance, fallback.device.get());
  ASSERT_EQ(coarse.size(), 2u * kSubmits * kPassesPerSubmit);
  EXPECT_EQ(count_off_quantum(coarse), 0u) << "Dawn no longer quantizes by default: abi.h may be stale";
  EXPECT_GT(coarse[0], 0u);
  wgpuAdapterRelease(adapter);
}

// The public path: every gpu::Device is created with the toggle off, so its timestamps (Device::submit,
// read_timestamps) are not all multiples of 65,536 ns.
TEST(Abi, DeviceTimestampsNotQuantized) {
  Device device;
  if (!device.features().timestamp_query) GTEST_SKIP() << device.adapter_info().device << " has no timestamp-query";
  EXPECT_EQ(device.toggles_error(), "");
  ComputePipeline pipeline = device.create_compute_pipeline(kBusyWgsl, "busy");
  Buffer y = device.create_buffer(4 * 64 * 64, BufferUsage::kStorage);
  const BindGroupEntry entries[] = {{0, &y}};
  BindGroup group = device.create_bind_group(pipeline, entries);
  const std::vector<Dispatch> passes(kPassesPerSubmit, Dispatch{&pipeline, &group, 64, 1, 1});
  TimestampQuery query = device.create_timestamp_query(kPassesPerSubmit);
  std::vector<uint64_t> all;
  for (uint32_t submit = 0; submit < kSubmits; ++submit) {
    device.submit(passes, &query);
    const std::vector<uint64_t> t = device.read_timestamps(query);
    all.insert(all.end(), t.begin(), t.end());
  }
  ASSERT_EQ(all.size(), 2u * kSubmits * kPassesPerSubmit);
  EXPECT_GT(count_off_quantum(all), 0u) << "every timestamp is a multiple of 65,536 ns: timestamp_quantization is on"
                                        << " (first: " << all[0] << ")";
}

// Sets an environment variable for one scope (unset: nullptr) and restores the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1); else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The message of the wgk::Error kInvalidArgument that `make` throws ("" and a test failure otherwise).
template <typename F>
std::string invalid_argument(F make) {
  try {
    make();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no wgk::Error";
  return "";
}

// WGK_DAWN_ENABLE_TOGGLES / WGK_DAWN_DISABLE_TOGGLES reach Dawn: the toggles Dawn itself reports enabled
// (dawn::native::GetTogglesUsed) hold "skip_validation" with the variable and not without it. Also what
// Dawn's list says of the default: "timestamp_quantization" is not enabled (the descriptor's disabled list).
TEST(Abi, DawnTogglesFromEnvironment) {
  ScopedEnv no_disable(abi::kDisableTogglesVariable, nullptr);
  {
    ScopedEnv none(abi::kEnableTogglesVariable, nullptr);
    const Device device;
    const std::vector<std::string> on = device.enabled_toggles();
    EXPECT_FALSE(on.empty()) << "Dawn reports no enabled toggle at all (lazy_clear_resource_on_first_use is "
                                "on by default): GetTogglesUsed's result may not be read as Dawn wrote it";
    EXPECT_FALSE(has(on, "skip_validation"));
    EXPECT_FALSE(has(on, abi::kTimestampQuantizationToggle));
  }
  {
    ScopedEnv skip(abi::kEnableTogglesVariable, "skip_validation");
    const Device device;
    EXPECT_TRUE(has(device.enabled_toggles(), "skip_validation"));
  }
  {
    // Enabling it takes timestamp_quantization out of the default disabled list.
    ScopedEnv quantize(abi::kEnableTogglesVariable, "skip_validation,timestamp_quantization");
    const Device device;
    EXPECT_TRUE(has(device.enabled_toggles(), "skip_validation"));
    EXPECT_TRUE(has(device.enabled_toggles(), abi::kTimestampQuantizationToggle));
  }
  {
    // A toggle Dawn enables by default on lavapipe (the first block's list) can be disabled.
    ScopedEnv none(abi::kEnableTogglesVariable, nullptr);
    ScopedEnv off(abi::kDisableTogglesVariable, "lazy_clear_resource_on_first_use");
    const Device device;
    EXPECT_FALSE(has(device.enabled_toggles(), "lazy_clear_resource_on_first_use"));
  }
}

// Dawn ignores a toggle name it does not know (a device, the name not enabled); the device checks Dawn's
// list, so a misspelt name is an error naming the variable and the name instead of a measurement of nothing.
// A malformed list or a name in both lists is refused before Dawn is asked.
TEST(Abi, DawnTogglesFromEnvironmentRefused) {
  ScopedEnv no_disable(abi::kDisableTogglesVariable, nullptr);
  {
    ScopedEnv typo(abi::kEnableTogglesVariable, "skip_validaton");
    const std::string message = invalid_argument([] { Device device; });
    EXPECT_NE(message.find("WGK_DAWN_ENABLE_TOGGLES: Dawn did not enable 'skip_validaton'"), std::string::npos)
        << message;
  }
  {
    ScopedEnv empty_item(abi::kEnableTogglesVariable, "skip_validation,");
    const std::string message = invalid_argument([] { Device device; });
    EXPECT_NE(message.find("WGK_DAWN_ENABLE_TOGGLES='skip_validation,': an empty name"), std::string::npos) << message;
  }
  {
    ScopedEnv spaced(abi::kEnableTogglesVariable, "skip_validation, dump_shaders");
    const std::string message = invalid_argument([] { Device device; });
    EXPECT_NE(message.find("' dump_shaders' is not a toggle name"), std::string::npos) << message;
  }
  {
    ScopedEnv on(abi::kEnableTogglesVariable, "skip_validation");
    ScopedEnv off(abi::kDisableTogglesVariable, "dump_shaders,skip_validation");
    const std::string message = invalid_argument([] { Device device; });
    EXPECT_NE(message.find("'skip_validation' is both in WGK_DAWN_ENABLE_TOGGLES and in WGK_DAWN_DISABLE_TOGGLES"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace wgk::gpu
