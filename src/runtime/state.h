#pragma once
// Internal state behind the public handles of include/wgk/kernel.h.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "contract/contract.h"
#include "contract/plan.h"
#include "gpu/device.h"
#include "store/store.h"
#include "wgk/kernel.h"

namespace wgk::runtime {

/// A device, its capabilities as the planner sees them, and the pipeline cache shared by every kernel
/// on it. `mutex` serializes every use of `gpu` (gpu::Device is single-threaded).
struct DeviceState {
  explicit DeviceState(const gpu::DeviceOptions& options);

  gpu::Device gpu;
  contract::DeviceCaps caps;
  std::mutex mutex;
  /// Compiled pipelines by WGSL text (hash -> text, pipeline): a repeat call compiles nothing.
  std::unordered_map<std::string, std::shared_ptr<gpu::ComputePipeline>> pipelines;
  std::size_t pipelines_compiled = 0;  ///< compilations so far (tests: a repeat call compiles nothing)
  std::size_t gpu_pipelines_compiled() {
    std::lock_guard lock(mutex);
    return pipelines_compiled;
  }

  /// The pipeline for `wgsl`, compiled on first use. Caller holds `mutex`.
  std::shared_ptr<gpu::ComputePipeline> pipeline(const std::string& wgsl, const std::string& label);
};

/// A device buffer that keeps its device alive.
struct DeviceBuffer {
  std::shared_ptr<Device> device;
  gpu::Buffer buffer;
  std::uint64_t bytes = 0;  ///< the tensor's bytes (the allocation may be larger)
};

/// GPU objects that depend only on the plan (uniform buffers, pipelines), kept with it.
struct PreparedPlan {
  std::vector<std::shared_ptr<gpu::ComputePipeline>> pipelines;  ///< one per pass
  std::vector<std::vector<gpu::Buffer>> uniforms;                ///< per pass, per uniform binding
};

struct KernelState {
  std::shared_ptr<const store::Package> package;
  std::shared_ptr<const contract::Contract> contract;
  std::shared_ptr<Device> device;
  std::unique_ptr<contract::Planner> planner;
  std::mutex prepared_mutex;
  std::unordered_map<const contract::Plan*, std::pair<std::shared_ptr<const contract::Plan>, std::shared_ptr<PreparedPlan>>>
      prepared;
};

}  // namespace wgk::runtime
