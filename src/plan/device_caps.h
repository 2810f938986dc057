#pragma once
// DeviceCaps: the device half of the call scope (`device.limits.*`, `device.features.*`), from a device
// or from a preset or JSON description of one (`wgk contract --device`).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/webgpu_names.h"

namespace wgk::plan {

/// What the scope exposes as `device.limits.<name>` and `device.features.*`. Limit names are
/// WebGPU's (`maxComputeWorkgroupsPerDimension`, `maxStorageBufferBindingSize`, ...).
struct DeviceCaps {
  std::vector<std::pair<std::string, std::int64_t>> limits;
  bool shader_f16 = false, timestamp_query = false, subgroups = false;  ///< kCapsFeatureFlags

  /// The WebGPU spec's default limits (GPUSupportedLimits defaults), no features.
  static DeviceCaps webgpu_defaults();
  /// Mesa lavapipe under Dawn (docs/platform.md, `wgk devices`): defaults plus shader-f16,
  /// timestamp-query, subgroups; maxStorageBufferBindingSize 128 MiB, maxComputeWorkgroupsPerDimension 65535,
  /// maxStorageBuffersPerShaderStage 10 (maxUniformBuffersPerShaderStage 12, maxUniformBufferBindingSize 64 KiB:
  /// the defaults).
  static DeviceCaps lavapipe();
  /// NVIDIA H200 under Dawn/Vulkan (docs/h200.md's `wgk devices`): defaults plus timestamp-query and subgroups, no
  /// shader-f16; maxStorageBufferBindingSize 4 GiB - 1, maxBufferSize 1 TiB, maxStorageBuffersPerShaderStage 10,
  /// 1,024 invocations a workgroup (x, y), 48 KiB of workgroup storage (uniform buffers: the defaults, 12 of
  /// at most 64 KiB).
  static DeviceCaps h200();
  /// "webgpu-default", "lavapipe", "h200"; nullopt for another name.
  static std::optional<DeviceCaps> preset(std::string_view name);
  /// JSON `{"limits": {"<name>": int, ...}, "features": [<names of wgk::kKernelFeatures>]}` over the WebGPU
  /// defaults. Throws wgk::Error (kInvalidArgument) naming `source` and the key.
  static DeviceCaps from_json(std::string_view json_text, const std::string& source);
  /// The limit's value, or nullopt when not listed.
  std::optional<std::int64_t> limit(std::string_view name) const;
};

/// The flag of each wgk::kKernelFeatures row, in its order.
inline constexpr std::array<bool DeviceCaps::*, 3> kCapsFeatureFlags = {&DeviceCaps::shader_f16, &DeviceCaps::timestamp_query,
                                                                        &DeviceCaps::subgroups};
static_assert(kCapsFeatureFlags.size() == kKernelFeatures.size());

}  // namespace wgk::plan
