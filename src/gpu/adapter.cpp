// Adapters: what Dawn offers (list_adapters), their description, and the choice for DeviceOptions with the
// environment (WGK_BACKEND, WGK_ADAPTER) applied.
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

#include "gpu/callback.h"
#include "gpu/device_state.h"

namespace wgk::gpu {
namespace {

using abi::to_std;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
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

detail::Object<WGPUAdapterImpl> request_adapter(WGPUInstance instance, WGPUBackendType backend,
                                                WGPUPowerPreference power) {
  WGPURequestAdapterOptions options{};
  options.backendType = backend;
  options.powerPreference = power;
  if (backend == WGPUBackendType_OpenGLES) {
    options.featureLevel = WGPUFeatureLevel_Compatibility;  // Dawn offers GLES only at this level
    setenv("EGL_PLATFORM", "surfaceless", 0);              // headless EGL; a caller's value wins
  }
  struct Result {
    detail::Object<WGPUAdapterImpl> adapter;
  };
  return await_callback<Result, WGPURequestAdapterCallbackInfo>(
             instance, to_ns(kDefaultTimeout), "an adapter",
             [&](const WGPURequestAdapterCallbackInfo& info) {
               return wgpuInstanceRequestAdapter(instance, &options, info);
             },
             [](Result& r, WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView) {
               if (status == WGPURequestAdapterStatus_Success) r.adapter = detail::Object<WGPUAdapterImpl>(adapter);
             })
      .adapter;
}

/// The adapters of list_adapters(), deduplicated by (backend, ids, name).
std::vector<ChosenAdapter> collect(WGPUInstance instance, Backend backend) {
  std::vector<WGPUBackendType> backends;
  if (backend != Backend::kOpenGLES) backends.push_back(WGPUBackendType_Vulkan);
  if (backend != Backend::kVulkan) backends.push_back(WGPUBackendType_OpenGLES);
  std::vector<ChosenAdapter> out;
  for (WGPUBackendType type : backends) {
    for (WGPUPowerPreference power : {WGPUPowerPreference_HighPerformance, WGPUPowerPreference_LowPower}) {
      detail::Object<WGPUAdapterImpl> adapter = request_adapter(instance, type, power);
      if (!adapter) continue;
      AdapterData data = describe(adapter.get());
      const bool seen = std::any_of(out.begin(), out.end(), [&](const ChosenAdapter& have) {
        const AdapterInfo& a = have.data.info;
        return a.backend == data.info.backend && a.vendor_id == data.info.vendor_id &&
               a.device_id == data.info.device_id && a.device == data.info.device;
      });
      if (!seen) out.push_back({std::move(adapter), std::move(data)});
    }
  }
  return out;
}

/// An adapter choice: an index or a name substring (DeviceOptions::adapter syntax).
struct AdapterChoice {
  std::optional<size_t> index;
  std::string name;
};

/// Parses `text` ("" none, all digits an index, else a name substring). `source` names where it came
/// from ("DeviceOptions::adapter", "WGK_ADAPTER") for the kNotFound raised by an index of 10+ digits (no
/// machine has a billion adapters; std::stoul would throw past 2^64).
AdapterChoice parse_adapter(std::string_view text, std::string_view source) {
  AdapterChoice choice;
  if (text.empty()) return choice;
  if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    if (text.size() > 9)
      fail(ErrorKind::kNotFound, std::string(source) + " = " + std::string(text) + ": no adapter has that index");
    choice.index = std::stoul(std::string(text));
  } else {
    choice.name = text;
  }
  return choice;
}

WGPUBackendType to_wgpu(Backend backend) {
  switch (backend) {
    case Backend::kVulkan: return WGPUBackendType_Vulkan;
    case Backend::kOpenGLES: return WGPUBackendType_OpenGLES;
    default: return WGPUBackendType_Undefined;
  }
}
WGPUPowerPreference to_wgpu(PowerPreference power) {
  switch (power) {
    case PowerPreference::kLowPower: return WGPUPowerPreference_LowPower;
    case PowerPreference::kHighPerformance: return WGPUPowerPreference_HighPerformance;
    default: return WGPUPowerPreference_Undefined;
  }
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
  // One instance for the process, never released (as the default device): releasing it let the loaders unload
  // the drivers it opened (Vulkan, and EGL for OpenGL ES, which no device keeps loaded) while their worker
  // threads still ran, a SIGSEGV in `wgk devices` about once in a few thousand runs under load. Created on the
  // first call (a failure is retried on the next); calls are serialized.
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  static detail::Object<WGPUInstanceImpl>* const instance = [] {
    detail::Object<WGPUInstanceImpl> made = abi::create_instance(true);
    if (!made) fail(ErrorKind::kGpu, "wgpuCreateInstance failed");
    return new detail::Object<WGPUInstanceImpl>(std::move(made));
  }();
  std::vector<AdapterReport> reports;
  for (ChosenAdapter& a : collect(instance->get(), backend))
    reports.push_back({reports.size(), std::move(a.data.info), std::move(a.data.features), to_pairs(a.data.limits)});
  return reports;
}

ChosenAdapter choose_adapter(WGPUInstance instance, const DeviceOptions& options) {
  Backend backend = options.backend;
  std::string_view adapter_text = options.adapter, source = "DeviceOptions::adapter";
  if (options.use_environment) {
    if (const char* env = std::getenv("WGK_BACKEND"); env && *env && backend == Backend::kDefault)
      backend = parse_backend(env);
    if (const char* env = std::getenv("WGK_ADAPTER"); env && *env && adapter_text.empty()) {
      adapter_text = env;
      source = "WGK_ADAPTER";
    }
  }
  const AdapterChoice choice = parse_adapter(adapter_text, source);
  if (!choice.index && choice.name.empty()) {
    ChosenAdapter out;
    out.adapter = request_adapter(instance, to_wgpu(backend), to_wgpu(options.power_preference));
    if (!out.adapter) fail(ErrorKind::kNotFound, "no WebGPU adapter for backend " + std::string(to_string(backend)));
    out.data = describe(out.adapter.get());
    return out;
  }
  std::vector<ChosenAdapter> candidates = collect(instance, backend);
  std::optional<size_t> pick;
  if (choice.index) {
    if (*choice.index < candidates.size()) pick = *choice.index;
  } else {
    const std::string needle = lower(choice.name);
    for (size_t i = 0; i < candidates.size() && !pick; ++i) {
      const AdapterInfo& a = candidates[i].data.info;
      if (lower(a.device).find(needle) != std::string::npos || lower(a.description).find(needle) != std::string::npos)
        pick = i;
    }
  }
  if (pick) return std::move(candidates[*pick]);
  std::string found;
  for (size_t i = 0; i < candidates.size(); ++i)
    found += (found.empty() ? "" : ", ") + std::to_string(i) + ": " + candidates[i].data.info.device + " (" +
             candidates[i].data.info.backend + ")";
  const std::string wanted = choice.index ? "index " + std::to_string(*choice.index) : "name containing '" + choice.name + "'";
  fail(ErrorKind::kNotFound, "no adapter with " + wanted + " (" + std::string(source) + ") for backend " +
                                 std::string(to_string(backend)) + "; adapters: [" + found + "]");
}

}  // namespace wgk::gpu
