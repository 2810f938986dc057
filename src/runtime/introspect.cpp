// wgk/introspect.h over the runtime state of src/runtime/state.h.
#include "wgk/introspect.h"

#include <mutex>

#include "runtime/state.h"

namespace wgk::introspect {

const std::shared_ptr<const store::Package>& package(const Kernel& kernel) { return runtime::state_of(kernel).package; }

const std::string& package_file(const Kernel& kernel, std::string_view name) {
  return runtime::state_of(kernel).package->webgpu_file(name);
}

DeviceTensor view(const DeviceTensor& tensor, DType dtype, Shape shape) {
  return detail::Access::make_tensor(dtype, std::move(shape), runtime::tensor_buffer(tensor));
}

std::optional<std::pair<std::int64_t, std::int64_t>> recorded_range(const DeviceTensor& tensor) {
  const auto& buffer = runtime::tensor_buffer(tensor);
  if (!buffer) return std::nullopt;
  std::lock_guard lock(buffer->int_range_mutex);
  if (!buffer->int_range) return std::nullopt;
  return std::pair{buffer->int_range->min, buffer->int_range->max};
}

void forget_range(const DeviceTensor& tensor) {
  const auto& buffer = runtime::tensor_buffer(tensor);
  if (!buffer) return;
  std::lock_guard lock(buffer->int_range_mutex);
  buffer->int_range.reset();
}

std::shared_ptr<const contract::Contract> contract(const Kernel& kernel) { return runtime::state_of(kernel).contract; }

const plan::DeviceCaps& caps(const Device& device) { return runtime::state_of(device).caps; }

void compile_wgsl(const Device& device, const std::string& wgsl, const std::string& label) {
  runtime::DeviceState& state = runtime::state_of(device);
  std::lock_guard lock(state.mutex);
  state.gpu.create_compute_pipeline(wgsl, label);
}

runtime::KernelState& state(const Kernel& kernel) { return runtime::state_of(kernel); }
runtime::DeviceState& state(const Device& device) { return runtime::state_of(device); }

}  // namespace wgk::introspect
