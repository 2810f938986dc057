// Device: adapter choice, device creation, buffers, pipelines, bind groups, submits and waits on Dawn.
#include "gpu/device.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>

#include "gpu/abi.h"
#include "wgk/error.h"

namespace wgk::gpu {
namespace {

using abi::to_std;

[[noreturn]] void fail(ErrorKind kind, const std::string& message) { throw Error(kind, "gpu: " + message); }

WGPUStringView to_view(std::string_view text) { return WGPUStringView{text.data(), text.size()}; }

uint64_t round_up4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Waits for one future; kGpu on timeout or wait error. `what` names the operation waited for.
void wait_future(WGPUInstance instance, WGPUFuture future, Timeout timeout, std::string_view what) {
  abi::wait_future(instance, future, static_cast<uint64_t>(std::max<int64_t>(0, timeout.count())), what);
}

std::string backend_name(WGPUBackendType type) {
  switch (type) {
    case WGPUBackendType_Null: return "null";
    case WGPUBackendType_WebGPU: return "webgpu";
    case WGPUBackendType_D3D11: return "d3d11";
    case WGPUBackendType_D3D12: return "d3d12";
    case WGPUBackendType_Metal: return "metal";
    case WGPUBackendType_Vulkan: return "vulkan";
    case WGPUBackendType_OpenGL: return "opengl";
    case WGPUBackendType_OpenGLES: return "opengles";
    default: return "undefined";
  }
}
std::string adapter_type_name(WGPUAdapterType type) {
  switch (type) {
    case WGPUAdapterType_DiscreteGPU: return "discrete GPU";
    case WGPUAdapterType_IntegratedGPU: return "integrated GPU";
    case WGPUAdapterType_CPU: return "CPU";
    default: return "unknown";
  }
}

Limits to_pairs(const WGPULimits& l) {
  // WebGPU GPUSupportedLimits names; fields past maxComputeWorkgroupsPerDimension are not read (abi.h).
  return {
      {"maxTextureDimension1D", l.maxTextureDimension1D},
      {"maxTextureDimension2D", l.maxTextureDimension2D},
      {"maxTextureDimension3D", l.maxTextureDimension3D},
      {"maxTextureArrayLayers", l.maxTextureArrayLayers},
      {"maxBindGroups", l.maxBindGroups},
      {"maxBindGroupsPlusVertexBuffers", l.maxBindGroupsPlusVertexBuffers},
      {"maxBindingsPerBindGroup", l.maxBindingsPerBindGroup},
      {"maxDynamicUniformBuffersPerPipelineLayout", l.maxDynamicUniformBuffersPerPipelineLayout},
      {"maxDynamicStorageBuffersPerPipelineLayout", l.maxDynamicStorageBuffersPerPipelineLayout},
      {"maxSampledTexturesPerShaderStage", l.maxSampledTexturesPerShaderStage},
      {"maxSamplersPerShaderStage", l.maxSamplersPerShaderStage},
      {"maxStorageBuffersPerShaderStage", l.maxStorageBuffersPerShaderStage},
      {"maxStorageTexturesPerShaderStage", l.maxStorageTexturesPerShaderStage},
      {"maxUniformBuffersPerShaderStage", l.maxUniformBuffersPerShaderStage},
      {"maxUniformBufferBindingSize", l.maxUniformBufferBindingSize},
      {"maxStorageBufferBindingSize", l.maxStorageBufferBindingSize},
      {"minUniformBufferOffsetAlignment", l.minUniformBufferOffsetAlignment},
      {"minStorageBufferOffsetAlignment", l.minStorageBufferOffsetAlignment},
      {"maxVertexBuffers", l.maxVertexBuffers},
      {"maxBufferSize", l.maxBufferSize},
      {"maxVertexAttributes", l.maxVertexAttributes},
      {"maxVertexBufferArrayStride", l.maxVertexBufferArrayStride},
      {"maxInterStageShaderVariables", l.maxInterStageShaderVariables},
      {"maxColorAttachments", l.maxColorAttachments},
      {"maxColorAttachmentBytesPerSample", l.maxColorAttachmentBytesPerSample},
      {"maxComputeWorkgroupStorageSize", l.maxComputeWorkgroupStorageSize},
      {"maxComputeInvocationsPerWorkgroup", l.maxComputeInvocationsPerWorkgroup},
      {"maxComputeWorkgroupSizeX", l.maxComputeWorkgroupSizeX},
      {"maxComputeWorkgroupSizeY", l.maxComputeWorkgroupSizeY},
      {"maxComputeWorkgroupSizeZ", l.maxComputeWorkgroupSizeZ},
      {"maxComputeWorkgroupsPerDimension", l.maxComputeWorkgroupsPerDimension},
  };
}

struct AdapterData {
  AdapterInfo info;
  Features features;
  WGPULimits limits{};
};

AdapterData describe(WGPUAdapter adapter) {
  AdapterData data;
  WGPUAdapterInfo info{};
  if (wgpuAdapterGetInfo(adapter, &info) != WGPUStatus_Success) fail(ErrorKind::kGpu, "wgpuAdapterGetInfo failed");
  data.info.vendor = to_std(info.vendor);
  data.info.architecture = to_std(info.architecture);
  data.info.device = to_std(info.device);
  data.info.description = to_std(info.description);
  data.info.driver = data.info.description;
  data.info.backend = backend_name(info.backendType);
  data.info.adapter_type = adapter_type_name(info.adapterType);
  data.info.vendor_id = info.vendorID;
  data.info.device_id = info.deviceID;
  data.info.subgroup_min_size = info.subgroupMinSize;
  data.info.subgroup_max_size = info.subgroupMaxSize;
  wgpuAdapterInfoFreeMembers(info);

  WGPUSupportedFeatures supported{};
  wgpuAdapterGetFeatures(adapter, &supported);
  for (size_t i = 0; i < supported.featureCount; ++i) {
    const auto value = static_cast<uint32_t>(supported.features[i]);
    const std::string_view name = abi::feature_name(value);
    if (!name.empty()) {
      data.features.names.emplace_back(name);
    } else {
      std::ostringstream hex;
      hex << "0x" << std::hex << value;
      data.features.names.push_back(hex.str());
    }
    data.features.shader_f16 |= supported.features[i] == abi::kShaderF16;
    data.features.timestamp_query |= supported.features[i] == abi::kTimestampQuery;
    data.features.subgroups |= supported.features[i] == abi::kSubgroups;
  }
  wgpuSupportedFeaturesFreeMembers(supported);

  if (wgpuAdapterGetLimits(adapter, &data.limits) != WGPUStatus_Success)
    fail(ErrorKind::kGpu, "wgpuAdapterGetLimits failed");
  data.limits.nextInChain = nullptr;
  return data;
}

WGPUAdapter request_adapter(WGPUInstance instance, WGPUBackendType backend, WGPUPowerPreference power) {
  WGPURequestAdapterOptions options{};
  options.backendType = backend;
  options.powerPreference = power;
  if (backend == WGPUBackendType_OpenGLES) {
    options.featureLevel = WGPUFeatureLevel_Compatibility;  // Dawn offers GLES only at this level
    setenv("EGL_PLATFORM", "surfaceless", 0);              // headless EGL; a caller's value wins
  }
  WGPUAdapter adapter = nullptr;
  WGPURequestAdapterCallbackInfo callback{};
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestAdapterStatus status, WGPUAdapter a, WGPUStringView, void* out, void*) {
    if (status == WGPURequestAdapterStatus_Success) *static_cast<WGPUAdapter*>(out) = a;
  };
  callback.userdata1 = &adapter;
  wait_future(instance, wgpuInstanceRequestAdapter(instance, &options, callback), kDefaultTimeout, "an adapter");
  return adapter;
}

/// The adapters of list_adapters(), owned (caller releases). Deduplicated by (backend, ids, name).
std::vector<std::pair<WGPUAdapter, AdapterData>> collect(WGPUInstance instance, Backend backend) {
  std::vector<WGPUBackendType> backends;
  if (backend != Backend::kOpenGLES) backends.push_back(WGPUBackendType_Vulkan);
  if (backend != Backend::kVulkan) backends.push_back(WGPUBackendType_OpenGLES);
  std::vector<std::pair<WGPUAdapter, AdapterData>> out;
  for (WGPUBackendType type : backends) {
    for (WGPUPowerPreference power : {WGPUPowerPreference_HighPerformance, WGPUPowerPreference_LowPower}) {
      WGPUAdapter adapter = request_adapter(instance, type, power);
      if (!adapter) continue;
      AdapterData data = describe(adapter);
      const bool seen = std::any_of(out.begin(), out.end(), [&](const auto& have) {
        const AdapterInfo& a = have.second.info;
        return a.backend == data.info.backend && a.vendor_id == data.info.vendor_id &&
               a.device_id == data.info.device_id && a.device == data.info.device;
      });
      if (seen) {
        wgpuAdapterRelease(adapter);
      } else {
        out.emplace_back(adapter, std::move(data));
      }
    }
  }
  return out;
}

}  // namespace

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::kVulkan: return "vulkan";
    case Backend::kOpenGLES: return "opengles";
    default: return "default";
  }
}

