#pragma once
// RAII owners of Dawn objects. Every Dawn handle the library holds is a detail::Object<Impl> (one template,
// in the manner of Dawn's ObjectBase<Derived, CType> in generator/templates/api_cpp.h: it owns one
// reference and gives it back through the C API's wgpu*Release). Unlike Dawn's, ours is move-only (no
// wgpu*AddRef: nothing here shares a handle). This header never includes <webgpu/webgpu.h>: it names the
// C API's opaque structs (`typedef struct WGPUBufferImpl* WGPUBuffer` in webgpu.h) by forward declaration,
// so code outside src/gpu/ sees no WGPU function. Objects are created by wgk::gpu::Device (device.h).
#include <cstdint>
#include <string>
#include <utility>

// The C API's object types (webgpu.h declares WGPUX as `struct WGPUXImpl*`).
struct WGPUInstanceImpl;
struct WGPUAdapterImpl;
struct WGPUDeviceImpl;
struct WGPUQueueImpl;
struct WGPUBufferImpl;
struct WGPUShaderModuleImpl;
struct WGPUComputePipelineImpl;
struct WGPUBindGroupLayoutImpl;
struct WGPUBindGroupImpl;
struct WGPUQuerySetImpl;
struct WGPUCommandEncoderImpl;
struct WGPUCommandBufferImpl;
struct WGPUComputePassEncoderImpl;

namespace wgk::gpu {

class Device;

namespace detail {
/// wgpu<Type>Release for each object type held here (object.cpp); the overload picks the function.
void release(WGPUInstanceImpl* handle) noexcept;
void release(WGPUAdapterImpl* handle) noexcept;
void release(WGPUDeviceImpl* handle) noexcept;
void release(WGPUQueueImpl* handle) noexcept;
void release(WGPUBufferImpl* handle) noexcept;
void release(WGPUShaderModuleImpl* handle) noexcept;
void release(WGPUComputePipelineImpl* handle) noexcept;
void release(WGPUBindGroupLayoutImpl* handle) noexcept;
void release(WGPUBindGroupImpl* handle) noexcept;
void release(WGPUQuerySetImpl* handle) noexcept;
void release(WGPUCommandEncoderImpl* handle) noexcept;
void release(WGPUCommandBufferImpl* handle) noexcept;
void release(WGPUComputePassEncoderImpl* handle) noexcept;

/// Owns one reference to a Dawn object of C type `Impl*` (e.g. Object<WGPUBufferImpl> holds a WGPUBuffer).
/// Construction from a raw handle adopts the reference a wgpu*Create*/Get* call returned (Dawn's Acquire);
/// null is an empty object. Move-only; the destructor and reset() release.
template <typename Impl>
class Object {
 public:
  Object() = default;
  explicit Object(Impl* handle) noexcept : handle_(handle) {}
  Object(Object&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Object& operator=(Object&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  ~Object() { reset(); }
  void reset() noexcept {
    if (handle_) release(std::exchange(handle_, nullptr));
  }
  Impl* get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  Impl* handle_ = nullptr;
};
}  // namespace detail

/// Buffer usages a kernel needs (WebGPU GPUBufferUsage bits, as the spec numbers them).
enum class BufferUsage : uint32_t {
  /// STORAGE | UNIFORM | COPY_SRC | COPY_DST: tensors (UNIFORM: a fused pass may bind a small per-call input
  /// as a uniform, plan::PlannedBinding::as_uniform)
  kStorage = 0x80 | 0x40 | 0x04 | 0x08,
  kUniform = 0x40 | 0x08,         ///< UNIFORM | COPY_DST: the Params struct
};

/// A GPU buffer of `size()` bytes (allocation rounded up to a multiple of 4, as WebGPU copies need).
class Buffer {
 public:
  Buffer() = default;
  uint64_t size() const noexcept { return size_; }
  /// Identity of the underlying Dawn buffer while it lives (for caches keyed by buffers).
  const void* id() const noexcept { return handle_.get(); }
  BufferUsage usage() const noexcept { return usage_; }
  explicit operator bool() const noexcept { return static_cast<bool>(handle_); }

 private:
  friend class Device;
  detail::Object<WGPUBufferImpl> handle_;
  uint64_t size_ = 0;
  BufferUsage usage_ = BufferUsage::kStorage;
};

/// A compute pipeline from WGSL (entry point "main", layout "auto") and its group-0 bind group layout.
class ComputePipeline {
 public:
  ComputePipeline() = default;
  const std::string& label() const noexcept { return label_; }
  explicit operator bool() const noexcept { return static_cast<bool>(pipeline_); }

 private:
  friend class Device;
  detail::Object<WGPUComputePipelineImpl> pipeline_;
  detail::Object<WGPUBindGroupLayoutImpl> group0_;
  std::string label_;
};

/// Bind group 0 of a pipeline: buffers by binding index.
class BindGroup {
 public:
  BindGroup() = default;
  explicit operator bool() const noexcept { return static_cast<bool>(handle_); }

 private:
  friend class Device;
  detail::Object<WGPUBindGroupImpl> handle_;
};

/// A timestamp query set for up to `passes()` compute passes (2 timestamps per pass: begin, end),
/// with the buffers that resolve and read it back. Needs the timestamp-query feature.
class TimestampQuery {
 public:
  TimestampQuery() = default;
  uint32_t passes() const noexcept { return passes_; }
  explicit operator bool() const noexcept { return static_cast<bool>(query_set_); }

 private:
  friend class Device;
  detail::Object<WGPUQuerySetImpl> query_set_;
  Buffer resolve_;   // QUERY_RESOLVE | COPY_SRC
  Buffer readback_;  // MAP_READ | COPY_DST
  uint32_t passes_ = 0;
  uint32_t written_ = 0;  // passes written by the last submit
};

}  // namespace wgk::gpu
