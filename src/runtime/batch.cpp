// Batch: kernel calls recorded through encode_call and submitted in one command buffer (kernel.h).
#include <atomic>
#include <exception>

#include "runtime/state.h"
#include "wgk/error.h"
#include "wgk/kernel.h"

namespace wgk {
namespace runtime {
namespace {

std::uint64_t next_batch_serial() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1);
}

// Releases the claims, holds and references of what `batch` recorded. Caller holds the device mutex (the
// references may be the last ones to Dawn objects).
void release(BatchState& batch, DeviceState& device) {
  for (auto& set : batch.calls)
    if (set && set->batch_claims > 0) --set->batch_claims;
  for (const auto& [key, held] : batch.plans) {
    device.cache.let_go(held.programs);
    device.cache.let_go(held.fused);
  }
  batch.plans.clear();
  batch.calls.clear();
  batch.dispatches.clear();
  batch.open.cached.reset();  // the open dispatch's vectors keep their capacity
  batch.open.calls = 0;
  batch.open.buffers.clear();
  batch.open.program.reset();
  batch.open.programs.clear();
  batch.inputs.clear();
  batch.outputs.clear();
}

}  // namespace

BatchState::BatchState() : serial(next_batch_serial()) {}

bool flush_batch(BatchState& batch, DeviceState& device, gpu::TimestampQuery* timestamps) {
  std::lock_guard lock(device.mutex);
  if (batch.calls.empty()) {  // plans may be held for refused calls
    if (!batch.plans.empty()) release(batch, device);
    return false;
  }
  // Whether the submit throws or not, the batch is done: its outputs are readable (0) or never will be.
  struct Finish {
    BatchState& batch;
    DeviceState& device;
    bool submitted = false;
    ~Finish() {
      for (const auto& out : batch.outputs) out->pending_batch.store(submitted ? 0 : DeviceBuffer::kNeverWritten);
      release(batch, device);
    }
  } finish{batch, device};
  close_open_dispatch(batch, device);
  // Validated: a Dawn error in this command buffer is reported by this flush, not by a later call.
  if (!batch.dispatches.empty()) device.gpu.submit(batch.dispatches, timestamps, /*validate=*/true, gpu::Layout::kOnePass);
  finish.submitted = true;
  return true;
}

void drop_batch(BatchState& batch, DeviceState& device) {
  for (const auto& out : batch.outputs) out->pending_batch.store(DeviceBuffer::kNeverWritten);
  release(batch, device);
}

}  // namespace runtime

Batch::Batch(std::shared_ptr<Device> device)
    : state_(std::make_unique<State>()), device_(device ? std::move(device) : Device::default_device()) {}

Batch::~Batch() {
  if (!state_ || (state_->calls.empty() && state_->plans.empty())) return;
  runtime::DeviceState& device = runtime::state_of(*device_);
  std::lock_guard lock(device.mutex);
  runtime::drop_batch(*state_, device);
}

Outputs Batch::record(const Kernel& kernel, const Inputs& inputs, const Attributes& attrs, const Attributes& tunables,
                      CallInfo* info, const OutputNames& outputs) {
  runtime::KernelState& k = runtime::state_of(kernel);
  if (k.device.get() != device_.get())
    throw Error(ErrorKind::kInvalidArgument,
                "Batch::record: kernel " + k.package->id + " is bound to another device than the batch (" +
                    runtime::two_devices(*k.device, "the kernel's", *device_, "the batch's") +
                    "): record it into a Batch(kernel.device()), or get the kernel with the batch's device");
  runtime::BatchState& b = *state_;
  std::lock_guard batch_lock(b.mutex);
  if (b.calls.size() >= kMaxCalls)
    throw Error(ErrorKind::kInvalidArgument, "Batch::record: the batch holds " + std::to_string(b.calls.size()) +
                                                 " calls, the most one batch holds (Batch::kMaxCalls); flush() first");
  std::unique_lock<std::mutex> lock(runtime::state_of(*device_).mutex, std::defer_lock);
  runtime::EncodedCall& call = b.encoded;  // reused: its vectors keep their capacity from call to call
  with_context([&] { runtime::encode_call(call, b.scratch, k, inputs, attrs, tunables, lock, outputs, &b); },
               [&] { return "recording a call of " + k.package->id + " in a Batch"; });
  // Under the device mutex from here: nothing another thread does can see this call's objects yet.
  if (info) {
    info->variant = call.plan->variant->id;
    info->plan_cached = call.plan_cached;
  }
  b.calls.push_back(std::move(call.bind_groups));
  b.dispatches.insert(b.dispatches.end(), call.dispatches.begin(), call.dispatches.end());
  for (auto& uploaded : call.inputs) b.inputs.push_back(std::move(uploaded));
  for (const auto& [name, arg] : inputs)
    if (const DeviceTensor* dt = arg.device()) b.inputs.push_back(runtime::tensor_buffer(*dt));
  for (const auto& [name, out] : call.outputs) {
    const auto& buffer = runtime::tensor_buffer(out);
    buffer->pending_batch.store(b.serial);
    b.outputs.push_back(buffer);
  }
  Outputs outputs_of_call = std::move(call.outputs);
  call.clear();
  return outputs_of_call;
}

void Batch::flush() {
  std::lock_guard batch_lock(state_->mutex);
  runtime::flush_batch(*state_, runtime::state_of(*device_), nullptr);
}

std::size_t Batch::size() const {
  std::lock_guard batch_lock(state_->mutex);
  return state_->calls.size();
}

std::size_t Batch::dispatches() const {
  std::lock_guard batch_lock(state_->mutex);
  return state_->dispatches.size();
}

const std::shared_ptr<Device>& Batch::device() const { return device_; }

}  // namespace wgk