Backend parse_backend(std::string_view text) {
  const std::string word = lower(text);
  if (word == "vulkan") return Backend::kVulkan;
  if (word == "opengles" || word == "gles") return Backend::kOpenGLES;
  if (word == "default" || word.empty()) return Backend::kDefault;
  fail(ErrorKind::kInvalidArgument,
       "unknown backend '" + std::string(text) + "' (expected vulkan, opengles or default)");
}

std::vector<AdapterReport> list_adapters(Backend backend) {
  WGPUInstance instance = abi::create_instance(true);
  if (!instance) fail(ErrorKind::kGpu, "wgpuCreateInstance failed");
  std::vector<AdapterReport> reports;
  for (auto& [adapter, data] : collect(instance, backend)) {
    reports.push_back({reports.size(), std::move(data.info), std::move(data.features), to_pairs(data.limits)});
    wgpuAdapterRelease(adapter);
  }
  wgpuInstanceRelease(instance);
  return reports;
}

// ------------------------------------------------------------------------------------------------------
struct Device::State {
  WGPUInstance instance = nullptr;
  WGPUAdapter adapter = nullptr;
  WGPUDevice device = nullptr;
  WGPUQueue queue = nullptr;
  AdapterInfo info;
  Features features;
  Limits limits;
  WGPULimits raw_limits{};
  std::string uncaptured;  // uncaptured errors since the last check
  bool lost = false;
  std::string lost_message;
  std::string toggles_error;  // why Dawn refused the toggles descriptor; empty when accepted

