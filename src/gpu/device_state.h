#pragma once
// Device::State and what the files of the Dawn binding share: adapter.cpp (adapter choice), device.cpp
// (device creation, error scopes), resources.cpp (buffers, pipelines, bind groups, query sets), queue.cpp
// (writes, copies, submits, waits, reads), limits.cpp (WGPULimits by WebGPU name). PRIVATE to src/gpu/:
// it includes <webgpu/webgpu.h>.
#include <webgpu/webgpu.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/buffer_sizes.h"
#include "gpu/abi.h"
#include "gpu/device.h"
#include "gpu/handles.h"
#include "wgk/error.h"

namespace wgk::gpu {

/// Throws wgk::Error(kind, "gpu: " + message).
[[noreturn]] void fail(ErrorKind kind, const std::string& message);

inline WGPUStringView to_view(std::string_view text) { return WGPUStringView{text.data(), text.size()}; }
inline uint64_t to_ns(Timeout timeout) { return static_cast<uint64_t>(std::max<int64_t>(0, timeout.count())); }

/// What describe() reads from an adapter: info, features, and its raw limits (for requiredLimits).
struct AdapterData {
  AdapterInfo info;
  Features features;
  WGPULimits limits{};
};

/// An adapter for `options` (adapter.cpp), owned, with its description. Applies the environment when
/// options.use_environment (device.h). Throws kInvalidArgument (a bad WGK_BACKEND), kNotFound, kGpu.
struct ChosenAdapter {
  detail::Object<WGPUAdapterImpl> adapter;
  AdapterData data;
};
ChosenAdapter choose_adapter(WGPUInstance instance, const DeviceOptions& options);

/// GPUSupportedLimits as (name, value) pairs: the WGPULimits members of wgk::kWebGpuLimits (limits.cpp).
Limits to_pairs(const WGPULimits& limits);

/// A buffer of copy_size(size) bytes; no error scope (the caller's).
detail::Object<WGPUBufferImpl> raw_buffer(WGPUDevice device, uint64_t size, WGPUBufferUsage usage,
                                          std::string_view label);

struct Device::State {
  // Declaration order is release order reversed: the queue, the device, the adapter, then the instance.
  detail::Object<WGPUInstanceImpl> instance;
  detail::Object<WGPUAdapterImpl> adapter;
  detail::Object<WGPUDeviceImpl> device;
  detail::Object<WGPUQueueImpl> queue;
  AdapterInfo info;
  Features features;
  Limits limits;
  WGPULimits raw_limits{};
  std::string uncaptured;  // uncaptured errors since the last check
  bool lost = false;
  std::string lost_message;
  std::string toggles_error;  // why Dawn refused the toggles descriptor; empty when accepted
  Timeout timeout = kDefaultTimeout;  // DeviceOptions::timeout: waits for submitted GPU work

  /// Destroys the device (pending callbacks end) and lets the instance run what that left, before the
  /// members release their references.
  ~State();

  /// Throws what Dawn reported outside error scopes (device lost, uncaptured errors), naming `where`.
  void check(std::string_view where);
  void push(WGPUErrorFilter filter) { wgpuDevicePushErrorScope(device.get(), filter); }
  /// Pops one error scope; returns Dawn's message, or "" when the scope caught nothing.
  std::string pop();
  /// Pops `count` scopes and throws the first error found, prefixed with `where`; then check(where).
  void pop_and_throw(int count, std::string_view where);
};

}  // namespace wgk::gpu
