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
#include "store/store.h"
#include "wgk/kernel.h"

namespace wgk::runtime {

/// A device, its capabilities as the planner sees them, the pipeline cache shared by every kernel on
/// it, and a pool of storage buffers. `mutex` serializes every use of `gpu` (gpu::Device is
/// single-threaded); `pool_mutex` guards only the pool, so a DeviceTensor may die on any thread.
struct DeviceState {
  explicit DeviceState(const gpu::DeviceOptions& options);

  gpu::Device gpu;
  contract::DeviceCaps caps;
  std::mutex mutex;
  /// Compiled pipelines by WGSL text: a repeat call compiles nothing.
  std::unordered_map<std::string, std::shared_ptr<gpu::ComputePipeline>> pipelines;
  std::size_t pipelines_compiled = 0;  ///< compilations so far (tests: a repeat call compiles nothing)

  /// The pipeline for `wgsl`, compiled on first use. Caller holds `mutex`.
  std::shared_ptr<gpu::ComputePipeline> pipeline(const std::string& wgsl, const std::string& label);
  std::size_t gpu_pipelines_compiled() {
    std::lock_guard lock(mutex);
    return pipelines_compiled;
  }

  /// A storage buffer of `size` bytes (a multiple of 16): a pooled one of that size, else a new one.
  /// Caller holds `mutex`. Pooled buffers hold stale data: every byte a kernel reads is written first.
  gpu::Buffer take_buffer(std::uint64_t size, std::string_view label);
  /// Returns a buffer to the pool (any thread). Past kMaxPooledBytes it is released by the next
  /// take_buffer instead (Dawn calls stay under `mutex`).
  void give_back(gpu::Buffer buffer);
  static constexpr std::uint64_t kMaxPooledBytes = std::uint64_t{256} << 20;

  ~DeviceState();

 private:
  std::mutex pool_mutex_;
  std::unordered_map<std::uint64_t, std::vector<gpu::Buffer>> pool_;
  std::uint64_t pooled_bytes_ = 0;
  std::vector<gpu::Buffer> to_release_;
};

/// A device buffer that keeps its device alive and goes back to the device's pool when released.
struct DeviceBuffer {
  std::shared_ptr<Device> device;
  gpu::Buffer buffer;
  std::uint64_t bytes = 0;  ///< the tensor's bytes (the allocation is rounded up to 16)
  /// [min, max] of an integer tensor's elements once known: set at upload from the host data, or by the
  /// first range check that reads the buffer back. Valid for the buffer's life: a DeviceTensor's
  /// contents never change after the call or upload that made it (outputs always get fresh buffers).
  std::optional<IntRange> int_range;
  std::mutex int_range_mutex;
  ~DeviceBuffer();
};

/// GPU objects that depend only on the plan (pipelines, uniform buffers) and the bind groups of the
/// buffers it was last called with. Used under the device mutex.
struct PreparedPlan {
  std::vector<std::shared_ptr<gpu::ComputePipeline>> pipelines;  ///< one per pass
  std::vector<std::vector<gpu::Buffer>> uniforms;                ///< per pass, per uniform binding
  /// Bind groups (one per pass) by the identities of the tensor buffers bound: with pooled buffers a
  /// steady stream of same-shaped calls reuses them. Bounded: cleared past kMaxBindGroupSets.
  std::unordered_map<std::string, std::vector<gpu::BindGroup>> bind_groups;
  static constexpr std::size_t kMaxBindGroupSets = 64;
};

struct KernelState {
  std::shared_ptr<const store::Package> package;
  std::shared_ptr<const contract::Contract> contract;
  std::shared_ptr<Device> device;
  std::unique_ptr<contract::Planner> planner;
  std::mutex prepared_mutex;
  std::unordered_map<const contract::Plan*, std::pair<std::shared_ptr<const contract::Plan>, std::shared_ptr<PreparedPlan>>>
      prepared;
};

/// One call encoded up to its submit: boundary checks passed, plan chosen, inputs uploaded, outputs
/// allocated, bind groups made. `dispatches` point into `prepared` and stay valid while the device
/// mutex stays held by the caller.
struct EncodedCall {
  std::shared_ptr<const contract::Plan> plan;
  std::shared_ptr<PreparedPlan> prepared;
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