  ~State() {
    if (queue) wgpuQueueRelease(queue);
    if (device) {
      wgpuDeviceDestroy(device);
      wgpuDeviceRelease(device);
    }
    if (adapter) wgpuAdapterRelease(adapter);
    if (instance) {
      wgpuInstanceProcessEvents(instance);
      wgpuInstanceRelease(instance);
    }
  }

  /// Throws what Dawn reported outside error scopes (device lost, uncaptured errors), naming `where`.
  void check(std::string_view where) {
    if (lost) fail(ErrorKind::kGpu, "device lost (" + std::string(where) + "): " + lost_message);
    if (!uncaptured.empty()) {
      std::string message = std::exchange(uncaptured, {});
      fail(ErrorKind::kGpu, std::string(where) + ": " + message);
    }
  }

  void push(WGPUErrorFilter filter) { wgpuDevicePushErrorScope(device, filter); }
  /// Pops one error scope; returns Dawn's message, or "" when the scope caught nothing.
  std::string pop() {
    struct Result {
      WGPUErrorType type = WGPUErrorType_NoError;
      std::string message;
    } result;
    WGPUPopErrorScopeCallbackInfo callback{};
    callback.mode = WGPUCallbackMode_WaitAnyOnly;
    callback.callback = [](WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void* out,
                           void*) {
      auto* r = static_cast<Result*>(out);
      if (status != WGPUPopErrorScopeStatus_Success) {
        r->type = WGPUErrorType_Unknown;
        r->message = "error scope could not be popped: " + to_std(message);
        return;
      }
      r->type = type;
      r->message = to_std(message);
    };
    callback.userdata1 = &result;
    wait_future(instance, wgpuDevicePopErrorScope(device, callback), kDefaultTimeout, "an error scope");
    return result.type == WGPUErrorType_NoError ? std::string() : result.message;
  }
  /// Pops `count` scopes and throws the first error found, prefixed with `where`.
  void pop_and_throw(int count, std::string_view where) {
    std::string first;
    for (int i = 0; i < count; ++i) {
      std::string message = pop();
      if (first.empty()) first = std::move(message);
    }
    if (!first.empty()) fail(ErrorKind::kGpu, std::string(where) + ": " + first);
    check(where);
  }
};

