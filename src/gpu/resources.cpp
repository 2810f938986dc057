// Device resources: buffers, compute pipelines from WGSL (with compilation messages), bind groups,
// timestamp query sets. Each creation runs inside an error scope, so the failing call is the one that throws.
#include <array>
#include <vector>

#include "gpu/callback.h"
#include "gpu/device_state.h"

namespace wgk::gpu {

using abi::to_std;

detail::Object<WGPUBufferImpl> raw_buffer(WGPUDevice device, uint64_t size, WGPUBufferUsage usage,
                                          std::string_view label) {
  WGPUBufferDescriptor descriptor{};
  descriptor.label = to_view(label);
  descriptor.usage = usage;
  descriptor.size = copy_size(size);
  return detail::Object<WGPUBufferImpl>(wgpuDeviceCreateBuffer(device, &descriptor));
}

Buffer Device::create_buffer(uint64_t size, BufferUsage usage, std::string_view label) {
  State& s = *state_;
  const uint64_t max = s.raw_limits.maxBufferSize;
  if (size == 0 || size > max)
    fail(ErrorKind::kInvalidArgument, "buffer '" + std::string(label) + "' size " + std::to_string(size) +
                                          " is not in [1, maxBufferSize = " + std::to_string(max) + "]");
  s.push(WGPUErrorFilter_OutOfMemory);
  s.push(WGPUErrorFilter_Validation);
  Buffer buffer;
  buffer.handle_ = raw_buffer(s.device.get(), size, static_cast<WGPUBufferUsage>(usage), label);
  buffer.size_ = size;
  buffer.usage_ = usage;
  s.pop_and_throw(2, "creating buffer '" + std::string(label) + "' of " + std::to_string(size) + " bytes");
  return buffer;
}

namespace {

/// One WGPUCompilationMessage, copied out of the callback.
struct CompilationMessage {
  WGPUCompilationMessageType type = WGPUCompilationMessageType_Info;
  uint64_t line = 0, column = 0;
  std::string text;
};
struct CompilationInfo {
  std::vector<CompilationMessage> messages;
};

/// "label:line:column: kind: text" per message, each followed by the quoted source line (1-based).
std::string format_messages(const std::vector<CompilationMessage>& messages, std::string_view name,
                            std::string_view wgsl) {
  std::string out;
  for (const CompilationMessage& m : messages) {
    const char* kind = m.type == WGPUCompilationMessageType_Error     ? "error"
                       : m.type == WGPUCompilationMessageType_Warning ? "warning"
                                                                       : "info";
    out += std::string(name) + ":" + std::to_string(m.line) + ":" + std::to_string(m.column) + ": " + kind + ": " +
           m.text + "\n";
    size_t start = 0;
    for (uint64_t line = 1; line < m.line && start != std::string_view::npos; ++line) {
      start = wgsl.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    if (m.line > 0 && start != std::string_view::npos && start < wgsl.size()) {
      const size_t end = wgsl.find('\n', start);
      out += "    " + std::string(wgsl.substr(start, end == std::string_view::npos ? end : end - start)) + "\n";
    }
  }
  return out;
}

}  // namespace

ComputePipeline Device::create_compute_pipeline(std::string_view wgsl, std::string_view label) {
  State& s = *state_;
  const std::string name = label.empty() ? std::string("compute pipeline") : std::string(label);
  WGPUShaderSourceWGSL source{};
  source.chain.sType = WGPUSType_ShaderSourceWGSL;
  source.code = to_view(wgsl);
  WGPUShaderModuleDescriptor module_descriptor{};
  module_descriptor.nextInChain = &source.chain;
  module_descriptor.label = to_view(name);

  // The scope covers the module's creation only; compilation info is asked for after it is popped.
  s.push(WGPUErrorFilter_Validation);
  const detail::Object<WGPUShaderModuleImpl> module(wgpuDeviceCreateShaderModule(s.device.get(), &module_descriptor));
  const std::string scope_error = s.pop();
  const CompilationInfo info = await_callback<CompilationInfo, WGPUCompilationInfoCallbackInfo>(
      s.instance.get(), to_ns(kDefaultTimeout), "WGSL compilation info",
      [&](const WGPUCompilationInfoCallbackInfo& callback) {
        return wgpuShaderModuleGetCompilationInfo(module.get(), callback);
      },
      [](CompilationInfo& out, WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo* info) {
        if (status != WGPUCompilationInfoRequestStatus_Success || !info) return;
        for (size_t i = 0; i < info->messageCount; ++i) {
          const WGPUCompilationMessage& m = info->messages[i];
          out.messages.push_back({m.type, m.lineNum, m.linePos, to_std(m.message)});
        }
      });
  const bool has_error = std::any_of(info.messages.begin(), info.messages.end(), [](const CompilationMessage& m) {
    return m.type == WGPUCompilationMessageType_Error;
  });
  if (has_error || !scope_error.empty())
    fail(ErrorKind::kGpu, "WGSL compilation of '" + name + "' failed:\n" + format_messages(info.messages, name, wgsl) +
                              (has_error ? std::string() : scope_error));

  WGPUComputePipelineDescriptor descriptor{};
  descriptor.label = to_view(name);
  descriptor.layout = nullptr;  // "auto"
  descriptor.compute.module = module.get();
  descriptor.compute.entryPoint = to_view("main");
  s.push(WGPUErrorFilter_Validation);
  ComputePipeline out;
  out.pipeline_ = detail::Object<WGPUComputePipelineImpl>(wgpuDeviceCreateComputePipeline(s.device.get(), &descriptor));
  out.label_ = name;
  s.pop_and_throw(1, "creating compute pipeline '" + name + "'");
  s.push(WGPUErrorFilter_Validation);
  out.group0_ = detail::Object<WGPUBindGroupLayoutImpl>(wgpuComputePipelineGetBindGroupLayout(out.pipeline_.get(), 0));
  s.pop_and_throw(1, "bind group layout 0 of '" + name + "' (does the shader use @group(0)?)");
  return out;
}

BindGroup Device::create_bind_group(const ComputePipeline& pipeline, std::span<const BindGroupEntry> entries) {
  State& s = *state_;
  if (!pipeline) fail(ErrorKind::kInvalidArgument, "create_bind_group: empty pipeline");
  constexpr size_t kInline = 16;
  std::array<WGPUBindGroupEntry, kInline> inline_entries{};
  std::vector<WGPUBindGroupEntry> heap_entries;
  WGPUBindGroupEntry* raw = inline_entries.data();
  if (entries.size() > kInline) {
    heap_entries.resize(entries.size());
    raw = heap_entries.data();
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    const BindGroupEntry& e = entries[i];
    if (!e.buffer || !*e.buffer)
      fail(ErrorKind::kInvalidArgument, "bind group of '" + pipeline.label() + "': binding " +
                                            std::to_string(e.binding) + " has no buffer");
    raw[i] = WGPUBindGroupEntry{};
    raw[i].binding = e.binding;
    raw[i].buffer = e.buffer->handle_.get();
    raw[i].offset = e.offset;
    raw[i].size = e.size == kWholeSize ? WGPU_WHOLE_SIZE : e.size;
  }
  WGPUBindGroupDescriptor descriptor{};
  descriptor.layout = pipeline.group0_.get();
  descriptor.entryCount = entries.size();
  descriptor.entries = raw;
  s.push(WGPUErrorFilter_Validation);
  BindGroup group;
  group.handle_ = detail::Object<WGPUBindGroupImpl>(wgpuDeviceCreateBindGroup(s.device.get(), &descriptor));
  s.pop_and_throw(1, "bind group 0 of '" + pipeline.label() + "'");
  return group;
}

TimestampQuery Device::create_timestamp_query(uint32_t passes) {
  State& s = *state_;
  if (!s.features.timestamp_query)
    fail(ErrorKind::kGpu, "adapter '" + s.info.device + "' has no timestamp-query feature");
  if (passes == 0 || passes > 2048)
    fail(ErrorKind::kInvalidArgument, "timestamp query for " + std::to_string(passes) + " passes: expected 1..2048");
  WGPUQuerySetDescriptor descriptor{};
  descriptor.label = to_view("timestamps");
  descriptor.type = WGPUQueryType_Timestamp;
  descriptor.count = 2 * passes;
  s.push(WGPUErrorFilter_Validation);
  TimestampQuery query;
  query.query_set_ = detail::Object<WGPUQuerySetImpl>(wgpuDeviceCreateQuerySet(s.device.get(), &descriptor));
  const uint64_t bytes = 8ull * descriptor.count;
  query.resolve_.handle_ =
      raw_buffer(s.device.get(), bytes, WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc, "timestamps resolve");
  query.resolve_.size_ = bytes;
  query.readback_.handle_ =
      raw_buffer(s.device.get(), bytes, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, "timestamps readback");
  query.readback_.size_ = bytes;
  query.passes_ = passes;
  s.pop_and_throw(1, "creating a timestamp query set of " + std::to_string(descriptor.count) + " queries");
  return query;
}

}  // namespace wgk::gpu
