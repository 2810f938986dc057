#pragma once
// The names an expression may read from the call scope (docs/kernel-conventions.md, "Render
// context"): the roots, the WebGPU limit names under `device.limits`, the feature names under
// `device.features`. The contract loader resolves manifest expressions against these; the runtime
// binds exactly these.
#include <array>
#include <string_view>

namespace wgk::contract {

/// Top-level scope names: `shapes.<input>`, `ranks.<input>`, `dtypes.<T>`, `present.<input>`,
/// `attrs.<name>`, `tunables.<name>`, `device.limits.<limit>`, `device.features.<feature>`.
inline constexpr std::array<std::string_view, 7> kScopeRoots = {"shapes", "ranks", "dtypes", "present",
                                                                 "attrs",  "tunables", "device"};

/// Whether `name` is one of kScopeRoots. Derive names never are (parse_derive_object refuses them), so a
/// lookup may answer a root without searching the derive layers.
constexpr bool is_scope_root(std::string_view name) {
  for (std::string_view root : kScopeRoots)
    if (root == name) return true;
  return false;
}

/// GPUSupportedLimits member names (WebGPU spec, section "Limits"), as `device.limits.<name>`.
inline constexpr std::array<std::string_view, 35> kWebGpuLimitNames = {
    "maxTextureDimension1D",
    "maxTextureDimension2D",
    "maxTextureDimension3D",
    "maxTextureArrayLayers",
    "maxBindGroups",
    "maxBindGroupsPlusVertexBuffers",
    "maxBindingsPerBindGroup",
    "maxDynamicUniformBuffersPerPipelineLayout",
    "maxDynamicStorageBuffersPerPipelineLayout",
    "maxSampledTexturesPerShaderStage",
    "maxSamplersPerShaderStage",
    "maxStorageBuffersPerShaderStage",
    "maxStorageBuffersInVertexStage",
    "maxStorageBuffersInFragmentStage",
    "maxStorageTexturesPerShaderStage",
    "maxStorageTexturesInVertexStage",
    "maxStorageTexturesInFragmentStage",
    "maxUniformBuffersPerShaderStage",
    "maxUniformBufferBindingSize",
    "maxStorageBufferBindingSize",
    "minUniformBufferOffsetAlignment",
    "minStorageBufferOffsetAlignment",
    "maxVertexBuffers",
    "maxBufferSize",
    "maxVertexAttributes",
    "maxVertexBufferArrayStride",
    "maxInterStageShaderVariables",
    "maxColorAttachments",
    "maxColorAttachmentBytesPerSample",
    "maxComputeWorkgroupStorageSize",
    "maxComputeInvocationsPerWorkgroup",
    "maxComputeWorkgroupSizeX",
    "maxComputeWorkgroupSizeY",
    "maxComputeWorkgroupSizeZ",
    "maxComputeWorkgroupsPerDimension",
};

/// `device.features.<name>`: WebGPU features `shader-f16`, `timestamp-query`, `subgroups`, spelled
/// with '_' so an expression can name them.
inline constexpr std::array<std::string_view, 3> kDeviceFeatureNames = {"shader_f16", "timestamp_query",
                                                                        "subgroups"};

}  // namespace wgk::contract