Device::Device(const DeviceOptions& given) : state_(std::make_unique<State>()) {
  DeviceOptions options = given;
  if (options.use_environment) {
    if (const char* env = std::getenv("WGK_BACKEND"); env && *env) options.backend = parse_backend(env);
    if (const char* env = std::getenv("WGK_ADAPTER"); env && *env) {
      const std::string text = env;
      if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
        if (text.size() > 9) fail(ErrorKind::kNotFound, "WGK_ADAPTER=" + text + ": no adapter has that index");
        options.adapter_index = std::stoul(text);
        options.adapter_name.clear();
      } else {
        options.adapter_name = text;
        options.adapter_index.reset();
      }
    }
  }
  State& s = *state_;
  s.instance = abi::create_instance(true);
  if (!s.instance) fail(ErrorKind::kGpu, "wgpuCreateInstance failed");

  AdapterData data;
  if (options.adapter_index || !options.adapter_name.empty()) {
    auto candidates = collect(s.instance, options.backend);
    std::optional<size_t> pick;
    if (options.adapter_index) {
      if (*options.adapter_index < candidates.size()) pick = *options.adapter_index;
    } else {
      const std::string needle = lower(options.adapter_name);
      for (size_t i = 0; i < candidates.size() && !pick; ++i) {
        const AdapterInfo& a = candidates[i].second.info;
        if (lower(a.device).find(needle) != std::string::npos ||
            lower(a.description).find(needle) != std::string::npos)
          pick = i;
      }
    }
    std::string found;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (pick && i == *pick) {
        s.adapter = candidates[i].first;
        data = std::move(candidates[i].second);
      } else {
        wgpuAdapterRelease(candidates[i].first);
      }
      found += (found.empty() ? "" : ", ") + std::to_string(i) + ": " + candidates[i].second.info.device + " (" +
               candidates[i].second.info.backend + ")";
    }
    if (!pick) {
      const std::string wanted = options.adapter_index ? "index " + std::to_string(*options.adapter_index)
                                                       : "name containing '" + options.adapter_name + "'";
      fail(ErrorKind::kNotFound, "no adapter with " + wanted + " for backend " +
                                     std::string(to_string(options.backend)) + "; adapters: [" + found + "]");
    }
  } else {
    const WGPUBackendType backend = options.backend == Backend::kVulkan     ? WGPUBackendType_Vulkan
                                    : options.backend == Backend::kOpenGLES ? WGPUBackendType_OpenGLES
                                                                            : WGPUBackendType_Undefined;
    const WGPUPowerPreference power = options.power_preference == PowerPreference::kLowPower
                                          ? WGPUPowerPreference_LowPower
                                      : options.power_preference == PowerPreference::kHighPerformance
                                          ? WGPUPowerPreference_HighPerformance
                                          : WGPUPowerPreference_Undefined;
    s.adapter = request_adapter(s.instance, backend, power);
    if (!s.adapter)
      fail(ErrorKind::kNotFound, "no WebGPU adapter for backend " + std::string(to_string(options.backend)));
    data = describe(s.adapter);
  }
  s.info = std::move(data.info);
  s.features = std::move(data.features);

  std::array<WGPUFeatureName, 3> required{};
  size_t count = 0;
  if (s.features.shader_f16) required[count++] = abi::kShaderF16;
  if (s.features.timestamp_query) required[count++] = abi::kTimestampQuery;
  if (s.features.subgroups) required[count++] = abi::kSubgroups;

  WGPUDeviceDescriptor descriptor{};
  descriptor.label = to_view("wgk");
  descriptor.requiredFeatureCount = count;
  descriptor.requiredFeatures = required.data();
  descriptor.requiredLimits = &data.limits;
  descriptor.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  descriptor.deviceLostCallbackInfo.callback = [](WGPUDevice const*, WGPUDeviceLostReason reason,
                                                  WGPUStringView message, void* state, void*) {
    // FailedCreation: a refused request (abi::request_device then retries, or the constructor throws).
    if (reason == WGPUDeviceLostReason_Destroyed || reason == WGPUDeviceLostReason_CallbackCancelled ||
        reason == WGPUDeviceLostReason_FailedCreation)
      return;
    auto* st = static_cast<State*>(state);
    st->lost = true;
    st->lost_message = to_std(message);
  };
  descriptor.deviceLostCallbackInfo.userdata1 = &s;
  descriptor.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType, WGPUStringView message,
                                                       void* state, void*) {
    auto* st = static_cast<State*>(state);
    if (!st->uncaptured.empty()) st->uncaptured += "\n";
    st->uncaptured += to_std(message);
  };
  descriptor.uncapturedErrorCallbackInfo.userdata1 = &s;

  // With Dawn's "timestamp_quantization" toggle disabled (full-resolution timestamps); without it if Dawn
  // refuses the toggles descriptor (abi.h), the reason kept in toggles_error.
  abi::DeviceRequest request = abi::request_device(s.instance, s.adapter, descriptor,
                                                   static_cast<uint64_t>(kDefaultTimeout.count()));
  if (!request.device)
    fail(ErrorKind::kGpu, "wgpuAdapterRequestDevice failed on " + s.info.device + ": " + request.error);
  s.device = request.device;
  s.toggles_error = std::move(request.toggles_error);
  s.queue = wgpuDeviceGetQueue(s.device);

  WGPULimits device_limits{};
  if (wgpuDeviceGetLimits(s.device, &device_limits) != WGPUStatus_Success)
    fail(ErrorKind::kGpu, "wgpuDeviceGetLimits failed");
  device_limits.nextInChain = nullptr;
  s.raw_limits = device_limits;
  s.limits = to_pairs(device_limits);
}

