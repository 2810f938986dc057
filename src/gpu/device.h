#pragma once
// wgk::gpu::Device: one WebGPU adapter + device (Dawn), and everything a kernel call needs from it:
// buffers, compute pipelines from WGSL, bind groups, compute passes (optionally timestamped), waits.
//
// Errors: every failure is a wgk::Error of kind kGpu (Dawn validation, shader compilation, device lost,
// timeouts), kNotFound (no adapter matches) or kInvalidArgument (bad arguments caught here). Dawn errors are
// caught with error scopes around the call that caused them, so the throwing call is the guilty one.
// Waits never hang: each takes a timeout; running out is a kGpu error.
//
// Thread safety: a Device and the objects made from it are used from ONE thread at a time (Dawn's C API
// objects are not synchronised here; callbacks run inside the waiting call).
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/webgpu_names.h"
#include "gpu/handles.h"

namespace wgk::gpu {

/// Which Dawn backend to ask for. kDefault lets Dawn choose (Vulkan on Linux).
enum class Backend { kDefault, kVulkan, kOpenGLES };
/// WebGPU GPUPowerPreference.
enum class PowerPreference { kDefault, kLowPower, kHighPerformance };

/// "vulkan", "opengles", "default". Parse: the same words, case-insensitive; else kInvalidArgument.
std::string_view to_string(Backend backend);
Backend parse_backend(std::string_view text);

/// How to pick the adapter. `adapter`: "" (Dawn's choice for backend and power preference), all digits (an
/// index into list_adapters(backend)) or a case-insensitive substring of AdapterInfo::device or
/// ::description ("llvmpipe", "H200"). With `use_environment`, fields left empty take the environment:
/// WGK_BACKEND (a Backend word) when backend is kDefault, WGK_ADAPTER (same syntax as `adapter`) when
/// adapter is "". Both are read by the Device constructor only (adapter.cpp), one parser for both sources.
/// How long a wait may take before it is a kGpu error (waits never hang).
using Timeout = std::chrono::nanoseconds;
/// DeviceOptions::timeout's default (wgk::DeviceOptions::gpu_timeout's), and the fixed bound of the set-up
/// waits (adapter and device requests, error scopes, WGSL compilation info), which wait for Dawn, not for
/// submitted GPU work.
inline constexpr Timeout kDefaultTimeout = std::chrono::seconds(10);
/// Where a wait for GPU work gets its timeout from, as its timeout error names it.
inline constexpr std::string_view kTimeoutSetting = "wgk::DeviceOptions::gpu_timeout; wgk --gpu-timeout-s";

struct DeviceOptions {
  /// The bound of every wait for submitted GPU work: read, wait, read_timestamps (unless a call passes its
  /// own). Must be > 0: the constructor throws kInvalidArgument otherwise (a wait without end is a hang).
  Timeout timeout = kDefaultTimeout;
  Backend backend = Backend::kDefault;
  PowerPreference power_preference = PowerPreference::kDefault;
  std::string adapter;
  bool use_environment = true;
};

/// GPUAdapterInfo plus Dawn's backend and adapter type, as text.
struct AdapterInfo {
  std::string vendor, architecture, device, description;
  std::string backend;       ///< "vulkan", "opengles", ...
  std::string adapter_type;  ///< "discrete GPU", "integrated GPU", "CPU", "unknown"
  std::string driver;        ///< Dawn reports the driver in `description` (Vulkan driverName + driverInfo)
  uint32_t vendor_id = 0, device_id = 0;
  uint32_t subgroup_min_size = 0, subgroup_max_size = 0;
};

/// The features kernels branch on (WebGPU names shader-f16, timestamp-query, subgroups), plus every
/// feature the adapter reports by name (binary enum values decoded via abi.h).
struct Features {
  bool shader_f16 = false;
  bool timestamp_query = false;
  bool subgroups = false;
  std::vector<std::string> names;
};

/// The flag of each wgk::kKernelFeatures row (core/webgpu_names.h), in its order.
inline constexpr std::array<bool Features::*, 3> kFeatureFlags = {&Features::shader_f16, &Features::timestamp_query,
                                                                  &Features::subgroups};
static_assert(kFeatureFlags.size() == kKernelFeatures.size());

/// GPUSupportedLimits as (WebGPU name, value) pairs, e.g. ("maxComputeWorkgroupsPerDimension", 65535).
using Limits = std::vector<std::pair<std::string, uint64_t>>;

/// One adapter Dawn offers, as `wgk devices` lists it.
struct AdapterReport {
  size_t index = 0;
  AdapterInfo info;
  Features features;
  Limits limits;
};

/// Adapters Dawn offers for `backend` (kDefault: Vulkan and OpenGL ES). Dawn's C API has no enumeration:
/// this requests one adapter per (backend, power preference) and drops duplicates, so the list is short
/// and its order is stable. Never throws for a backend without adapters (the list is just shorter); kGpu when
/// Dawn makes no instance. Its instance is the process's, made on the first call and never released, so the
/// drivers it opens stay loaded while their worker threads run (releasing it gave a SIGSEGV on lavapipe under
/// load); thread-safe (calls are serialized).
std::vector<AdapterReport> list_adapters(Backend backend = Backend::kDefault);

/// One compute pass: set `pipeline` and `bind_group` (group 0), dispatch x*y*z workgroups.
struct Dispatch {
  const ComputePipeline* pipeline = nullptr;
  const BindGroup* bind_group = nullptr;
  uint32_t x = 1, y = 1, z = 1;
};

/// A (binding, buffer) entry of bind group 0; size kWholeSize = from offset to the end of the buffer.
inline constexpr uint64_t kWholeSize = ~uint64_t{0};
struct BindGroupEntry {
  uint32_t binding = 0;
  const Buffer* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = kWholeSize;
};

/// How Device::submit lays out its dispatches, and where a timestamped submit writes timestamps.
enum class Layout {
  kPassEach,      ///< one compute pass per dispatch; timestamps at each pass's begin and end (queries 2i, 2i+1)
  kPassEachSpan,  ///< one compute pass per dispatch; timestamps at the first's begin and the last's end (0, 1)
  kOnePass,       ///< every dispatch in one compute pass (WebGPU makes each dispatch's writes visible to the
                  ///< next); timestamps at its begin and end (0, 1)
};

class Device {
 public:
  /// Picks an adapter (DeviceOptions, environment) and creates a device that enables shader-f16,
  /// timestamp-query and subgroups when the adapter has them, with the adapter's limits as required
  /// limits (so maxStorageBufferBindingSize/maxBufferSize are the adapter's, not WebGPU's defaults),
  /// and with Dawn's "timestamp_quantization" toggle disabled, so timestamps are not rounded to
  /// 65,536 ns (as ONNX Runtime's WebGPU EP does). If Dawn refuses the toggle, the device is created
  /// without it: see toggles_error(). The environment may add toggles for measuring (WGK_DAWN_ENABLE_TOGGLES,
  /// WGK_DAWN_DISABLE_TOGGLES: comma lists of Dawn toggle names; docs/platform.md): kInvalidArgument naming the
  /// variable when a list is malformed, names a toggle twice, or Dawn does not apply a name (an unknown one).
  /// Throws kInvalidArgument (WGK_BACKEND is not a Backend word), kNotFound (no matching adapter, or an
  /// index past any adapter; the message names the source, DeviceOptions::adapter or WGK_ADAPTER, and
  /// lists the adapters found) or kGpu. The process-wide default device is wgk::Device::default_device()
  /// (include/wgk/kernel.h), built on this class.
  explicit Device(const DeviceOptions& options = {});
  ~Device();
  Device(Device&&) noexcept;
  Device& operator=(Device&&) noexcept;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const AdapterInfo& adapter_info() const;
  const Features& features() const;
  /// Device limits (the adapter's, see the constructor) by WebGPU name.
  const Limits& limits() const;
  /// One limit by WebGPU name; nullopt for an unknown name.
  std::optional<uint64_t> limit(std::string_view name) const;
  /// Empty when Dawn accepted the device toggles (timestamp_quantization off: full-resolution timestamps);
  /// otherwise Dawn's reason for refusing them, and this device's timestamps are quantized to 65,536 ns.
  const std::string& toggles_error() const;
  /// The Dawn toggles enabled on this device, as Dawn reports them (dawn::native::GetTogglesUsed; abi.h),
  /// e.g. "skip_validation" when WGK_DAWN_ENABLE_TOGGLES asked for it (docs/platform.md).
  std::vector<std::string> enabled_toggles() const;
  /// enabled_toggles() as one comma-separated line, as bench_host's header and `wgk devices` print it.
  std::string enabled_toggle_list() const;

