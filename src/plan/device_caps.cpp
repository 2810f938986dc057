// DeviceCaps: the device half of the call scope (`device.limits.*`, `device.features.*`) and its presets.
#include <nlohmann/json.hpp>

#include "plan/device_caps.h"
#include "wgk/error.h"

namespace wgk::plan {

namespace {

void set_limit(DeviceCaps& caps, std::string_view name, std::int64_t value) {
  for (auto& [n, v] : caps.limits) {
    if (n == name) {
      v = value;
      return;
    }
  }
  caps.limits.emplace_back(std::string(name), value);
}

}  // namespace

DeviceCaps DeviceCaps::webgpu_defaults() {
  // WebGPU spec, "Limits" table (core/webgpu_names.h): the limits a device reports (WGPULimits members).
  DeviceCaps caps;
  for (const WebGpuLimit& limit : kWebGpuLimits)
    if (limit.in_wgpu_limits) caps.limits.emplace_back(std::string(limit.name), static_cast<std::int64_t>(limit.default_value));
  return caps;
}

DeviceCaps DeviceCaps::lavapipe() {
  DeviceCaps caps = webgpu_defaults();
  caps.shader_f16 = caps.timestamp_query = caps.subgroups = true;
  set_limit(caps, "maxStorageBufferBindingSize", std::int64_t{128} << 20);
  set_limit(caps, "maxComputeWorkgroupsPerDimension", 65535);
  set_limit(caps, "maxStorageBuffersPerShaderStage", 10);
  return caps;
}

DeviceCaps DeviceCaps::h200() {
  DeviceCaps caps = webgpu_defaults();
  caps.timestamp_query = caps.subgroups = true;
  set_limit(caps, "maxStorageBufferBindingSize", (std::int64_t{1} << 32) - 1);
  set_limit(caps, "maxBufferSize", std::int64_t{1} << 40);
  set_limit(caps, "maxStorageBuffersPerShaderStage", 10);
  set_limit(caps, "maxComputeInvocationsPerWorkgroup", 1024);
  set_limit(caps, "maxComputeWorkgroupSizeX", 1024);
  set_limit(caps, "maxComputeWorkgroupSizeY", 1024);
  set_limit(caps, "maxComputeWorkgroupStorageSize", 49152);
  return caps;
}

std::optional<DeviceCaps> DeviceCaps::preset(std::string_view name) {
  if (name == "webgpu-default") return webgpu_defaults();
  if (name == "lavapipe") return lavapipe();
  if (name == "h200") return h200();
  return std::nullopt;
}

DeviceCaps DeviceCaps::from_json(std::string_view json_text, const std::string& source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kInvalidArgument, source + ": not valid JSON: " + e.what());
  }
  if (!j.is_object()) throw Error(ErrorKind::kInvalidArgument, source + ": expected a JSON object");
  DeviceCaps caps = webgpu_defaults();
  for (const auto& [key, value] : j.items()) {
    if (key == "limits") {
      if (!value.is_object()) throw Error(ErrorKind::kInvalidArgument, source + ": limits: expected an object");
      for (const auto& [name, limit] : value.items()) {
        if (!limit.is_number_integer() || limit.get<std::int64_t>() < 0) {
          throw Error(ErrorKind::kInvalidArgument,
                      source + ": limits." + name + ": expected a non-negative integer, got " + limit.dump());
        }
        set_limit(caps, name, limit.get<std::int64_t>());
      }
    } else if (key == "features") {
      if (!value.is_array()) throw Error(ErrorKind::kInvalidArgument, source + ": features: expected a list");
      for (const auto& f : value) {
        const std::string name = f.is_string() ? f.get<std::string>() : f.dump();
        std::size_t i = 0;
        while (i < kKernelFeatures.size() && kKernelFeatures[i].name != name) ++i;
        if (i == kKernelFeatures.size())
          throw Error(ErrorKind::kInvalidArgument,
                      source + ": features: unknown feature " + name + " (known: " + kernel_feature_list() + ")");
        caps.*kCapsFeatureFlags[i] = true;
      }
    } else {
      throw Error(ErrorKind::kInvalidArgument, source + ": unknown key '" + key + "' (expected limits, features)");
    }
  }
  return caps;
}

std::optional<std::int64_t> DeviceCaps::limit(std::string_view name) const {
  for (const auto& [n, v] : limits) {
    if (n == name) return v;
  }
  return std::nullopt;
}

}  // namespace wgk::plan