Device::~Device() = default;
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&&) noexcept = default;

Device& Device::default_device() {
  // The one explicit global (docs/style.md). Never destroyed: at process exit the Vulkan driver may
  // already be torn down by its own exit handlers, and releasing a Dawn device then crashes.
  static Device* device = new Device();
  return *device;
}

const AdapterInfo& Device::adapter_info() const { return state_->info; }
const Features& Device::features() const { return state_->features; }
const Limits& Device::limits() const { return state_->limits; }
const std::string& Device::toggles_error() const { return state_->toggles_error; }
std::optional<uint64_t> Device::limit(std::string_view name) const {
  for (const auto& [key, value] : state_->limits)
    if (key == name) return value;
  return std::nullopt;
}

// ---- buffers ------------------------------------------------------------------------------------------
namespace {
WGPUBuffer raw_buffer(WGPUDevice device, uint64_t size, WGPUBufferUsage usage, std::string_view label) {
  WGPUBufferDescriptor descriptor{};
  descriptor.label = to_view(label);
  descriptor.usage = usage;
  descriptor.size = round_up4(size);
  return wgpuDeviceCreateBuffer(device, &descriptor);
}
}  // namespace

Buffer Device::create_buffer(uint64_t size, BufferUsage usage, std::string_view label) {
  State& s = *state_;
  const uint64_t max = s.raw_limits.maxBufferSize;
  if (size == 0 || size > max)
    fail(ErrorKind::kInvalidArgument, "buffer '" + std::string(label) + "' size " + std::to_string(size) +
                                          " is not in [1, maxBufferSize = " + std::to_string(max) + "]");
  s.push(WGPUErrorFilter_OutOfMemory);
  s.push(WGPUErrorFilter_Validation);
  WGPUBuffer handle = raw_buffer(s.device, size, static_cast<WGPUBufferUsage>(usage), label);
  Buffer buffer;
  buffer.handle_ = detail::Owned<detail::Kind::kBuffer>(handle);
  buffer.size_ = size;
  buffer.usage_ = usage;
  s.pop_and_throw(2, "creating buffer '" + std::string(label) + "' of " + std::to_string(size) + " bytes");
  return buffer;
}

void Device::write(const Buffer& buffer, uint64_t offset, std::span<const std::byte> bytes) {
  State& s = *state_;
  if (!buffer) fail(ErrorKind::kInvalidArgument, "write: empty buffer");
  if (offset % 4 != 0 || offset > buffer.size() || bytes.size() > buffer.size() - offset)
    fail(ErrorKind::kInvalidArgument, "write of " + std::to_string(bytes.size()) + " bytes at offset " +
                                          std::to_string(offset) + " does not fit a buffer of " +
                                          std::to_string(buffer.size()) + " bytes (offset must be a multiple of 4)");
  const uint64_t aligned = bytes.size() & ~uint64_t{3};
  const uint64_t tail = bytes.size() - aligned;
  if (tail != 0 && offset + bytes.size() != buffer.size())
    fail(ErrorKind::kInvalidArgument, "write of " + std::to_string(bytes.size()) +
                                          " bytes (not a multiple of 4) must end at the end of the buffer");
  auto* handle = static_cast<WGPUBuffer>(buffer.handle_.get());
  if (aligned) wgpuQueueWriteBuffer(s.queue, handle, offset, bytes.data(), aligned);
  if (tail) {
    std::array<std::byte, 4> padded{};
    std::memcpy(padded.data(), bytes.data() + aligned, tail);
    wgpuQueueWriteBuffer(s.queue, handle, offset + aligned, padded.data(), padded.size());
  }
  s.check("write");
}

void Device::copy(const Buffer& source, uint64_t source_offset, const Buffer& destination,
                  uint64_t destination_offset, uint64_t size) {
  State& s = *state_;
  s.push(WGPUErrorFilter_Validation);
  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(s.device, nullptr);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, static_cast<WGPUBuffer>(source.handle_.get()), source_offset,
                                       static_cast<WGPUBuffer>(destination.handle_.get()), destination_offset, size);
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
  wgpuQueueSubmit(s.queue, 1, &commands);
  wgpuCommandBufferRelease(commands);
  wgpuCommandEncoderRelease(encoder);
  s.pop_and_throw(1, "copy of " + std::to_string(size) + " bytes");
}

