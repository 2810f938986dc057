// Feature names by the binary's numbering and instance creation with the binary's descriptor (abi.h).
#include "gpu/abi.h"

#include <cstring>

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

WGPUInstance create_instance(bool timed_wait_any) {
  InstanceDescriptor descriptor;
  descriptor.capabilities.timedWaitAnyEnable = timed_wait_any ? 1 : 0;
  // The binary reads this layout (abi.h); the header's declared type differs, hence the cast.
  return wgpuCreateInstance(reinterpret_cast<const WGPUInstanceDescriptor*>(&descriptor));
}

}  // namespace wgk::gpu::abi
