// WGPULimits by WebGPU name: the WGPULimits members of wgk::kWebGpuLimits (core/webgpu_names.h), read at
// the offsets that table's order and widths give. WGPULimits is {nextInChain, then those members in that
// order, each uint32_t or uint64_t as the WebGPU IDL types them}; the static_asserts below hold the table
// to webgpu.h's layout (and abi.h holds webgpu.h to the binary's).
#include <array>
#include <cstring>

#include "core/webgpu_names.h"
#include "gpu/device_state.h"

namespace wgk::gpu {
namespace {

/// Byte offsets in WGPULimits of the kWebGpuLimits rows (0 for those not in WGPULimits), C layout rules.
constexpr std::array<size_t, kWebGpuLimits.size()> kOffsets = [] {
  std::array<size_t, kWebGpuLimits.size()> out{};
  size_t at = sizeof(WGPUChainedStruct*);
  for (size_t i = 0; i < kWebGpuLimits.size(); ++i) {
    if (!kWebGpuLimits[i].in_wgpu_limits) continue;
    const size_t width = kWebGpuLimits[i].is_u64 ? 8 : 4;
    at = (at + width - 1) / width * width;
    out[i] = at;
    at += width;
  }
  return out;
}();

constexpr size_t offset_of(std::string_view name) {
  for (size_t i = 0; i < kWebGpuLimits.size(); ++i)
    if (kWebGpuLimits[i].name == name) return kOffsets[i];
  return 0;
}

// Every 64-bit member and the last one read; a row out of order or of the wrong width moves one of these.
static_assert(offset_of("maxTextureDimension1D") == offsetof(WGPULimits, maxTextureDimension1D));
static_assert(offset_of("maxUniformBuffersPerShaderStage") == offsetof(WGPULimits, maxUniformBuffersPerShaderStage));
static_assert(offset_of("maxUniformBufferBindingSize") == offsetof(WGPULimits, maxUniformBufferBindingSize));
static_assert(offset_of("maxStorageBufferBindingSize") == offsetof(WGPULimits, maxStorageBufferBindingSize));
static_assert(offset_of("maxBufferSize") == offsetof(WGPULimits, maxBufferSize));
static_assert(offset_of("maxComputeInvocationsPerWorkgroup") == offsetof(WGPULimits, maxComputeInvocationsPerWorkgroup));
static_assert(offset_of("maxComputeWorkgroupsPerDimension") == offsetof(WGPULimits, maxComputeWorkgroupsPerDimension));
// The member after the last one read (maxImmediateSize, not read: abi.h) follows it directly.
static_assert(offset_of("maxComputeWorkgroupsPerDimension") + 4 == offsetof(WGPULimits, maxImmediateSize));

}  // namespace

Limits to_pairs(const WGPULimits& limits) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(&limits);
  Limits out;
  out.reserve(kWebGpuLimits.size());
  for (size_t i = 0; i < kWebGpuLimits.size(); ++i) {
    const WebGpuLimit& limit = kWebGpuLimits[i];
    if (!limit.in_wgpu_limits) continue;
    uint64_t value = 0;
    if (limit.is_u64) {
      std::memcpy(&value, bytes + kOffsets[i], 8);
    } else {
      uint32_t narrow = 0;
      std::memcpy(&narrow, bytes + kOffsets[i], 4);
      value = narrow;
    }
    out.emplace_back(std::string(limit.name), value);
  }
  return out;
}

}  // namespace wgk::gpu