namespace {
/// Maps `staging` for reading and copies `out.size()` bytes from its start. The map result lives on the heap,
/// shared with the callback, so a timed-out map whose callback fires later writes to valid memory.
void map_and_copy(WGPUInstance instance, WGPUBuffer staging, uint64_t mapped_size, std::span<std::byte> out,
                  Timeout timeout, std::string_view what) {
  struct MapResult {
    WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
    std::string message;
  };
  auto result = std::make_shared<MapResult>();
  WGPUBufferMapCallbackInfo callback{};
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* shared, void*) {
    std::unique_ptr<std::shared_ptr<MapResult>> owner(static_cast<std::shared_ptr<MapResult>*>(shared));
    (*owner)->status = status;
    (*owner)->message = to_std(message);
  };
  callback.userdata1 = new std::shared_ptr<MapResult>(result);
  const WGPUFuture future = wgpuBufferMapAsync(staging, WGPUMapMode_Read, 0, mapped_size, callback);
  wait_future(instance, future, timeout, what);
  if (result->status != WGPUMapAsyncStatus_Success)
    fail(ErrorKind::kGpu, std::string(what) + ": map failed: " + result->message);
  const void* mapped = wgpuBufferGetConstMappedRange(staging, 0, mapped_size);
  if (!mapped) fail(ErrorKind::kGpu, std::string(what) + ": wgpuBufferGetConstMappedRange returned null");
  std::memcpy(out.data(), mapped, out.size());
  wgpuBufferUnmap(staging);
}
}  // namespace

void Device::read(const Buffer& buffer, uint64_t offset, std::span<std::byte> out, Timeout timeout) {
  State& s = *state_;
  if (!buffer) fail(ErrorKind::kInvalidArgument, "read: empty buffer");
  if (offset % 4 != 0 || offset > buffer.size() || out.size() > buffer.size() - offset)
    fail(ErrorKind::kInvalidArgument, "read of " + std::to_string(out.size()) + " bytes at offset " +
                                          std::to_string(offset) + " does not fit a buffer of " +
                                          std::to_string(buffer.size()) + " bytes (offset must be a multiple of 4)");
  if (out.empty()) return;
  const uint64_t size = round_up4(out.size());  // within the allocation (rounded up to 4 at creation)
  s.push(WGPUErrorFilter_Validation);
  WGPUBuffer staging = raw_buffer(s.device, size, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, "readback");
  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(s.device, nullptr);
  wgpuCommandEncoderCopyBufferToBuffer(encoder, static_cast<WGPUBuffer>(buffer.handle_.get()), offset, staging, 0,
                                       size);
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
  wgpuQueueSubmit(s.queue, 1, &commands);
  wgpuCommandBufferRelease(commands);
  wgpuCommandEncoderRelease(encoder);
  try {
    s.pop_and_throw(1, "read back");
    map_and_copy(s.instance, staging, size, out, timeout, "read back of " + std::to_string(out.size()) + " bytes");
  } catch (...) {
    wgpuBufferRelease(staging);
    throw;
  }
  wgpuBufferRelease(staging);
}

std::vector<std::byte> Device::read(const Buffer& buffer, Timeout timeout) {
  std::vector<std::byte> out(buffer.size());
  read(buffer, 0, out, timeout);
  return out;
}

