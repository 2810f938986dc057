// The queue: writes, copies, submits of compute passes (optionally timestamped), waits, and read-backs
// through mapped staging buffers.
#include <array>
#include <cstring>
#include <vector>

#include "gpu/callback.h"
#include "gpu/device_state.h"

namespace wgk::gpu {
namespace {

using abi::to_std;

/// Finishes `encoder` and submits its one command buffer.
void finish_and_submit(WGPUQueue queue, const detail::Object<WGPUCommandEncoderImpl>& encoder) {
  const detail::Object<WGPUCommandBufferImpl> commands(wgpuCommandEncoderFinish(encoder.get(), nullptr));
  WGPUCommandBuffer raw = commands.get();
  wgpuQueueSubmit(queue, 1, &raw);
}

/// Maps `staging` for reading and copies `out.size()` bytes from its start; kGpu on timeout or map failure.
void map_and_copy(WGPUInstance instance, WGPUBuffer staging, uint64_t mapped_size, std::span<std::byte> out,
                  Timeout timeout, std::string_view what) {
  struct MapResult {
    WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
    std::string message;
  };
  const MapResult result = await_callback<MapResult, WGPUBufferMapCallbackInfo>(
      instance, to_ns(timeout), std::string(what) + " (" + std::string(kTimeoutSetting) + ")",
      [&](const WGPUBufferMapCallbackInfo& info) {
        return wgpuBufferMapAsync(staging, WGPUMapMode_Read, 0, mapped_size, info);
      },
      [](MapResult& r, WGPUMapAsyncStatus status, WGPUStringView message) {
        r.status = status;
        r.message = to_std(message);
      });
  if (result.status != WGPUMapAsyncStatus_Success)
    fail(ErrorKind::kGpu, std::string(what) + ": map failed: " + result.message);
  const void* mapped = wgpuBufferGetConstMappedRange(staging, 0, mapped_size);
  if (!mapped) fail(ErrorKind::kGpu, std::string(what) + ": wgpuBufferGetConstMappedRange returned null");
  std::memcpy(out.data(), mapped, out.size());
  wgpuBufferUnmap(staging);
}

}  // namespace

void Device::write(const Buffer& buffer, uint64_t offset, std::span<const std::byte> bytes) {
  State& s = *state_;
  if (!buffer) fail(ErrorKind::kInvalidArgument, "write: empty buffer");
  if (offset % 4 != 0 || offset > buffer.size() || bytes.size() > buffer.size() - offset)
    fail(ErrorKind::kInvalidArgument, "write of " + std::to_string(bytes.size()) + " bytes at offset " +
                                          std::to_string(offset) + " does not fit a buffer of " +
                                          std::to_string(buffer.size()) + " bytes (offset must be a multiple of 4)");
  const uint64_t aligned = round_down(bytes.size(), kCopyBufferAlignment);
  const uint64_t tail = bytes.size() - aligned;
  if (tail != 0 && offset + bytes.size() != buffer.size())
    fail(ErrorKind::kInvalidArgument, "write of " + std::to_string(bytes.size()) +
                                          " bytes (not a multiple of 4) must end at the end of the buffer");
  WGPUBuffer handle = buffer.handle_.get();
  if (aligned) wgpuQueueWriteBuffer(s.queue.get(), handle, offset, bytes.data(), aligned);
  if (tail) {
    std::array<std::byte, 4> padded{};
    std::memcpy(padded.data(), bytes.data() + aligned, tail);
    wgpuQueueWriteBuffer(s.queue.get(), handle, offset + aligned, padded.data(), padded.size());
  }
  s.check("write");
}

void Device::copy(const Buffer& source, uint64_t source_offset, const Buffer& destination,
                  uint64_t destination_offset, uint64_t size) {
  State& s = *state_;
  s.push(WGPUErrorFilter_Validation);
  const detail::Object<WGPUCommandEncoderImpl> encoder(wgpuDeviceCreateCommandEncoder(s.device.get(), nullptr));
  wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), source.handle_.get(), source_offset, destination.handle_.get(),
                                       destination_offset, size);
  finish_and_submit(s.queue.get(), encoder);
  s.pop_and_throw(1, "copy of " + std::to_string(size) + " bytes");
}

