#pragma once
// The public API: load a kernel package by id and version (or exact revision), call it on named
// tensors, get named outputs whose shapes and dtypes were inferred from the contract.
//
//   auto kernel = wgk::get_kernel("webgpu-kernels/ai.onnx.RotaryEmbedding", {.version = 1});
//   auto out = kernel({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}, {{"interleaved", 1}});
//   wgk::HostTensor y = out.at("y").read();
//
// Many calls in one submit (a decode step's layers), outputs chained on the device:
//
//   wgk::Batch batch(device);
//   auto q = batch.record(rope, {{"x", q_in}, ...});          // checked now, runs at flush()
//   auto k = batch.record(rope, {{"x", k_in}, ...});
//   batch.flush();                                            // one command buffer, one submit
//   wgk::HostTensor y = q.at("y").read();
//
// Thread safety: a Device, and the Kernels, DeviceTensors and Batches made on it, may be used from
// several threads; calls on one Device are serialized by the Device (one queue), so they never overlap.
// Except on the OpenGL ES backend (WGK_BACKEND=opengles): its EGL context belongs to the thread that
// created the Device, and a call from another thread (call_async too) loses the device ("eglCreateSync
// failed with EGL_BAD_MATCH"); use such a Device from that thread only.
//
// Host inputs are borrowed for the call only: an Inputs map built from temporary HostTensors and used
// after the full expression that built it reads freed memory. Keep the HostTensors alive, or build the
// map inside the call expression.
#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "wgk/tensor.h"

namespace wgk {

namespace detail {
struct Access;  // the library's own access to the state behind the handles (src/runtime/state.h)
}

/// Which adapter to run on. Empty fields take the environment (WGK_BACKEND, WGK_ADAPTER), then Dawn's
/// default adapter. backend: "vulkan", "opengles" or "" (default); adapter: an index into the adapter
/// list or a substring of its name ("llvmpipe", "H200").
struct DeviceOptions {
  std::string backend;
  std::string adapter;
  bool high_performance = true;
  /// Bytes the device may keep cached (plans, programs with their compiled pipelines, bind groups, and
  /// pooled storage buffers), least recently used evicted first. Tensors that callers hold are not
  /// counted and never evicted. Plans hold at most an eighth of the budget (the default's 8 MiB: some
  /// 4,000 call signatures) and pooled buffers at most half (32 MiB of the default: one 1x32x2048x128 float32
  /// tensor), so buffers of new sizes never push the compiled programs out; a buffer larger than that half
  /// is not pooled (allocated per call, released when dropped). A budget of 0 caches nothing (every call plans, renders and
  /// compiles again). A budget under one compiled pipeline (about 0.5 MiB) keeps none: every call
  /// compiles (milliseconds). A Batch holds what its pending calls use until the flush, uncounted, so
  /// within one batch a signature is planned once and a program compiled once whatever the budget.
  /// On a CPU adapter (lavapipe) pooled buffers are host memory.
  std::uint64_t cache_budget_bytes = std::uint64_t{64} << 20;
  /// How long one wait for the GPU's work may take (DeviceTensor::read, a Batch's or a call's wait,
  /// timestamps) before it fails with wgk::Error kGpu "gpu: timed out after 10 s waiting for read back of
  /// N bytes (wgk::DeviceOptions::gpu_timeout; ...)". Default 10 s; raise it for work that runs longer.
  /// Must be > 0 (Device::create: kInvalidArgument): waiting without end would turn a stuck GPU into a hang.
  /// The CLI's `--gpu-timeout-s`.
  std::chrono::nanoseconds gpu_timeout = std::chrono::seconds(10);
};

/// What a device's cache holds now (entries and bytes per kind) and what it has done so far. Bytes of
/// plans, programs and bind groups are estimates of their host memory; pooled buffers count their
/// allocation sizes. cached_bytes <= budget_bytes after every call.
struct CacheStats {
  struct Kind {
    std::size_t entries = 0;
    std::uint64_t bytes = 0;
  };
  Kind plans;           ///< planned call signatures (per kernel), with their uniform buffers
  Kind programs;        ///< rendered WGSL + compiled pipeline, keyed by what the template reads
  Kind bind_groups;     ///< bind groups by plan and bound buffers
  Kind pooled_buffers;  ///< free storage buffers, reused by size class
  std::uint64_t budget_bytes = 0;
  std::uint64_t cached_bytes = 0;  ///< the sum of the four kinds
  std::size_t buffers_alive = 0;   ///< storage buffers in existence: held by callers, in flight or pooled
  std::uint64_t buffer_bytes_alive = 0;
  std::uint64_t plans_made = 0;    ///< so far: call signatures planned (cache misses)
  std::uint64_t renders = 0;       ///< so far: templates rendered (program cache misses)
  std::uint64_t compilations = 0;  ///< so far: pipelines compiled
  std::uint64_t evictions = 0;     ///< so far: entries evicted
};

/// An adapter + device + queue, with the pipeline cache shared by every kernel on it.
class Device {
 public:
  /// Throws wgk::Error (kNotFound: no adapter matches; kGpu: device creation failed).
  static std::shared_ptr<Device> create(const DeviceOptions& options = {});
  /// The explicit default device, created on first use with DeviceOptions{}. The one global.
  static std::shared_ptr<Device> default_device();