// ---- pipelines and bind groups ------------------------------------------------------------------------
ComputePipeline Device::create_compute_pipeline(std::string_view wgsl, std::string_view label) {
  State& s = *state_;
  const std::string name = label.empty() ? std::string("compute pipeline") : std::string(label);
  WGPUShaderSourceWGSL source{};
  source.chain.sType = WGPUSType_ShaderSourceWGSL;
  source.code = to_view(wgsl);
  WGPUShaderModuleDescriptor module_descriptor{};
  module_descriptor.nextInChain = &source.chain;
  module_descriptor.label = to_view(name);

  s.push(WGPUErrorFilter_Validation);
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(s.device, &module_descriptor);

  // Compilation messages with line:column, and the offending source line.
  std::string messages;
  bool has_error = false;
  struct Context {
    std::string* messages;
    bool* has_error;
    std::string_view name, wgsl;
  } context{&messages, &has_error, name, wgsl};
  WGPUCompilationInfoCallbackInfo callback{};
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo* info, void* ctx,
                         void*) {
    auto* c = static_cast<Context*>(ctx);
    if (status != WGPUCompilationInfoRequestStatus_Success || !info) return;
    for (size_t i = 0; i < info->messageCount; ++i) {
      const WGPUCompilationMessage& m = info->messages[i];
      const char* kind = m.type == WGPUCompilationMessageType_Error     ? "error"
                         : m.type == WGPUCompilationMessageType_Warning ? "warning"
                                                                         : "info";
      if (m.type == WGPUCompilationMessageType_Error) *c->has_error = true;
      *c->messages += std::string(c->name) + ":" + std::to_string(m.lineNum) + ":" + std::to_string(m.linePos) +
                      ": " + kind + ": " + to_std(m.message) + "\n";
      // Quote the source line (1-based lineNum) so the message stands on its own.
      size_t start = 0;
      for (uint64_t line = 1; line < m.lineNum && start != std::string_view::npos; ++line) {
        start = c->wgsl.find('\n', start);
        if (start != std::string_view::npos) ++start;
      }
      if (m.lineNum > 0 && start != std::string_view::npos && start < c->wgsl.size()) {
        const size_t end = c->wgsl.find('\n', start);
        *c->messages += "    " + std::string(c->wgsl.substr(start, end == std::string_view::npos ? end : end - start)) + "\n";
      }
    }
  };
  callback.userdata1 = &context;
  try {
    wait_future(s.instance, wgpuShaderModuleGetCompilationInfo(module, callback), kDefaultTimeout,
                "WGSL compilation info");
  } catch (...) {
    wgpuShaderModuleRelease(module);
    s.pop();
    throw;
  }
  std::string scope_error = s.pop();
  if (has_error || !scope_error.empty()) {
    wgpuShaderModuleRelease(module);
    fail(ErrorKind::kGpu, "WGSL compilation of '" + name + "' failed:\n" + messages +
                              (has_error ? std::string() : scope_error));
  }

  WGPUComputePipelineDescriptor descriptor{};
  descriptor.label = to_view(name);
  descriptor.layout = nullptr;  // "auto"
  descriptor.compute.module = module;
  descriptor.compute.entryPoint = to_view("main");
  s.push(WGPUErrorFilter_Validation);
  WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(s.device, &descriptor);
  wgpuShaderModuleRelease(module);
  ComputePipeline out;
  out.pipeline_ = detail::Owned<detail::Kind::kComputePipeline>(pipeline);
  out.label_ = name;
  s.pop_and_throw(1, "creating compute pipeline '" + name + "'");
  s.push(WGPUErrorFilter_Validation);
  out.group0_ = detail::Owned<detail::Kind::kBindGroupLayout>(wgpuComputePipelineGetBindGroupLayout(pipeline, 0));
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
    raw[i].buffer = static_cast<WGPUBuffer>(e.buffer->handle_.get());
    raw[i].offset = e.offset;
    raw[i].size = e.size == kWholeSize ? WGPU_WHOLE_SIZE : e.size;
  }
  WGPUBindGroupDescriptor descriptor{};
  descriptor.layout = static_cast<WGPUBindGroupLayout>(pipeline.group0_.get());
  descriptor.entryCount = entries.size();
  descriptor.entries = raw;
  s.push(WGPUErrorFilter_Validation);
  BindGroup group;
  group.handle_ = detail::Owned<detail::Kind::kBindGroup>(wgpuDeviceCreateBindGroup(s.device, &descriptor));
  s.pop_and_throw(1, "bind group 0 of '" + pipeline.label() + "'");
  return group;
}

