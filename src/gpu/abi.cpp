// Feature names by the binary's numbering, instance creation with the binary's descriptor, and device
// requests with Dawn toggles (abi.h).
#include "gpu/abi.h"

#include "core/text.h"
#include "gpu/callback.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "wgk/error.h"

namespace wgk::gpu::abi {

std::string_view feature_name(uint32_t value) {
  // Spec names; numbering of the bun-webgpu header (abi.h), confirmed on lavapipe for 0x03, 0x0A, 0x11.
  switch (value) {
    case 0x01: return "depth-clip-control";
    case 0x02: return "depth32float-stencil8";
    case 0x03: return "timestamp-query";
    case 0x04: return "texture-compression-bc";
    case 0x05: return "texture-compression-bc-sliced-3d";
    case 0x06: return "texture-compression-etc2";
    case 0x07: return "texture-compression-astc";
    case 0x08: return "texture-compression-astc-sliced-3d";
    case 0x09: return "indirect-first-instance";
    case 0x0A: return "shader-f16";
    case 0x0B: return "rg11b10ufloat-renderable";
    case 0x0C: return "bgra8unorm-storage";
    case 0x0D: return "float32-filterable";
    case 0x0E: return "float32-blendable";
    case 0x0F: return "clip-distances";
    case 0x10: return "dual-source-blending";
    case 0x11: return "subgroups";
    case 0x12: return "core-features-and-limits";
    case 0x50000: return "dawn-internal-usages";
    case 0x50001: return "dawn-multi-planar-formats";
    case 0x50002: return "dawn-native";
    case 0x50003: return "chromium-experimental-timestamp-query-inside-passes";
    case 0x50004: return "implicit-device-synchronization";
    case 0x50005: return "chromium-experimental-immediate-data";
    case 0x50006: return "transient-attachments";
    case 0x50007: return "msaa-render-to-single-sampled";
    case 0x50008: return "subgroups-f16";
    default: return {};
  }
}

detail::Object<WGPUInstanceImpl> create_instance(bool timed_wait_any) {
  InstanceDescriptor descriptor;
  descriptor.capabilities.timedWaitAnyEnable = timed_wait_any ? 1 : 0;
  // The binary reads this layout (abi.h); the header's declared type differs, hence the cast.
  return detail::Object<WGPUInstanceImpl>(
      wgpuCreateInstance(reinterpret_cast<const WGPUInstanceDescriptor*>(&descriptor)));
}

std::string to_std(WGPUStringView view) {
  if (!view.data) return {};
  return view.length == WGPU_STRLEN ? std::string(view.data) : std::string(view.data, view.length);
}

WGPUWaitStatus wait_any(WGPUInstance instance, WGPUFuture future, uint64_t timeout_ns) {
  WGPUFutureWaitInfo info{future, 0};
  return wgpuInstanceWaitAny(instance, 1, &info, timeout_ns);
}

Error wait_error(WGPUWaitStatus status, uint64_t timeout_ns, std::string_view what) {
  if (status == WGPUWaitStatus_TimedOut) {
    // In the largest unit that divides it: 10 s, 250 ms, 1 ns.
    std::string after = std::to_string(timeout_ns) + " ns";
    if (timeout_ns != 0 && timeout_ns % 1'000'000'000 == 0) after = std::to_string(timeout_ns / 1'000'000'000) + " s";
    else if (timeout_ns != 0 && timeout_ns % 1'000'000 == 0) after = std::to_string(timeout_ns / 1'000'000) + " ms";
    else if (timeout_ns != 0 && timeout_ns % 1'000 == 0) after = std::to_string(timeout_ns / 1'000) + " us";
    return Error(ErrorKind::kGpu, "gpu: timed out after " + after + " waiting for " + std::string(what));
  }
  return Error(ErrorKind::kGpu, "gpu: wgpuInstanceWaitAny failed while waiting for " + std::string(what));
}

namespace {

/// One wgpuAdapterRequestDevice; the device (empty when refused) and Dawn's message.
struct DeviceResult {
  detail::Object<WGPUDeviceImpl> device;
  std::string message;
};
DeviceResult request_once(WGPUInstance instance, WGPUAdapter adapter, const WGPUDeviceDescriptor& descriptor,
                          uint64_t timeout_ns) {
  return await_callback<DeviceResult, WGPURequestDeviceCallbackInfo>(
      instance, timeout_ns, "a device",
      [&](const WGPURequestDeviceCallbackInfo& info) { return wgpuAdapterRequestDevice(adapter, &descriptor, info); },
      [](DeviceResult& r, WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message) {
        if (status == WGPURequestDeviceStatus_Success) r.device = detail::Object<WGPUDeviceImpl>(device);
        r.message = to_std(message);
      });
}

}  // namespace

namespace {

// The names of one toggles variable; see toggles_from_environment.
std::vector<std::string> toggle_list(const char* variable) {
  std::vector<std::string> names;
  const char* value = std::getenv(variable);
  if (!value || !*value) return names;
  const std::string text = value;
  auto refuse = [&](const std::string& rule) {
    throw Error(ErrorKind::kInvalidArgument,
                std::string(variable) + "='" + text + "': " + rule + " (a comma-separated list of Dawn toggle names)");
  };
  for (std::string& name : split_commas(text)) {
    if (name.empty()) refuse("an empty name");
    for (const char c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
        refuse("'" + name + "' is not a toggle name (lower-case letters, digits and '_', as in skip_validation)");
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

Toggles toggles_from_environment() {
  Toggles t{toggle_list(kEnableTogglesVariable), toggle_list(kDisableTogglesVariable)};
  for (const auto& name : t.enabled)
    for (const auto& other : t.disabled)
      if (name == other)
        throw Error(ErrorKind::kInvalidArgument, "Dawn toggle '" + name + "' is both in " + kEnableTogglesVariable +
                                                     " and in " + kDisableTogglesVariable);
  return t;
}

}  // namespace wgk::gpu::abi

namespace dawn::native {
// Exported by the binary; declared as in Dawn's DawnNative.h (abi.h: why the layout is ours).
std::vector<const char*> GetTogglesUsed(WGPUDevice device);
}  // namespace dawn::native

namespace wgk::gpu::abi {

std::vector<std::string> enabled_toggles(WGPUDevice device) {
  std::vector<std::string> names;
  for (const char* name : dawn::native::GetTogglesUsed(device))
    if (name) names.emplace_back(name);
  return names;
}

DeviceRequest request_device(WGPUInstance instance, WGPUAdapter adapter, const WGPUDeviceDescriptor& descriptor,
                             uint64_t timeout_ns, WGPUSType toggles_stype, const Toggles& extra) {
  std::vector<const char*> enabled, disabled;
  for (const auto& name : extra.enabled) enabled.push_back(name.c_str());
  bool quantization_enabled = false;
  for (const auto& name : extra.enabled) quantization_enabled |= name == kTimestampQuantizationToggle;
  if (!quantization_enabled) disabled.push_back(kTimestampQuantizationToggle);
  for (const auto& name : extra.disabled)
    if (name != kTimestampQuantizationToggle) disabled.push_back(name.c_str());
  WGPUDawnTogglesDescriptor toggles{};
  toggles.chain.sType = toggles_stype;
  toggles.chain.next = descriptor.nextInChain;
  toggles.enabledToggleCount = enabled.size();
  toggles.enabledToggles = enabled.data();
  toggles.disabledToggleCount = disabled.size();
  toggles.disabledToggles = disabled.data();
  WGPUDeviceDescriptor with_toggles = descriptor;
  with_toggles.nextInChain = &toggles.chain;

  DeviceRequest out;
  DeviceResult first = request_once(instance, adapter, with_toggles, timeout_ns);
  if (first.device) {
    out.device = std::move(first.device);
    return out;
  }
  const std::string& message = first.message;
  // Refused (Dawn's reason in `message`, e.g. "Unexpected chained struct of type ..."): the same request
  // without the toggles. If that is refused too, the toggles were not the cause: report Dawn's last message.
  out.toggles_error = message.empty() ? "device request refused without a message" : message;
  DeviceResult second = request_once(instance, adapter, descriptor, timeout_ns);
  out.device = std::move(second.device);
  out.error = std::move(second.message);
  if (!out.device && out.error.empty()) out.error = out.toggles_error;
  return out;
}

}  // namespace wgk::gpu::abi