  /// "NVIDIA H200 (vulkan, discrete GPU, driver ...)".
  std::string description() const;
  bool has_shader_f16() const;
  bool has_timestamp_query() const;
  /// What the device caches now, and its counters (docs/PERF.md "Memory"). Waits for a call being
  /// encoded on another thread (the device mutex); releases what eviction left first.
  CacheStats cache_stats() const;
  /// DeviceOptions::gpu_timeout as the device was created with.
  std::chrono::nanoseconds gpu_timeout() const;

  ~Device();
  /// The state behind the handle: defined inside the library, opaque here.
  struct State;

 private:
  friend struct detail::Access;
  explicit Device(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// A tensor in device memory: a call's output, or uploaded by the caller. Cheap to copy (shares the
/// buffer). Reading waits for the work that writes it.
class DeviceTensor {
 public:
  DeviceTensor() = default;
  /// Uploads `host` to `device` (storage as the dtype's bytes, padded to 16 bytes). Throws wgk::Error
  /// (kInvalidArgument) "DeviceTensor::upload: float32 shape [2, 3] needs 24 bytes of data, got 20" when
  /// `host.data` is not numel(shape) * dtype size bytes, and when `device` is null.
  static DeviceTensor upload(const HostTensor& host, const std::shared_ptr<Device>& device);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::int64_t numel() const { return wgk::numel(shape_); }
  /// Copies the tensor back to the host; waits for the GPU (timeout: wgk::Error kGpu). An output of a
  /// Batch is readable once the batch is flushed: before that (and after the batch was destroyed
  /// unflushed, or its flush failed) this throws wgk::Error kInvalidArgument saying so; it never flushes.
  HostTensor read() const;
  /// The same, on another thread.
  std::future<HostTensor> read_async() const;

  /// The device buffer behind the tensor: defined inside the library, opaque here.
  struct Buffer;

 private:
  friend struct detail::Access;
  // A view of `buffer` as `dtype` x `shape`. Throws wgk::Error kInvalidArgument when the shape has a
  // negative dimension or needs more bytes than the buffer's tensor holds.
  DeviceTensor(DType dtype, Shape shape, std::shared_ptr<Buffer> buffer);
  DType dtype_ = DType::kFloat32;
  Shape shape_;
  std::shared_ptr<Buffer> buffer_;
};

/// An input: host data (borrowed for the duration of the call, uploaded by it) or a device tensor.
class TensorArg {
 public:
  /// Refers to `host`, which must outlive the call (no copy of the data).
  TensorArg(const HostTensor& host) : value_(&host) {}
  /// Owns a temporary (`Inputs in{{"x", HostTensor::from(...)}}` kept for later calls stays valid).
  TensorArg(HostTensor&& host) : value_(std::make_shared<const HostTensor>(std::move(host))) {}
  TensorArg(DeviceTensor device) : value_(std::move(device)) {}
  const HostTensor* host() const {
    if (auto p = std::get_if<const HostTensor*>(&value_)) return *p;
    if (auto owned = std::get_if<std::shared_ptr<const HostTensor>>(&value_)) return owned->get();
    return nullptr;
  }
  const DeviceTensor* device() const { return std::get_if<DeviceTensor>(&value_); }
  DType dtype() const { return host() ? host()->dtype : device()->dtype(); }
  const Shape& shape() const { return host() ? host()->shape : device()->shape(); }

 private:
  std::variant<const HostTensor*, std::shared_ptr<const HostTensor>, DeviceTensor> value_;
};

/// An attribute or tunable value: ONNX INT, FLOAT, STRING attributes and the lists INTS, FLOATS,
/// STRINGS (onnx.proto AttributeProto; e.g. std::vector<std::int64_t>{0, 2, 1, 3}); tunables as the
/// manifest declares them (e.g. WORKGROUP_SIZE 64, F16_STORAGE "packed"). A call checks each value
/// against the manifest's declared type and allowed values (per element of a list): wgk::Error
/// kInvalidArgument naming the attribute, the rule and the value.
using AttributeValue = std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                                    std::vector<std::string>>;
using Inputs = std::map<std::string, TensorArg, std::less<>>;
using Attributes = std::map<std::string, AttributeValue, std::less<>>;
using Outputs = std::map<std::string, DeviceTensor, std::less<>>;
/// The optional outputs a call asks for, by argument or ONNX name (SkipSimplifiedLayerNormalization:
/// {"invStdVar", "inputSkipBiasSum"}). Required outputs are always produced; an optional output not named
/// is neither computed nor allocated and is absent from the Outputs. An unknown name is
/// kInvalidArgument naming the declared outputs. Each distinct set plans (and may compile) anew.
using OutputNames = std::vector<std::string>;

/// Which package bytes, exactly one of: `version` (the Hub branch vN, e.g. 1: follows it as fixes
/// land), `revision` (a Hub commit, 40 hex digits: exact bytes), `content` (the git blob id of
/// build/webgpu/metadata.json, 40 hex: exact bytes whatever commit holds them; the only pin the
/// embedded packages have). docs/hub.md.
struct KernelRef {
  std::optional<int> version = std::nullopt;
  std::optional<std::string> revision = std::nullopt;
  std::optional<std::string> content = std::nullopt;
};

/// What one call did (for tools and tests).
struct CallInfo {
  std::string variant;     ///< the variant chosen
  bool plan_cached = false;
};

/// A loaded package bound to a device. Cheap to copy (shared state).
class Kernel {
 public:
  /// Runs the kernel: checks the inputs and attributes against the contract (wgk::Error
  /// kInvalidArgument naming the input, the rule and the values), picks the variant, dispatches, and
  /// returns the outputs on the device without waiting for the GPU. Attributes not given take the
  /// manifest defaults. Inputs with a value range (position ids) given as DeviceTensors must already
  /// be uint32 (the kernels' storage; int64 ones are refused) and are checked too: against the range
  /// recorded when they were uploaded, or else read back (a wait for the GPU) and remembered by the
  /// buffer when the tensor covers all of it. An output of a Batch not yet flushed is refused as an input
  /// (kInvalidArgument naming the input): its values do not exist before the batch's submit.
  Outputs operator()(const Inputs& inputs, const Attributes& attrs = {}) const;
  /// The same, producing also the optional outputs named in `outputs` (OutputNames).
  Outputs operator()(const Inputs& inputs, const Attributes& attrs, const OutputNames& outputs) const;
  /// The same with tunable overrides (e.g. WORKGROUP_SIZE), call information and optional outputs.
  Outputs call(const Inputs& inputs, const Attributes& attrs, const Attributes& tunables, CallInfo* info,
               const OutputNames& outputs = {}) const;
  /// Runs the call and reads every output back, on another thread.
  std::future<std::map<std::string, HostTensor, std::less<>>> call_async(Inputs inputs, Attributes attrs = {}) const;

  const std::string& id() const;
  int version() const;
  /// The Hub commit the package was read at; empty for embedded packages and folders.
  const std::string& commit() const;
  /// The content pin: git blob id of build/webgpu/metadata.json.
  const std::string& content_id() const;
  const std::shared_ptr<Device>& device() const;

  /// The loaded package, contract and planner: defined inside the library, opaque here.
  struct State;

 private:
  friend struct detail::Access;
  explicit Kernel(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

/// Kernel calls recorded into one command buffer and submitted together by flush(): one submit for many
/// calls, of any packages bound to the batch's device, where an output of an earlier recorded call may be
/// an input of a later one (it is a DeviceTensor already).
///
/// record() checks each call at the boundary exactly as Kernel::call does (same errors: kInvalidArgument
/// naming the input, the rule and the values), plans it, uploads its host inputs (borrowed only for the
/// record() call), allocates its outputs and makes its bind groups; a call that throws is not recorded and
/// leaves the batch as it was. Nothing runs on the GPU until flush(), which encodes every recorded call's
/// dispatches in record order into one compute pass of one command buffer (WebGPU makes each dispatch's
/// writes visible to the next) and submits it without waiting. Until then the batch
/// keeps alive everything its calls use (programs, bind groups, uploaded inputs, the buffers of every input
/// and output, also those the caller dropped).
///
/// Outputs: readable (DeviceTensor::read) and usable by Kernel::call or another Batch once flush() returned;
/// before that they are usable only as inputs of later calls recorded in the same batch, and anything else
/// (read, Kernel::call, another batch's record) throws kInvalidArgument. A batch destroyed unflushed drops
/// its recorded calls: nothing is submitted, and their outputs stay unreadable for good (reading one throws
/// kInvalidArgument saying so). The same holds for the calls of a flush that throws.
///
/// Threads and the device mutex: a Batch may be used from several threads; its own mutex serializes
/// record() and flush(), and calls run in the order they were recorded. record() holds the device mutex
/// only while it allocates, uploads and makes bind groups for that one call, as Kernel::call does, and
/// flush() only for the submit: between records the device is free for other threads' calls and reads,
/// which are submitted before the batch when they come first (so a batch may read what they wrote).
/// Uniform values: a bind-group set a batch's pending call uses is never rewritten with other values
/// before that batch's submit, by the batch or anyone else (a call whose values differ gets its own).
/// Fused calls: a call that joins the previous call's dispatch (dispatches()) is checked, allocated and
/// returned like any other; only its bind group and dispatch are shared, and its outputs are those of
/// Kernel::call bit for bit.
class Batch {
 public:
  /// An empty batch on `device` (default: Device::default_device()).
  explicit Batch(std::shared_ptr<Device> device = nullptr);
  /// Drops what is recorded and not flushed (see above); never submits, never throws.
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  /// Records a call of `kernel` (bound to this batch's device: else kInvalidArgument) with the checks,
  /// defaults and errors of Kernel::call, and returns its outputs, to be computed by flush().
  Outputs record(const Kernel& kernel, const Inputs& inputs, const Attributes& attrs = {},
                 const Attributes& tunables = {}, CallInfo* info = nullptr, const OutputNames& outputs = {});
  /// Submits every call recorded since the last flush in one command buffer, in record order; does not
  /// wait for the GPU. An empty batch does nothing. Throws wgk::Error kGpu when Dawn reports an error
  /// (the recorded calls are then dropped); the batch is empty afterwards either way.
  void flush();
  /// Calls recorded since the last flush.
  std::size_t size() const;
  /// Dispatches the calls recorded since the last flush make (what flush() submits): one per pass with work
  /// of each call, except that consecutive calls of one plan whose pass declares `fusion` share a dispatch,
  /// up to its maxCalls and the device's maxStorageBuffersPerShaderStage, when they bind the same shared
  /// buffers and none reads what another writes (docs/kernel-conventions.md "Fused calls"). 64 such calls
  /// with room for K a dispatch: ceil(64 / K).
  std::size_t dispatches() const;
  /// The most calls one batch holds before a flush: record() past it throws kInvalidArgument ("flush()
  /// first"). Each pending call keeps its bind groups alive, and a driver's descriptor pools run out near
  /// 62,000 of them (lavapipe crashed there, a tester's finding).
  static constexpr std::size_t kMaxCalls = 16384;
  const std::shared_ptr<Device>& device() const;

  /// The recorded calls: defined inside the library, opaque here.
  struct State;

 private:
  friend struct detail::Access;
  std::unique_ptr<State> state_;
  std::shared_ptr<Device> device_;
};

/// Loads `id` ("webgpu-kernels/ai.onnx.RotaryEmbedding") from the store (Hub caches: WGK_KERNEL_PATH,
/// KERNELS_CACHE, HF_HUB_CACHE/HF_HOME/~/.cache/huggingface/hub; then the Hub, unless HF_HUB_OFFLINE=1
/// or WGK_HUB=off; finally the packages embedded in the build), verifies every byte (blob names and
/// metadata.json's sha256), loads its contract, and binds it to `device` (default:
/// Device::default_device()). Throws wgk::Error kInvalidArgument, kNotFound, kIntegrity, kContract.
Kernel get_kernel(std::string_view id, const KernelRef& ref, std::shared_ptr<Device> device = nullptr);
/// Loads a package folder from disk (README.md + build/webgpu/), verified the same way.
Kernel load_kernel_directory(const std::string& folder, std::shared_ptr<Device> device = nullptr);

}  // namespace wgk