// ---- timestamps, submit, wait ---------------------------------------------------------------------------
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
  query.query_set_ = detail::Owned<detail::Kind::kQuerySet>(wgpuDeviceCreateQuerySet(s.device, &descriptor));
  const uint64_t bytes = 8ull * descriptor.count;
  query.resolve_.handle_ = detail::Owned<detail::Kind::kBuffer>(
      raw_buffer(s.device, bytes, WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc, "timestamps resolve"));
  query.resolve_.size_ = bytes;
  query.readback_.handle_ = detail::Owned<detail::Kind::kBuffer>(
      raw_buffer(s.device, bytes, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, "timestamps readback"));
  query.readback_.size_ = bytes;
  query.passes_ = passes;
  s.pop_and_throw(1, "creating a timestamp query set of " + std::to_string(descriptor.count) + " queries");
  return query;
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
  WGPUCommandEncoder encoder = wgpuDeviceCreateCommandEncoder(s.device, nullptr);
  auto* query_set = timestamps ? static_cast<WGPUQuerySet>(timestamps->query_set_.get()) : nullptr;
  if (one_pass && !passes.empty()) {
    WGPUPassTimestampWrites writes{};
    WGPUComputePassDescriptor descriptor{};
    if (query_set) {
      writes.querySet = query_set;
      writes.beginningOfPassWriteIndex = 0;
      writes.endOfPassWriteIndex = 1;
      descriptor.timestampWrites = &writes;
    }
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &descriptor);
    const void* pipeline = nullptr;
    for (const Dispatch& d : passes) {
      if (d.pipeline->pipeline_.get() != pipeline) {
        pipeline = d.pipeline->pipeline_.get();
        wgpuComputePassEncoderSetPipeline(pass, static_cast<WGPUComputePipeline>(d.pipeline->pipeline_.get()));
      }
      wgpuComputePassEncoderSetBindGroup(pass, 0, static_cast<WGPUBindGroup>(d.bind_group->handle_.get()), 0, nullptr);
      wgpuComputePassEncoderDispatchWorkgroups(pass, d.x, d.y, d.z);
    }
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
  }
  for (size_t i = 0; i < passes.size() && !one_pass; ++i) {
    const Dispatch& d = passes[i];
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
    WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(encoder, &descriptor);
    wgpuComputePassEncoderSetPipeline(pass, static_cast<WGPUComputePipeline>(d.pipeline->pipeline_.get()));
    wgpuComputePassEncoderSetBindGroup(pass, 0, static_cast<WGPUBindGroup>(d.bind_group->handle_.get()), 0, nullptr);
    wgpuComputePassEncoderDispatchWorkgroups(pass, d.x, d.y, d.z);
    wgpuComputePassEncoderEnd(pass);
    wgpuComputePassEncoderRelease(pass);
  }
  if (query_set && !passes.empty()) {
    const auto stamped = static_cast<uint32_t>(span ? 1 : passes.size());
    const auto count = 2 * stamped;
    auto* resolve = static_cast<WGPUBuffer>(timestamps->resolve_.handle_.get());
    wgpuCommandEncoderResolveQuerySet(encoder, query_set, 0, count, resolve, 0);
    wgpuCommandEncoderCopyBufferToBuffer(encoder, resolve, 0,
                                         static_cast<WGPUBuffer>(timestamps->readback_.handle_.get()), 0, 8ull * count);
    timestamps->written_ = stamped;
  }
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
  wgpuQueueSubmit(s.queue, 1, &commands);
  wgpuCommandBufferRelease(commands);
  wgpuCommandEncoderRelease(encoder);
  if (!validate) return;
  s.pop_and_throw(1, passes.size() == 1 ? "submit of '" + passes[0].pipeline->label() + "'"
                                         : "submit of " + std::to_string(passes.size()) + " passes");
}

void Device::wait(Timeout timeout) {
  State& s = *state_;
  // The status lives on the heap: on timeout Dawn may still call back later, into this dead stack frame
  // otherwise. The callback owns and frees it.
  struct Result {
    WGPUQueueWorkDoneStatus status = WGPUQueueWorkDoneStatus_Error;
    std::string message;
  };
  auto result = std::make_shared<Result>();
  WGPUQueueWorkDoneCallbackInfo callback{};
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPUQueueWorkDoneStatus status, WGPUStringView message, void* shared, void*) {
    std::unique_ptr<std::shared_ptr<Result>> owner(static_cast<std::shared_ptr<Result>*>(shared));
    (*owner)->status = status;
    (*owner)->message = to_std(message);
  };
  callback.userdata1 = new std::shared_ptr<Result>(result);
  const WGPUFuture future = wgpuQueueOnSubmittedWorkDone(s.queue, callback);
  try {
    wait_future(s.instance, future, timeout, "submitted GPU work");
  } catch (...) {
    s.check("wait");
    throw;
  }
  s.check("wait");
  if (result->status != WGPUQueueWorkDoneStatus_Success)
    fail(ErrorKind::kGpu, "submitted work did not complete: " + result->message);
}

std::vector<uint64_t> Device::read_timestamps(TimestampQuery& query, Timeout timeout) {
  State& s = *state_;
  if (!query || query.written_ == 0) fail(ErrorKind::kInvalidArgument, "read_timestamps: nothing was timestamped");
  std::vector<uint64_t> out(2ull * query.written_);
  map_and_copy(s.instance, static_cast<WGPUBuffer>(query.readback_.handle_.get()), 8ull * out.size(),
               std::as_writable_bytes(std::span(out)), timeout, "timestamps");
  return out;
}

// ---- handle release ----------------------------------------------------------------------------------
void detail::release(Kind kind, void* handle) noexcept {
  switch (kind) {
    case Kind::kBuffer: wgpuBufferRelease(static_cast<WGPUBuffer>(handle)); break;
    case Kind::kComputePipeline: wgpuComputePipelineRelease(static_cast<WGPUComputePipeline>(handle)); break;
    case Kind::kBindGroupLayout: wgpuBindGroupLayoutRelease(static_cast<WGPUBindGroupLayout>(handle)); break;
    case Kind::kBindGroup: wgpuBindGroupRelease(static_cast<WGPUBindGroup>(handle)); break;
    case Kind::kQuerySet: wgpuQuerySetRelease(static_cast<WGPUQuerySet>(handle)); break;
  }
}

}  // namespace wgk::gpu
