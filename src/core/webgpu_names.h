#pragma once
// The one table of WebGPU limit names (GPUSupportedLimits, WebGPU spec section "Limits") with the spec's
// default and IDL width, and the one table of the features kernels branch on (names and scope names). Read by the contract loader
// (`device.limits.<name>` must be one of these), the planner's device presets (DeviceCaps), the Dawn
// binding (reading WGPULimits, src/gpu/limits.cpp) and `wgk devices`. Header-only, WGPU-free.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wgk {

/// One GPUSupportedLimits member.
struct WebGpuLimit {
  std::string_view name;        ///< spec spelling, e.g. "maxComputeWorkgroupsPerDimension"
  std::uint64_t default_value;  ///< the spec's default ("Limits" table)
  bool is_u64;                  ///< IDL `unsigned long long` (else `unsigned long`, 32 bits)
  /// A member of Dawn's WGPULimits, in this table's order: what a device reports and the DeviceCaps presets
  /// hold. The four vertex/fragment-stage limits are not (Dawn reports them in a chained struct we do not
  /// request); an expression may name them, but no device binds them.
  bool in_wgpu_limits;
};

/// Every limit name an expression may read, in WGPULimits field order (webgpu.h) with the four
/// vertex/fragment-stage limits after the per-shader-stage ones they refine, as the spec lists them.
inline constexpr std::array<WebGpuLimit, 35> kWebGpuLimits = {{
    {"maxTextureDimension1D", 8192, false, true},
    {"maxTextureDimension2D", 8192, false, true},
    {"maxTextureDimension3D", 2048, false, true},
    {"maxTextureArrayLayers", 256, false, true},
    {"maxBindGroups", 4, false, true},
    {"maxBindGroupsPlusVertexBuffers", 24, false, true},
    {"maxBindingsPerBindGroup", 1000, false, true},
    {"maxDynamicUniformBuffersPerPipelineLayout", 8, false, true},
    {"maxDynamicStorageBuffersPerPipelineLayout", 4, false, true},
    {"maxSampledTexturesPerShaderStage", 16, false, true},
    {"maxSamplersPerShaderStage", 16, false, true},
    {"maxStorageBuffersPerShaderStage", 8, false, true},
    {"maxStorageBuffersInVertexStage", 8, false, false},
    {"maxStorageBuffersInFragmentStage", 8, false, false},
    {"maxStorageTexturesPerShaderStage", 4, false, true},
    {"maxStorageTexturesInVertexStage", 4, false, false},
    {"maxStorageTexturesInFragmentStage", 4, false, false},
    {"maxUniformBuffersPerShaderStage", 12, false, true},
    {"maxUniformBufferBindingSize", 65536, true, true},
    {"maxStorageBufferBindingSize", 134217728, true, true},
    {"minUniformBufferOffsetAlignment", 256, false, true},
    {"minStorageBufferOffsetAlignment", 256, false, true},
    {"maxVertexBuffers", 8, false, true},
    {"maxBufferSize", 268435456, true, true},
    {"maxVertexAttributes", 16, false, true},
    {"maxVertexBufferArrayStride", 2048, false, true},
    {"maxInterStageShaderVariables", 16, false, true},
    {"maxColorAttachments", 8, false, true},
    {"maxColorAttachmentBytesPerSample", 32, false, true},
    {"maxComputeWorkgroupStorageSize", 16384, false, true},
    {"maxComputeInvocationsPerWorkgroup", 256, false, true},
    {"maxComputeWorkgroupSizeX", 256, false, true},
    {"maxComputeWorkgroupSizeY", 256, false, true},
    {"maxComputeWorkgroupSizeZ", 64, false, true},
    {"maxComputeWorkgroupsPerDimension", 65535, false, true},
}};

/// The row of `name`; nullopt when it is not a WebGPU limit name.
constexpr std::optional<WebGpuLimit> find_webgpu_limit(std::string_view name) {
  for (const WebGpuLimit& limit : kWebGpuLimits)
    if (limit.name == name) return limit;
  return std::nullopt;
}

/// One feature kernels branch on.
struct WebGpuFeature {
  std::string_view name;        ///< GPUFeatureName, the spec's spelling: "shader-f16"
  std::string_view scope_name;  ///< how an expression reads it: `device.features.shader_f16` ('-' spelled '_')
};

/// The features kernels branch on (WebGPU spec, GPUFeatureName), in the order of the flags that hold them
/// (plan::DeviceCaps, gpu::Features).
inline constexpr std::array<WebGpuFeature, 3> kKernelFeatures = {{
    {"shader-f16", "shader_f16"},
    {"timestamp-query", "timestamp_query"},
    {"subgroups", "subgroups"},
}};

/// "shader-f16, timestamp-query, subgroups" (or the scope names with `scope`), for error messages.
inline std::string kernel_feature_list(bool scope = false) {
  std::string s;
  for (const WebGpuFeature& f : kKernelFeatures) s += (s.empty() ? "" : ", ") + std::string(scope ? f.scope_name : f.name);
  return s;
}

}  // namespace wgk
