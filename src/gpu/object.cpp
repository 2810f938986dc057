// detail::release overloads: each Dawn object type's wgpu*Release (handles.h), the only calls to them.
#include <webgpu/webgpu.h>

#include "gpu/handles.h"

namespace wgk::gpu::detail {

void release(WGPUInstanceImpl* handle) noexcept { wgpuInstanceRelease(handle); }
void release(WGPUAdapterImpl* handle) noexcept { wgpuAdapterRelease(handle); }
void release(WGPUDeviceImpl* handle) noexcept { wgpuDeviceRelease(handle); }
void release(WGPUQueueImpl* handle) noexcept { wgpuQueueRelease(handle); }
void release(WGPUBufferImpl* handle) noexcept { wgpuBufferRelease(handle); }
void release(WGPUShaderModuleImpl* handle) noexcept { wgpuShaderModuleRelease(handle); }
void release(WGPUComputePipelineImpl* handle) noexcept { wgpuComputePipelineRelease(handle); }
void release(WGPUBindGroupLayoutImpl* handle) noexcept { wgpuBindGroupLayoutRelease(handle); }
void release(WGPUBindGroupImpl* handle) noexcept { wgpuBindGroupRelease(handle); }
void release(WGPUQuerySetImpl* handle) noexcept { wgpuQuerySetRelease(handle); }
void release(WGPUCommandEncoderImpl* handle) noexcept { wgpuCommandEncoderRelease(handle); }
void release(WGPUCommandBufferImpl* handle) noexcept { wgpuCommandBufferRelease(handle); }
void release(WGPUComputePassEncoderImpl* handle) noexcept { wgpuComputePassEncoderRelease(handle); }

}  // namespace wgk::gpu::detail
