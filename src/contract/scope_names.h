#pragma once
// The names an expression may read from the call scope (docs/kernel-conventions.md, "Render
// context"): the roots, the WebGPU limit names under `device.limits`, the feature names under
// `device.features`. The contract loader resolves manifest expressions against these; the runtime
// binds exactly these.
#include <array>
#include <string_view>

#include "core/webgpu_names.h"

namespace wgk::contract {

/// Top-level scope names: `shapes.<input>`, `ranks.<input>`, `dtypes.<T>`, `present.<input>`,
/// `attrs.<name>`, `tunables.<name>`, `device.limits.<limit>`, `device.features.<feature>`.
inline constexpr std::array<std::string_view, 7> kScopeRoots = {"shapes", "ranks", "dtypes", "present",
                                                                 "attrs",  "tunables", "device"};

/// Whether `name` is one of kScopeRoots. Derive names never are (parse_derive_object refuses them), so a
/// lookup may answer a root without searching the derive layers.
constexpr bool is_scope_root(std::string_view name) {
  for (std::string_view root : kScopeRoots)
    if (root == name) return true;
  return false;
}

// `device.limits.<name>`: the names of wgk::kWebGpuLimits (core/webgpu_names.h, the one table).

// `device.features.<name>`: the scope names of wgk::kKernelFeatures (core/webgpu_names.h).

/// Whether `name` is the scope name of a kernel feature (`shader_f16`, `timestamp_query`, `subgroups`).
constexpr bool is_device_feature(std::string_view name) {
  for (const WebGpuFeature& f : kKernelFeatures)
    if (f.scope_name == name) return true;
  return false;
}

}  // namespace wgk::contract
