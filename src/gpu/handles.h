#pragma once
// Move-only RAII owners of Dawn objects, as opaque handles: this header never includes <webgpu/webgpu.h>,
// so code outside src/gpu/ sees no WGPU type. Objects are created by wgk::gpu::Device (device.h).
#include <cstdint>
#include <string>
#include <utility>

namespace wgk::gpu {

class Device;

namespace detail {
/// Which wgpu*Release a handle calls; one value per Dawn object kind held here.
enum class Kind : uint8_t { kBuffer, kComputePipeline, kBindGroupLayout, kBindGroup, kQuerySet };
void release(Kind kind, void* handle) noexcept;

/// Owns one reference to a Dawn object (a WGPU* pointer stored as void*).
template <Kind K>
class Owned {
 public:
  Owned() = default;
  explicit Owned(void* handle) : handle_(handle) {}
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }
  void reset() noexcept {
    if (handle_) release(K, std::exchange(handle_, nullptr));
  }
  void* get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != nullptr; }

 private:
  void* handle_ = nullptr;
};
}  // namespace detail

/// Buffer usages a kernel needs (WebGPU GPUBufferUsage bits, as the spec numbers them).
enum class BufferUsage : uint32_t {
  kStorage = 0x80 | 0x04 | 0x08,  ///< STORAGE | COPY_SRC | COPY_DST: tensors
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
  detail::Owned<detail::Kind::kBuffer> handle_;
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
  detail::Owned<detail::Kind::kComputePipeline> pipeline_;
  detail::Owned<detail::Kind::kBindGroupLayout> group0_;
  std::string label_;
};

/// Bind group 0 of a pipeline: buffers by binding index.
class BindGroup {
 public:
  BindGroup() = default;
  explicit operator bool() const noexcept { return static_cast<bool>(handle_); }

 private:
  friend class Device;
  detail::Owned<detail::Kind::kBindGroup> handle_;
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
  detail::Owned<detail::Kind::kQuerySet> query_set_;
  Buffer resolve_;   // QUERY_RESOLVE | COPY_SRC
  Buffer readback_;  // MAP_READ | COPY_DST
  uint32_t passes_ = 0;
  uint32_t written_ = 0;  // passes written by the last submit
};

}  // namespace wgk::gpu
