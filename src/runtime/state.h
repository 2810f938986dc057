#pragma once
// Internal state behind the public handles of include/wgk/kernel.h, and the call path shared by
// Kernel::call and the timed calls of src/runtime/timing.h.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "contract/contract.h"
#include "contract/plan.h"
#include "gpu/device.h"
#include "runtime/boundary.h"
#include "runtime/cache.h"
#include "store/store.h"
#include "wgk/kernel.h"

namespace wgk::runtime {

/// A device, its capabilities as the planner sees them, and its cache (plans, programs, bind groups,
/// pooled buffers: one owner, one byte budget). `mutex` serializes every use of `gpu` (gpu::Device is
/// single-threaded); the cache has its own mutex, so a DeviceTensor may die on any thread.
struct DeviceState {
  DeviceState(const gpu::DeviceOptions& options, std::uint64_t cache_budget_bytes);
  ~DeviceState();

  gpu::Device gpu;
  contract::DeviceCaps caps;
  std::mutex mutex;
  DeviceCache cache;  ///< declared after `gpu`: emptied and destroyed first
  /// Host bytes written to the queue since the GPU was last seen idle (under `mutex`); past
  /// kMaxQueuedWriteBytes an upload waits for the GPU first, so Dawn's staging memory stays bounded.
  std::uint64_t queued_write_bytes = 0;
  static constexpr std::uint64_t kMaxQueuedWriteBytes = std::uint64_t{64} << 20;
};

/// A device buffer that keeps its device alive and goes back to the device's pool when released.
struct DeviceBuffer {
  std::shared_ptr<Device> device;
  gpu::Buffer buffer;
  std::uint64_t bytes = 0;  ///< the tensor's bytes (the allocation is allocation_size(bytes), cache.h)
  /// [min, max] of an integer tensor's elements once known: set at upload from the host data, or by the
  /// first range check that reads the buffer back. Valid for the buffer's life: a DeviceTensor's
  /// contents never change after the call or upload that made it (outputs always get fresh buffers).
  std::optional<IntRange> int_range;
  std::mutex int_range_mutex;
  ~DeviceBuffer();
};

struct KernelState {
  std::shared_ptr<const store::Package> package;
  std::shared_ptr<const contract::Contract> contract;
  std::shared_ptr<Device> device;
  std::unique_ptr<contract::Planner> planner;
  std::uint64_t serial = 0;  ///< DeviceCache::next_serial(): the prefix of this kernel's cache keys
  std::string serial_prefix() const { return std::string(reinterpret_cast<const char*>(&serial), sizeof serial); }
};

/// One call encoded up to its submit: boundary checks passed, plan chosen, inputs uploaded, outputs
/// allocated, bind groups made. `dispatches` point into `programs` and `bind_groups`, which the call
/// holds (an eviction meanwhile does not free them); destroy it under the device mutex.
struct EncodedCall {
  std::shared_ptr<CachedPlan> cached;
  std::shared_ptr<const contract::Plan> plan;  ///< cached->plan
  std::vector<std::shared_ptr<Program>> programs;  ///< per pass
  std::shared_ptr<BindGroupSet> bind_groups;
  std::vector<std::shared_ptr<DeviceBuffer>> inputs;  ///< uploaded host inputs, alive until submitted
  Outputs outputs;
  std::vector<gpu::Dispatch> dispatches;  ///< passes with work (an empty tensor has none)
  bool plan_cached = false;
};

/// Boundary (signature and data), plan, upload, allocation and bind groups of one call of `kernel`.
/// `lock` is a deferred lock on the kernel's device mutex: encode_call takes it once the host-side
/// checks pass and returns with it held, so the caller submits before anyone else uses the device.
/// Throws like Kernel::call.
EncodedCall encode_call(KernelState& kernel, const Inputs& inputs, const Attributes& attrs,
                        const Attributes& tunables, std::unique_lock<std::mutex>& lock);

}  // namespace wgk::runtime

namespace wgk {

// The opaque types of include/wgk/kernel.h are the runtime's state above.
struct Device::State final : runtime::DeviceState {
  using runtime::DeviceState::DeviceState;
};
struct Kernel::State final : runtime::KernelState {};
struct DeviceTensor::Buffer final : runtime::DeviceBuffer {};

/// The library's access to the private members of the public handles (their friend). Tools and tests use
/// wgk/introspect.h instead.
struct detail::Access {
  static std::shared_ptr<Device> make_device(std::unique_ptr<Device::State> state) {
    return std::shared_ptr<Device>(new Device(std::move(state)));
  }
  static Kernel make_kernel(std::shared_ptr<Kernel::State> state) { return Kernel(std::move(state)); }
  /// Throws as DeviceTensor's constructor (kInvalidArgument: no buffer, or a shape it cannot hold).
  static DeviceTensor make_tensor(DType dtype, Shape shape, std::shared_ptr<DeviceTensor::Buffer> buffer) {
    return DeviceTensor(dtype, std::move(shape), std::move(buffer));
  }
  static runtime::DeviceState& state(const Device& device) { return *device.state_; }
  static runtime::KernelState& state(const Kernel& kernel) { return *kernel.state_; }
  static const std::shared_ptr<DeviceTensor::Buffer>& buffer(const DeviceTensor& tensor) { return tensor.buffer_; }
};

namespace runtime {
inline DeviceState& state_of(const Device& device) { return detail::Access::state(device); }
inline KernelState& state_of(const Kernel& kernel) { return detail::Access::state(kernel); }
/// Null for a default-constructed DeviceTensor.
inline const std::shared_ptr<DeviceTensor::Buffer>& tensor_buffer(const DeviceTensor& tensor) {
  return detail::Access::buffer(tensor);
}
}  // namespace runtime

}  // namespace wgk
