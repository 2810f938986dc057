#pragma once
// Every value where the WebGPU header we compile against (react-native-webgpu 0.5.11, Dawn chromium/7770)
// differs from the Dawn binary we link (bun-webgpu-linux-x64 0.1.7, libwebgpu_wrapper.so). PRIVATE to
// src/gpu/: it includes <webgpu/webgpu.h>. Evidence for each value is in the comment next to it; every
// value is exercised by tests/gpu/abi_test.cpp, which fails if the binary disagrees.
//
// Reference header closest to the binary: kommander/bun-webgpu dawn/webgpu.h (the package's own repo,
// commit b7dc1dc0). It agrees with the binary on feature numbering and on the instance descriptor, but not
// on WGPULimits (the binary writes 152 bytes, the 0.5.11 size; that header's layout would be 168).
#include <webgpu/webgpu.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/handles.h"
#include "wgk/error.h"

namespace wgk::gpu::abi {

// ---- WGPUFeatureName: the binary uses the older numbering ------------------------------------------
// Evidence: wgpuAdapterGetFeatures on lavapipe (2026-11-29) lists 0x1..0x4, 0x9..0x12, 0x5xxxx; requesting
// 0x0A makes `enable f16;` compile (abi_test ShaderF16), 0x03 makes a timestamp query set valid
// (abi_test TimestampQuerySet). The 0.5.11 header says ShaderF16 = 0x0B, TimestampQuery = 0x09,
// Subgroups = 0x12 (0x12 is CoreFeaturesAndLimits in the binary).
inline constexpr WGPUFeatureName kDepthClipControl = static_cast<WGPUFeatureName>(0x01);
inline constexpr WGPUFeatureName kDepth32FloatStencil8 = static_cast<WGPUFeatureName>(0x02);
inline constexpr WGPUFeatureName kTimestampQuery = static_cast<WGPUFeatureName>(0x03);
inline constexpr WGPUFeatureName kIndirectFirstInstance = static_cast<WGPUFeatureName>(0x09);
inline constexpr WGPUFeatureName kShaderF16 = static_cast<WGPUFeatureName>(0x0A);
inline constexpr WGPUFeatureName kSubgroups = static_cast<WGPUFeatureName>(0x11);
inline constexpr WGPUFeatureName kCoreFeaturesAndLimits = static_cast<WGPUFeatureName>(0x12);

/// WebGPU name (spec spelling, e.g. "shader-f16") of a feature value as the binary numbers it;
/// "dawn-0x50000"-style text for Dawn-internal values without a spec name.
std::string_view feature_name(uint32_t binary_value);

// ---- WGPUInstanceDescriptor: the binary still takes WGPUInstanceCapabilities -----------------------
// The 0.5.11 header has {nextInChain, requiredFeatureCount, requiredFeatures, requiredLimits}; the binary
// exports wgpuGetInstanceCapabilities (absent from 0.5.11) and reads {nextInChain, capabilities}.
// Evidence (probe, 2026-11-29): wgpuGetInstanceCapabilities writes exactly 24 bytes
// {next, timedWaitAnyEnable = 1, timedWaitAnyMaxCount = 64}; an instance created from InstanceDescriptor
// below with timedWaitAnyEnable = 0 rejects WaitAny with a timeout ("Timeout waits are either not
// enabled or not supported"), with 1 accepts it. (The 0.5.11 layout only works by accident: the
// requiredFeatures pointer lands on timedWaitAnyEnable and reads as true.)
struct InstanceCapabilities {
  WGPUChainedStruct* nextInChain = nullptr;
  WGPUBool timedWaitAnyEnable = 0;
  size_t timedWaitAnyMaxCount = 0;
};
struct InstanceDescriptor {
  WGPUChainedStruct* nextInChain = nullptr;
  InstanceCapabilities capabilities;
};
static_assert(sizeof(InstanceCapabilities) == 24 && offsetof(InstanceCapabilities, timedWaitAnyMaxCount) == 16);
static_assert(sizeof(InstanceDescriptor) == 32);

extern "C" WGPUStatus wgpuGetInstanceCapabilities(InstanceCapabilities* capabilities);  // binary only
/// A new instance (owned; empty when Dawn refuses) with timedWaitAnyEnable = `timed_wait_any`.
detail::Object<WGPUInstanceImpl> create_instance(bool timed_wait_any);

// ---- WGPULimits: same size (152) and offsets up to maxComputeWorkgroupsPerDimension -------------------
// Evidence: wgpuAdapterGetLimits writes bytes 0..151 (canary past that untouched), and the values at the
// 0.5.11 offsets are plausible (maxBufferSize 2^32-1 at 96, maxComputeWorkgroupsPerDimension 65535 at 144).
// The last field (maxImmediateSize at 148 in 0.5.11) is not read: its meaning in the binary is unverified.
inline constexpr size_t kLimitsSize = 152;
static_assert(sizeof(WGPULimits) == kLimitsSize);
static_assert(offsetof(WGPULimits, maxStorageBufferBindingSize) == 72);
static_assert(offsetof(WGPULimits, maxBufferSize) == 96);
static_assert(offsetof(WGPULimits, maxComputeInvocationsPerWorkgroup) == 128);
static_assert(offsetof(WGPULimits, maxComputeWorkgroupsPerDimension) == 144);

// ---- WGPUQueueWorkDoneCallback: AS IN 0.5.11 (with the message argument) ---------------------------
// The bun-webgpu header declares (status, userdata1, userdata2); the binary calls (status, WGPUStringView
// message, userdata1, userdata2) like 0.5.11. Evidence: abi_test QueueWorkDoneUserdata (a callback typed the
// bun-webgpu way received a wrong userdata1 and the wait reported failure). So that header is older than the
// binary in this respect too; only measurements decide.

// ---- WGPUDawnTogglesDescriptor: AS IN 0.5.11 (sType 0x0005000A, same layout) --------------------------
// Chained into every WGPUDeviceDescriptor (request_device below) with disabledToggles =
// {"timestamp_quantization"}, as ONNX Runtime's WebGPU EP does: Dawn otherwise rounds every timestamp down to
// a multiple of 65,536 ns. The toggle only affects timestamp queries (timestamps are used for benchmarks).
// Evidence (probe on lavapipe, 2026-11-29): a device requested with sType 0x0005000A and this layout gives
// timestamps whose largest common power-of-two divisor is 1 ns (e.g. 9050951165981, 9050952611747, ...);
// without the struct, all are multiples of 65,536 (9050884734976 = 138105541 * 65536, ...). `wgk bench
// --filter decode --iterations 20`: timer_resolution_ns 65536 -> 1. A wrong sType is refused, with Dawn's
// name for the value: 0x0005000B -> "Unexpected chained struct of type
// SType::DawnShaderModuleSPIRVOptionsDescriptor found on DeviceDescriptor chain." (0x0005000B in the header
// too), an unknown value -> "SType::124076833". An unknown toggle NAME is silently ignored (timestamps
// stay quantized), so only the timestamps prove it: abi_test DawnTogglesDisableTimestampQuantization.
// `strings libwebgpu_wrapper.so` lists "DawnTogglesDescriptor" and "timestamp_quantization".
inline constexpr WGPUSType kSTypeDawnTogglesDescriptor = static_cast<WGPUSType>(0x0005000A);
inline constexpr const char* kTimestampQuantizationToggle = "timestamp_quantization";
static_assert(WGPUSType_DawnTogglesDescriptor == 0x0005000A);
static_assert(sizeof(WGPUDawnTogglesDescriptor) == 48 && offsetof(WGPUDawnTogglesDescriptor, enabledToggleCount) == 16 &&
              offsetof(WGPUDawnTogglesDescriptor, disabledToggleCount) == 32 &&
              offsetof(WGPUDawnTogglesDescriptor, disabledToggles) == 40);

// WGPUDeviceLostReason: as in 0.5.11. A refused device request ALSO calls the descriptor's device-lost
// callback, with FailedCreation = 4 and "Failed to create device: <reason>" (probe above, 2026-11-29), before
// the request callback reports Error (3). Device-lost callbacks must ignore it when a retry follows.
static_assert(WGPUDeviceLostReason_FailedCreation == 4 && WGPURequestDeviceStatus_Error == 3);

/// The text of a WGPUStringView (null data: empty; length WGPU_STRLEN: NUL-terminated).
std::string to_std(WGPUStringView view);

/// Waits for one future with wgpuInstanceWaitAny (the instance has TimedWaitAny), at most `timeout_ns`.
WGPUWaitStatus wait_any(WGPUInstance instance, WGPUFuture future, uint64_t timeout_ns);
/// The wgk::Error kGpu for a wait that ended with `status` (not Success): "gpu: timed out after 10 s
/// waiting for <what>" (the timeout in the largest of s, ms, us, ns that divides it), or "gpu: wgpuInstanceWaitAny failed while waiting for <what>".
Error wait_error(WGPUWaitStatus status, uint64_t timeout_ns, std::string_view what);

// ---- Toggles asked for by the environment, and Dawn's list of enabled toggles -------------------------
// WGK_DAWN_ENABLE_TOGGLES / WGK_DAWN_DISABLE_TOGGLES: comma-separated Dawn toggle names (Dawn's
// src/dawn/native/Toggles.cpp, e.g. "skip_validation"), added to the toggles descriptor at device creation;
// for measuring only (docs/platform.md "Dawn toggles for diagnosis"). Dawn ignores a name it does not know
// without a message (probe on lavapipe, 2026-12-01: "no_such_toggle" enabled -> a device, and the name is not
// in the enabled list), so gpu::Device checks the outcome with enabled_toggles.
// dawn::native::GetTogglesUsed (DawnNative.h: "the names of all the toggles that are enabled in device") is
// exported by the binary as a C++ function (_ZN4dawn6native14GetTogglesUsedEP14WGPUDeviceImpl). The binary
// is built against libstdc++ (its symbols use std::__cxx11, none std::__1), as this library is, so the
// std::vector<const char*> it returns has our layout. Evidence: abi_test DawnTogglesFromEnvironment.
inline constexpr const char* kEnableTogglesVariable = "WGK_DAWN_ENABLE_TOGGLES";
inline constexpr const char* kDisableTogglesVariable = "WGK_DAWN_DISABLE_TOGGLES";

/// Toggle names to enable and to disable at device creation, beyond the default (timestamp_quantization
/// disabled; a name in `enabled` takes it out of the default's disabled list).
struct Toggles {
  std::vector<std::string> enabled;
  std::vector<std::string> disabled;
  bool empty() const { return enabled.empty() && disabled.empty(); }
};

/// The toggles of WGK_DAWN_ENABLE_TOGGLES and WGK_DAWN_DISABLE_TOGGLES (unset or empty: none). Throws
/// wgk::Error kInvalidArgument naming the variable and its value for an empty item ("a,,b"), a name that
/// is not Dawn's form (lower-case letters, digits, '_'), or a name in both lists.
Toggles toggles_from_environment();

/// The toggles Dawn reports enabled on `device` (dawn::native::GetTogglesUsed), in Dawn's order.
std::vector<std::string> enabled_toggles(WGPUDevice device);

/// The outcome of request_device.
struct DeviceRequest {
  detail::Object<WGPUDeviceImpl> device;  ///< empty: Dawn refused the device even without the toggles (`error`)
  std::string error;            ///< Dawn's message for the last refused request
  std::string toggles_error;    ///< non-empty: Dawn refused the toggles descriptor (its message); the device
                                ///< was then requested again without it (timestamps stay quantized)
};

/// wgpuAdapterRequestDevice with `descriptor` plus a DawnTogglesDescriptor (sType `toggles_stype`) that
/// disables "timestamp_quantization" and enables/disables `extra`'s names, chained in front of
/// descriptor.nextInChain. If Dawn refuses that
/// request, requests again with `descriptor` unchanged (graceful fallback, reason in toggles_error).
/// `toggles_stype` is a parameter only so that tests can force the fallback. Waits at most `timeout_ns` per
/// request; throws wgk::Error kGpu when a wait fails or times out.
DeviceRequest request_device(WGPUInstance instance, WGPUAdapter adapter, const WGPUDeviceDescriptor& descriptor,
                             uint64_t timeout_ns, WGPUSType toggles_stype = kSTypeDawnTogglesDescriptor,
                             const Toggles& extra = {});

// ---- Same in header and binary (verified by use in tests; listed so a reader knows they were checked) --
// WGPUBackendType (Vulkan 6, OpenGLES 8), WGPUAdapterType (CPU 3), WGPUAdapterInfo (96 bytes, subgroup
// sizes inline), WGPUSType_ShaderSourceWGSL (2), WGPUCallbackMode, WGPUWaitStatus, WGPUErrorType,
// WGPUErrorFilter, WGPUQueryType_Timestamp (2), WGPUBufferUsage bits, WGPUMapMode, WGPUPassTimestampWrites,
// WGPUBindGroupEntry, WGPUComputePipelineDescriptor, WGPUDeviceDescriptor, WGPUCompilationMessage:
// identical text in the bun-webgpu header and the 0.5.11 header.
static_assert(sizeof(WGPUAdapterInfo) == 96);
static_assert(WGPUBackendType_Vulkan == 6 && WGPUBackendType_OpenGLES == 8);
static_assert(WGPUSType_ShaderSourceWGSL == 2 && WGPUQueryType_Timestamp == 2);

// Functions in the 0.5.11 header but NOT in the binary: never call them (link would fail anyway):
// wgpuGetInstanceFeatures, wgpuGetInstanceLimits, wgpuHasInstanceFeature, wgpuComputePassEncoderSetImmediates,
// wgpuDeviceCreateErrorComputePipeline, wgpuResourceTable*, wgpuTexelBufferView*, wgpuBufferCreateTexelView.

}  // namespace wgk::gpu::abi