void Device::read(const Buffer& buffer, uint64_t offset, std::span<std::byte> out, std::optional<Timeout> timeout) {
  State& s = *state_;
  if (!buffer) fail(ErrorKind::kInvalidArgument, "read: empty buffer");
  if (offset % 4 != 0 || offset > buffer.size() || out.size() > buffer.size() - offset)
    fail(ErrorKind::kInvalidArgument, "read of " + std::to_string(out.size()) + " bytes at offset " +
                                          std::to_string(offset) + " does not fit a buffer of " +
                                          std::to_string(buffer.size()) + " bytes (offset must be a multiple of 4)");
  if (out.empty()) return;
  const uint64_t size = copy_size(out.size());  // within the allocation (copy_size at creation)
  s.push(WGPUErrorFilter_Validation);
  const detail::Object<WGPUBufferImpl> staging =
      raw_buffer(s.device.get(), size, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, "readback");
  {
    const detail::Object<WGPUCommandEncoderImpl> encoder(wgpuDeviceCreateCommandEncoder(s.device.get(), nullptr));
    wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), buffer.handle_.get(), offset, staging.get(), 0, size);
    finish_and_submit(s.queue.get(), encoder);
  }
  s.pop_and_throw(1, "read back");
  map_and_copy(s.instance.get(), staging.get(), size, out, timeout.value_or(s.timeout),
               "read back of " + std::to_string(out.size()) + " bytes");
}

std::vector<std::byte> Device::read(const Buffer& buffer, std::optional<Timeout> timeout) {
  std::vector<std::byte> out(buffer.size());
  read(buffer, 0, out, timeout);
  return out;
}

void Device::submit(std::span<const Dispatch> passes, TimestampQuery* timestamps, bool validate, Layout layout) {
  State& s = *state_;
  const bool span = layout != Layout::kPassEach;
  const bool one_pass = layout == Layout::kOnePass;
  if (timestamps && !span && passes.size() > timestamps->passes())
    fail(ErrorKind::kInvalidArgument, "submit of " + std::to_string(passes.size()) +
                                          " passes with a timestamp query for " +
                                          std::to_string(timestamps->passes()));
  for (const Dispatch& d : passes)
    if (!d.pipeline || !*d.pipeline || !d.bind_group || !*d.bind_group)
      fail(ErrorKind::kInvalidArgument, "submit: a dispatch has no pipeline or bind group");
  if (validate) {
    s.push(WGPUErrorFilter_Validation);
  } else {
    s.check("submit");  // errors an earlier unvalidated submit left behind
  }
  const detail::Object<WGPUCommandEncoderImpl> encoder(wgpuDeviceCreateCommandEncoder(s.device.get(), nullptr));
  WGPUQuerySet query_set = timestamps ? timestamps->query_set_.get() : nullptr;
  if (one_pass && !passes.empty()) {
    WGPUPassTimestampWrites writes{};
    WGPUComputePassDescriptor descriptor{};
    if (query_set) {
      writes.querySet = query_set;
      writes.beginningOfPassWriteIndex = 0;
      writes.endOfPassWriteIndex = 1;
      descriptor.timestampWrites = &writes;
    }
    const detail::Object<WGPUComputePassEncoderImpl> pass(wgpuCommandEncoderBeginComputePass(encoder.get(), &descriptor));
    // Each pipeline and each bind group set once per run of equal ones: a pass keeps both until set again
    // (WebGPU), and Dawn records and tracks every SetBindGroup (tests/gpu/device_test.cpp OnePassRebinds).
    WGPUComputePipeline current = nullptr;
    WGPUBindGroup bound = nullptr;
    for (const Dispatch& d : passes) {
      if (d.pipeline->pipeline_.get() != current) {
        current = d.pipeline->pipeline_.get();
        wgpuComputePassEncoderSetPipeline(pass.get(), current);
        bound = nullptr;  // another pipeline: bind again (its layout may differ)
      }
      if (d.bind_group->handle_.get() != bound) {
        bound = d.bind_group->handle_.get();
        wgpuComputePassEncoderSetBindGroup(pass.get(), 0, bound, 0, nullptr);
      }
      wgpuComputePassEncoderDispatchWorkgroups(pass.get(), d.x, d.y, d.z);
    }
    wgpuComputePassEncoderEnd(pass.get());
  }
  for (size_t i = 0; i < passes.size() && !one_pass; ++i) {
    WGPUPassTimestampWrites writes{};
    WGPUComputePassDescriptor descriptor{};
    if (query_set && !span) {
      writes.querySet = query_set;
      writes.beginningOfPassWriteIndex = static_cast<uint32_t>(2 * i);
      writes.endOfPassWriteIndex = static_cast<uint32_t>(2 * i + 1);
      descriptor.timestampWrites = &writes;
    } else if (query_set && (i == 0 || i + 1 == passes.size())) {
      writes.querySet = query_set;
      writes.beginningOfPassWriteIndex = i == 0 ? 0 : WGPU_QUERY_SET_INDEX_UNDEFINED;
      writes.endOfPassWriteIndex = i + 1 == passes.size() ? 1 : WGPU_QUERY_SET_INDEX_UNDEFINED;
      descriptor.timestampWrites = &writes;
    }
    const detail::Object<WGPUComputePassEncoderImpl> pass(wgpuCommandEncoderBeginComputePass(encoder.get(), &descriptor));
    const Dispatch& d = passes[i];
    wgpuComputePassEncoderSetPipeline(pass.get(), d.pipeline->pipeline_.get());
    wgpuComputePassEncoderSetBindGroup(pass.get(), 0, d.bind_group->handle_.get(), 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass.get(), d.x, d.y, d.z);
    wgpuComputePassEncoderEnd(pass.get());
  }
  if (query_set && !passes.empty()) {
    const auto stamped = static_cast<uint32_t>(span ? 1 : passes.size());
    const auto count = 2 * stamped;
    WGPUBuffer resolve = timestamps->resolve_.handle_.get();
    wgpuCommandEncoderResolveQuerySet(encoder.get(), query_set, 0, count, resolve, 0);
    wgpuCommandEncoderCopyBufferToBuffer(encoder.get(), resolve, 0, timestamps->readback_.handle_.get(), 0, 8ull * count);
    timestamps->written_ = stamped;
  }
  finish_and_submit(s.queue.get(), encoder);
  if (!validate) return;
  s.pop_and_throw(1, passes.size() == 1 ? "submit of '" + passes[0].pipeline->label() + "'"
                                         : "submit of " + std::to_string(passes.size()) + " passes");
}

