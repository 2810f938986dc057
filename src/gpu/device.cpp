// Device creation (adapter from adapter.cpp, features, limits, Dawn toggles), its error scopes and the
// checks of what Dawn reported outside them.
#include <algorithm>
#include <array>
#include <memory>
#include <utility>

#include "gpu/callback.h"
#include "gpu/device_state.h"

namespace wgk::gpu {

using abi::to_std;

void fail(ErrorKind kind, const std::string& message) { throw Error(kind, "gpu: " + message); }

Device::State::~State() {
  queue.reset();
  if (device) wgpuDeviceDestroy(device.get());
  device.reset();
  adapter.reset();
  if (instance) wgpuInstanceProcessEvents(instance.get());
}

void Device::State::check(std::string_view where) {
  if (lost) fail(ErrorKind::kGpu, "device lost (" + std::string(where) + "): " + lost_message);
  if (!uncaptured.empty()) {
    std::string message = std::exchange(uncaptured, {});
    fail(ErrorKind::kGpu, std::string(where) + ": " + message);
  }
}

std::string Device::State::pop() {
  struct Result {
    WGPUErrorType type = WGPUErrorType_NoError;
    std::string message;
  };
  const Result result = await_callback<Result, WGPUPopErrorScopeCallbackInfo>(
      instance.get(), to_ns(kDefaultTimeout), "an error scope",
      [&](const WGPUPopErrorScopeCallbackInfo& info) { return wgpuDevicePopErrorScope(device.get(), info); },
      [](Result& r, WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message) {
        if (status != WGPUPopErrorScopeStatus_Success) {
          r.type = WGPUErrorType_Unknown;
          r.message = "error scope could not be popped: " + to_std(message);
          return;
        }
        r.type = type;
        r.message = to_std(message);
      });
  return result.type == WGPUErrorType_NoError ? std::string() : result.message;
}

void Device::State::pop_and_throw(int count, std::string_view where) {
  std::string first;
  for (int i = 0; i < count; ++i) {
    std::string message = pop();
    if (first.empty()) first = std::move(message);
  }
  if (!first.empty()) fail(ErrorKind::kGpu, std::string(where) + ": " + first);
  check(where);
}

Device::Device(const DeviceOptions& options) : state_(std::make_unique<State>()) {
  State& s = *state_;
  if (options.timeout.count() <= 0)
    fail(ErrorKind::kInvalidArgument, "timeout must be > 0, got " + std::to_string(options.timeout.count()) +
                                          " ns (" + std::string(kTimeoutSetting) + "): a wait without end could hang");
  s.timeout = options.timeout;
  s.instance = abi::create_instance(true);
  if (!s.instance) fail(ErrorKind::kGpu, "wgpuCreateInstance failed");
  ChosenAdapter chosen = choose_adapter(s.instance.get(), options);
  s.adapter = std::move(chosen.adapter);
  AdapterData& data = chosen.data;
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
  // refuses the toggles descriptor (abi.h), the reason kept in toggles_error. Plus the environment's
  // toggles (WGK_DAWN_ENABLE_TOGGLES, WGK_DAWN_DISABLE_TOGGLES: measuring only), checked against what
  // Dawn reports enabled, since Dawn ignores a name it does not know.
  const abi::Toggles extra = abi::toggles_from_environment();
  abi::DeviceRequest request = abi::request_device(s.instance.get(), s.adapter.get(), descriptor,
                                                   to_ns(kDefaultTimeout), abi::kSTypeDawnTogglesDescriptor, extra);
  if (!request.device)
    fail(ErrorKind::kGpu, "wgpuAdapterRequestDevice failed on " + s.info.device + ": " + request.error);
  s.device = std::move(request.device);
  s.toggles_error = std::move(request.toggles_error);
  if (!extra.empty()) {
    if (!s.toggles_error.empty())
      fail(ErrorKind::kGpu, std::string(abi::kEnableTogglesVariable) + "/" + abi::kDisableTogglesVariable +
                                ": Dawn refused the toggles descriptor on " + s.info.device + ": " + s.toggles_error);
    const std::vector<std::string> on = abi::enabled_toggles(s.device.get());
    auto is_on = [&](const std::string& name) { return std::find(on.begin(), on.end(), name) != on.end(); };
    for (const auto& name : extra.enabled)
      if (!is_on(name))
        fail(ErrorKind::kInvalidArgument,
             std::string(abi::kEnableTogglesVariable) + ": Dawn did not enable '" + name + "' on " + s.info.device +
                 " (not a toggle of this Dawn build, or not one a device request may set; Dawn's names: its "
                 "src/dawn/native/Toggles.cpp)");
    for (const auto& name : extra.disabled)
      if (is_on(name))
        fail(ErrorKind::kInvalidArgument, std::string(abi::kDisableTogglesVariable) + ": Dawn kept '" + name +
                                              "' enabled on " + s.info.device + " (a toggle Dawn forces on here)");
  }
  s.queue = detail::Object<WGPUQueueImpl>(wgpuDeviceGetQueue(s.device.get()));

  WGPULimits device_limits{};
  if (wgpuDeviceGetLimits(s.device.get(), &device_limits) != WGPUStatus_Success)
    fail(ErrorKind::kGpu, "wgpuDeviceGetLimits failed");
  device_limits.nextInChain = nullptr;
  s.raw_limits = device_limits;
  s.limits = to_pairs(device_limits);
}

Device::~Device() = default;
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&&) noexcept = default;

const AdapterInfo& Device::adapter_info() const { return state_->info; }
const Features& Device::features() const { return state_->features; }
const Limits& Device::limits() const { return state_->limits; }
const std::string& Device::toggles_error() const { return state_->toggles_error; }
std::vector<std::string> Device::enabled_toggles() const { return abi::enabled_toggles(state_->device.get()); }
std::string Device::enabled_toggle_list() const {
  std::string list;
  for (const auto& name : enabled_toggles()) list += (list.empty() ? "" : ",") + name;
  return list;
}
std::optional<uint64_t> Device::limit(std::string_view name) const {
  for (const auto& [key, value] : state_->limits)
    if (key == name) return value;
  return std::nullopt;
}

}  // namespace wgk::gpu
