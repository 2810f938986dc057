// `wgk devices`: the WebGPU adapters Dawn offers, with backend, type, vendor, device, driver, architecture,
// features (WebGPU names) and the limits kernels use, then the default device (the adapter the runtime uses,
// WGK_BACKEND and WGK_ADAPTER applied) with the Dawn toggles in effect on it, WGK_DAWN_ENABLE_TOGGLES and
// WGK_DAWN_DISABLE_TOGGLES included (docs/platform.md); a toggle list the device refuses is the command's error.
// --json prints every limit, and `dawnToggles` on the default device's adapter.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "command.h"
#include "gpu/device.h"
#include "runtime/state.h"
#include "wgk/introspect.h"
#include "wgk/kernel.h"

namespace {

// Limits the kernels' manifests read (device.limits.*) or the runtime checks before a dispatch.
constexpr const char* kKernelLimits[] = {
    "maxComputeWorkgroupsPerDimension", "maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupSizeX",
    "maxComputeWorkgroupSizeY",         "maxComputeWorkgroupSizeZ",          "maxComputeWorkgroupStorageSize",
    "maxStorageBufferBindingSize",      "maxUniformBufferBindingSize",       "maxBufferSize",
    "maxStorageBuffersPerShaderStage",  "minStorageBufferOffsetAlignment",
};

}  // namespace

WGK_COMMAND("devices", "List the WebGPU adapters Dawn finds, with features and limits") {
  auto backend = std::make_shared<std::string>("default");
  auto json = std::make_shared<bool>(false);
  sub.add_option("--backend", *backend, "vulkan, opengles or default (both)")->capture_default_str();
  sub.add_flag("--json", *json, "print JSON (all limits)");
  return [backend, json]() -> int {
    // The toggles are a device's, not an adapter's: the default device's, as bench_host's header prints them.
    // Neither the default device nor list_adapters' instance is ever released, so the drivers both open stay
    // loaded while their worker threads run (gpu/device.h).
    const wgk::gpu::Device& device = wgk::introspect::state(*wgk::Device::default_device()).gpu;
    const auto adapters = wgk::gpu::list_adapters(wgk::gpu::parse_backend(*backend));
    if (*json) {
      auto is_default = [&](const wgk::gpu::AdapterReport& a) {
        return a.info.backend == device.adapter_info().backend && a.info.device == device.adapter_info().device &&
               a.info.device_id == device.adapter_info().device_id;
      };
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& a : adapters) {
        nlohmann::ordered_json limits = nlohmann::ordered_json::object();
        for (const auto& [name, value] : a.limits) limits[name] = value;
        out.push_back({{"index", a.index},
                       {"backend", a.info.backend},
                       {"adapterType", a.info.adapter_type},
                       {"vendor", a.info.vendor},
                       {"vendorID", a.info.vendor_id},
                       {"device", a.info.device},
                       {"deviceID", a.info.device_id},
                       {"architecture", a.info.architecture},
                       {"driver", a.info.driver},
                       {"subgroupMinSize", a.info.subgroup_min_size},
                       {"subgroupMaxSize", a.info.subgroup_max_size},
                       {"features", a.features.names}});
        for (std::size_t i = 0; i < wgk::kKernelFeatures.size(); ++i)
          out.back()[std::string(wgk::kKernelFeatures[i].scope_name)] = a.features.*wgk::gpu::kFeatureFlags[i];
        out.back()["limits"] = limits;
        if (is_default(a)) out.back()["dawnToggles"] = device.enabled_toggles();
      }
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    if (adapters.empty()) {
      std::cout << "no WebGPU adapters for backend " << *backend << "\n";
      return 1;
    }
    for (const auto& a : adapters) {
      std::cout << "[" << a.index << "] " << a.info.device << "\n"
                << "    backend:      " << a.info.backend << "\n"
                << "    type:         " << a.info.adapter_type << "\n"
                << "    vendor:       " << a.info.vendor << " (0x" << std::hex << a.info.vendor_id << ")" << std::dec
                << "\n"
                << "    architecture: " << a.info.architecture << "\n"
                << "    driver:       " << a.info.driver << "\n"
                << "    subgroups:    " << a.info.subgroup_min_size << ".." << a.info.subgroup_max_size << "\n"
                << "    shader-f16: " << (a.features.shader_f16 ? "yes" : "NO")
                << "  timestamp-query: " << (a.features.timestamp_query ? "yes" : "NO")
                << "  subgroups: " << (a.features.subgroups ? "yes" : "NO") << "\n"
                << "    features:    ";
      for (const auto& f : a.features.names) std::cout << " " << f;
      std::cout << "\n    limits:\n";
      for (const char* name : kKernelLimits)
        for (const auto& [key, value] : a.limits)
          if (key == name) std::cout << "      " << key << " = " << value << "\n";
    }
    std::cout << "default device: " << device.adapter_info().device << " (" << device.adapter_info().backend
              << "; WGK_BACKEND, WGK_ADAPTER choose it)\n"
              << "    dawn toggles: " << device.enabled_toggle_list()
              << " (enabled, as Dawn reports them; WGK_DAWN_ENABLE_TOGGLES, WGK_DAWN_DISABLE_TOGGLES add to them)\n";
    if (!device.toggles_error().empty())
      std::cout << "    timestamp_quantization stays on (timestamps rounded to 65536 ns): " << device.toggles_error() << "\n";
    return 0;
  };
}