  /// A buffer of `size` bytes (> 0, <= maxBufferSize), zero-filled. kGpu on Dawn failure (e.g. OOM).
  Buffer create_buffer(uint64_t size, BufferUsage usage, std::string_view label = {});
  /// Queues a write of `bytes` at `offset` (multiple of 4). A size that is not a multiple of 4 is only
  /// allowed at the end of the buffer (the padding bytes of the allocation are written as zero).
  /// No wait. kInvalidArgument for out-of-range or misaligned writes.
  void write(const Buffer& buffer, uint64_t offset, std::span<const std::byte> bytes);
  /// Reads `out.size()` bytes at `offset` (multiple of 4) back to the host: copies to a staging buffer,
  /// submits, waits (at most `timeout`; nullopt: the device's, DeviceOptions::timeout) and maps. kGpu on
  /// timeout ("gpu: timed out after 1 ns waiting for read back of 16 bytes (<kTimeoutSetting>)") or map failure.
  void read(const Buffer& buffer, uint64_t offset, std::span<std::byte> out, std::optional<Timeout> timeout = std::nullopt);
  std::vector<std::byte> read(const Buffer& buffer, std::optional<Timeout> timeout = std::nullopt);

  /// Compiles WGSL (entry point "main", layout "auto"). kGpu listing each compilation message as
  /// "label:line:column: error: text" plus the source line; also kGpu if pipeline creation fails.
  ComputePipeline create_compute_pipeline(std::string_view wgsl, std::string_view label = {});
  /// Bind group 0 of `pipeline` from its auto layout. kGpu when Dawn rejects it (missing binding, a range
  /// smaller than the shader's minimum binding size, wrong usage); kInvalidArgument for a null buffer.
  BindGroup create_bind_group(const ComputePipeline& pipeline, std::span<const BindGroupEntry> entries);