void Device::wait(std::optional<Timeout> timeout) {
  State& s = *state_;
  struct Result {
    WGPUQueueWorkDoneStatus status = WGPUQueueWorkDoneStatus_Error;
    std::string message;
  };
  const Result result = await_callback<Result, WGPUQueueWorkDoneCallbackInfo>(
      s.instance.get(), to_ns(timeout.value_or(s.timeout)), "submitted GPU work (" + std::string(kTimeoutSetting) + ")",
      [&](const WGPUQueueWorkDoneCallbackInfo& info) { return wgpuQueueOnSubmittedWorkDone(s.queue.get(), info); },
      [](Result& r, WGPUQueueWorkDoneStatus status, WGPUStringView message) {
        r.status = status;
        r.message = to_std(message);
      },
      [&s] { s.check("wait"); });  // a lost device explains a timeout better than the timeout
  s.check("wait");
  if (result.status != WGPUQueueWorkDoneStatus_Success)
    fail(ErrorKind::kGpu, "submitted work did not complete: " + result.message);
}

std::vector<uint64_t> Device::read_timestamps(TimestampQuery& query, std::optional<Timeout> timeout) {
  State& s = *state_;
  if (!query || query.written_ == 0) fail(ErrorKind::kInvalidArgument, "read_timestamps: nothing was timestamped");
  std::vector<uint64_t> out(2ull * query.written_);
  map_and_copy(s.instance.get(), query.readback_.handle_.get(), 8ull * out.size(),
               std::as_writable_bytes(std::span(out)), timeout.value_or(s.timeout), "timestamps");
  return out;
}

Timeout Device::timeout() const { return state_->timeout; }

}  // namespace wgk::gpu