  /// A timestamp query set for up to `passes` timestamped passes. kGpu without timestamp-query.
  TimestampQuery create_timestamp_query(uint32_t passes);

  /// Encodes one compute pass per dispatch, in order, and submits them in one command buffer. With
  /// `timestamps`, pass i writes its begin/end into queries 2i, 2i+1, resolved at the end of the same
  /// command buffer. Does not wait for the GPU. kGpu on validation errors (error scope around the submit).
  /// `validate = false` skips the error scope (and its wait): for the per-call path, where pipelines and
  /// bind groups were validated when created. A validation error then surfaces as an uncaptured error,
  /// thrown by the next call that checks (any validated call, wait, read).
  /// `layout` kPassEachSpan and kOnePass time the whole command buffer (queries 0 and 1, as one pass), with no
  /// timestamp between dispatches; kOnePass also encodes one compute pass for all of them (less host work),
  /// setting a pipeline or bind group only where it differs from the dispatch before.
  void submit(std::span<const Dispatch> passes, TimestampQuery* timestamps = nullptr, bool validate = true,
              Layout layout = Layout::kPassEach);
  /// Queues a buffer-to-buffer copy (offsets and size multiples of 4). No wait.
  void copy(const Buffer& source, uint64_t source_offset, const Buffer& destination, uint64_t destination_offset,
            uint64_t size);
  /// Waits until all submitted work is done, at most `timeout` (nullopt: the device's). kGpu on timeout or
  /// device loss.
  void wait(std::optional<Timeout> timeout = std::nullopt);
  /// Reads the timestamps of the last submit with `query`: 2 per pass (begin, end), in nanoseconds on the
  /// GPU's clock. Waits (at most `timeout`; nullopt: the device's).
  std::vector<uint64_t> read_timestamps(TimestampQuery& query, std::optional<Timeout> timeout = std::nullopt);
  /// DeviceOptions::timeout as given to the constructor.
  Timeout timeout() const;

  struct State;  // private, defined in device_state.h

 private:
  std::unique_ptr<State> state_;
};

}  // namespace wgk::gpu
