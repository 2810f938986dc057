#pragma once
// Internal state behind the public handles of include/wgk/kernel.h, and the call path shared by
// Kernel::call and the timed calls of src/runtime/timing.h.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "contract/contract.h"
#include "plan/plan.h"
#include "gpu/device.h"
#include "plan/boundary.h"
#include "runtime/cache.h"
#include "store/store.h"
#include "wgk/kernel.h"

namespace wgk::runtime {

/// A device, its capabilities as the planner sees them, and its cache (plans, programs, bind groups,
/// pooled buffers: one owner, one byte budget). `mutex` serializes every use of `gpu` (gpu::Device is
/// single-threaded); the cache has its own mutex, so a DeviceTensor may die on any thread.
struct DeviceState {
  DeviceState(const gpu::DeviceOptions& options, std::uint64_t cache_budget_bytes);
  ~DeviceState();

  gpu::Device gpu;
  plan::DeviceCaps caps;
  /// The adapter's maxStorageBufferBindingSize (WebGPU limit; all ones when not reported): a binding
  /// covers a whole allocation, so no tensor's bytes padded to 16 may pass it.
  std::uint64_t max_storage_binding = 0;
  std::mutex mutex;
  DeviceCache cache;  ///< declared after `gpu`: emptied and destroyed first
  /// Host bytes written to the queue since the GPU was last seen idle (under `mutex`); past
  /// kMaxQueuedWriteBytes an upload waits for the GPU first, so Dawn's staging memory stays bounded.
  std::uint64_t queued_write_bytes = 0;
  /// 16 MiB: Dawn keeps each upload in staging memory until the GPU has passed it (on lavapipe that is
  /// host memory: with 64 MiB the prefill soak's RSS varied by 20 MiB from run to run, docs/PERF.md "Memory").
  static constexpr std::uint64_t kMaxQueuedWriteBytes = std::uint64_t{16} << 20;
};

/// A device buffer that keeps its device alive and goes back to the device's pool when released.
struct DeviceBuffer {
  std::shared_ptr<Device> device;
  gpu::Buffer buffer;
  std::uint64_t bytes = 0;  ///< the tensor's bytes (the allocation is allocation_size(bytes), cache.h)
  /// The extent [min, max] of an integer tensor's elements, read as `int_range_dtype`, once known: set at
  /// upload from the host data, or by the first range check that reads the buffer back. Valid for the
  /// buffer's life: a DeviceTensor's contents never change after the call or upload that made it
  /// (outputs always get fresh buffers).
  std::optional<plan::ValueRange> int_range;
  DType int_range_dtype = DType::kUInt32;
  std::mutex int_range_mutex;
  /// 0 once the buffer's contents exist; else the serial of the unflushed Batch whose call writes it, or
  /// kNeverWritten when that batch was dropped (destroyed unflushed, or its flush failed).
  std::atomic<std::uint64_t> pending_batch{0};
  static constexpr std::uint64_t kNeverWritten = ~std::uint64_t{0};
  ~DeviceBuffer();
};

/// Why a tensor whose buffer has `pending` (DeviceBuffer::pending_batch, non-zero) cannot be used by a
/// read or by a call outside batch `batch` (0: not recording): the text after "input x: " or "read: ".
std::string pending_reason(std::uint64_t pending, std::uint64_t batch);

/// For an error where two different wgk::Device objects meet (a kernel and a batch, a kernel and an input's
/// tensor), the text in its parentheses: "<a_role> is <description>, <b_role> is <description>", or, when both
/// describe one adapter (Device::create makes a new Device on each call), "<a_role> and <b_role> are two
/// different wgk::Device objects on the same adapter, <description>".
std::string two_devices(const Device& a, std::string_view a_role, const Device& b, std::string_view b_role);

struct KernelState {
  std::shared_ptr<const store::Package> package;
  std::shared_ptr<const contract::Contract> contract;
  std::shared_ptr<Device> device;
  std::unique_ptr<plan::Planner> planner;
  std::uint64_t serial = 0;  ///< DeviceCache::next_serial(): the prefix of this kernel's cache keys
  std::string serial_prefix() const { return std::string(reinterpret_cast<const char*>(&serial), sizeof serial); }
  /// The declared attributes whose default a caller may spell out, with it (contract::Attribute::
  /// default_value): a call giving one of them exactly that value (plan::attribute_value of it, the same
  /// kind, floats bit for bit) has the plan key of a call leaving it out, whose plan is the same (the
  /// boundary fills in the default).
  std::vector<std::pair<std::string, expr::Value>> attribute_defaults;
};

/// A plan a Batch's recorded calls use, held with its programs until the batch is flushed or dropped
/// (BatchState::plans), the programs also marked held in the cache (DeviceCache::hold): no later call of
/// the batch plans, renders or compiles again what an earlier one used, whatever the cache evicts meanwhile.
struct HeldPlan {
  std::shared_ptr<CachedPlan> cached;
  std::vector<std::shared_ptr<Program>> programs;  ///< per pass
  std::vector<std::shared_ptr<Program>> fused;     ///< the program for K fused calls at K - 2, once used
};

struct BatchState;

/// One call encoded up to its submit: boundary checks passed, plan chosen, inputs uploaded, outputs
/// allocated, bind groups made. `dispatches` point into `bind_groups`, which holds their pipelines'
/// programs too (an eviction meanwhile frees none of them); destroy or clear() it under the device mutex.
struct EncodedCall {
  std::shared_ptr<CachedPlan> cached;
  std::shared_ptr<const plan::Plan> plan;  ///< cached->plan
  std::shared_ptr<BindGroupSet> bind_groups;
  std::vector<std::shared_ptr<DeviceBuffer>> inputs;  ///< uploaded host inputs, alive until submitted
  Outputs outputs;
  std::vector<gpu::Dispatch> dispatches;  ///< passes with work (an empty tensor has none)
  bool plan_cached = false;
  HeldPlan* held = nullptr;  ///< a Batch's call: its plan in BatchState::plans
  /// Joined the batch's open dispatch (BatchState::open): no bind groups, no dispatch. A call that opens
  /// one has its dispatch, with no bind group until the batch closes it (close_open_dispatch), and no set.
  bool fused = false;
  /// Drops every reference; the vectors keep their capacity for the next call encoded into it.
  void clear();
};

/// encode_call's working storage, kept by a caller that encodes many calls (a Batch) so that its vectors
/// keep their capacity from call to call. Holds no reference between calls (encode_call clears it).
struct EncodeScratch {
  std::string plan_key;                             ///< kernel serial + the call's key (stage "plan")
  std::string group_key;                            ///< the bind-group set's key (stage "bind")
  std::vector<std::shared_ptr<Program>> programs;   ///< the plan's programs, per pass
  std::vector<std::vector<std::byte>> narrowed;     ///< per input: uint32 words of narrowed host data
  std::vector<const gpu::Buffer*> buffers;          ///< per input (Inputs order), then per output
  std::vector<const gpu::Buffer*> bound;            ///< per storage binding, the buffer it binds (stage "bind")
  std::vector<const gpu::ComputePipeline*> pipelines;  ///< per pass
  void clear();
};

/// Boundary (signature and data), plan, upload, allocation and bind groups of one call of `kernel`, in
/// that order (the stages of kernel.cpp: check + plan, check data, allocate, bind, record). Encodes into
/// `call` (cleared first) using `scratch`.
/// `lock` is a deferred lock on the kernel's device mutex: encode_call takes it once the host-side
/// checks pass and returns with it held, so the caller submits before anyone else uses the device.
/// Throws like Kernel::call.
/// `outputs`: the optional outputs asked for (wgk::OutputNames).
/// `batch`: the Batch recording the call, null for a call submitted at once. The call may take outputs of
/// that batch's earlier calls as inputs (pending_batch == batch->serial), its plan is held by the batch
/// (BatchState::plans) and the bind-group set it uses is claimed (BindGroupSet::batch_claims) until the
/// batch releases them. It joins the batch's open dispatch (BatchState::open) when it can
/// (docs/kernel-conventions.md "Fused calls": the same cached plan, the same shared buffers, none of its
/// inputs written by the dispatch, room under maxCalls and the storage-buffer limit); then `call` gets no
/// bind groups and no dispatch (EncodedCall::fused). Else the open dispatch is closed
/// (close_open_dispatch), and a call whose plan allows fusion opens one instead of being bound: its
/// dispatch's bind group is made once, when that dispatch closes, for all the calls it serves.
void encode_call(EncodedCall& call, EncodeScratch& scratch, KernelState& kernel, const Inputs& inputs,
                 const Attributes& attrs, const Attributes& tunables, std::unique_lock<std::mutex>& lock,
                 const OutputNames& outputs, BatchState* batch);
/// A call submitted at once, into a new EncodedCall, with the calling thread's working storage.
EncodedCall encode_call(KernelState& kernel, const Inputs& inputs, const Attributes& attrs,
                        const Attributes& tunables, std::unique_lock<std::mutex>& lock, const OutputNames& outputs = {});

/// A Batch's recorded calls (include/wgk/kernel.h). `mutex` serializes record and flush and is taken
/// before the device mutex, never after. Everything below `mutex` is used under it; `calls`, `inputs`
/// and `outputs` are also released under the device mutex (they may hold the last reference to Dawn objects).
struct BatchState {
  BatchState();
  std::uint64_t serial = 0;  ///< unique in the process, never 0 or DeviceBuffer::kNeverWritten
  std::mutex mutex;
  /// Per recorded call, the bind-group set its dispatches use (with their programs), claimed
  /// (batch_claims) until released.
  std::vector<std::shared_ptr<BindGroupSet>> calls;
  std::vector<gpu::Dispatch> dispatches;               ///< every call's passes, in record order
  std::vector<std::shared_ptr<DeviceBuffer>> inputs;   ///< every input buffer of the calls (uploaded or not)
  std::vector<std::shared_ptr<DeviceBuffer>> outputs;  ///< pending_batch == serial until flushed or dropped
  /// The plans of the recorded calls by plan key (EncodeScratch::plan_key), looked up before the cache's:
  /// held, not counted in the cache's budget, like the calls' buffers.
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
  };
  std::unordered_map<std::string, HeldPlan, KeyHash, std::equal_to<>> plans;
  /// The last recorded call's dispatch while later calls of its plan may still join it (fused calls). Its
  /// first call recorded it (dispatches[dispatch]) with no bind group (calls[call] null); close_open_dispatch
  /// makes the one bind group of all its calls (cached like a call's) and sets its pipeline.
  struct OpenDispatch {
    std::shared_ptr<CachedPlan> cached;  ///< null: none open
    std::uint32_t calls = 0;
    std::size_t call = 0;      ///< index into `calls` of its first call
    std::size_t dispatch = 0;  ///< index into `dispatches`
    std::size_t inputs_per_call = 0;
    /// Per call in order, its buffers: inputs in Inputs order, then outputs (EncodeScratch::buffers).
    std::vector<const gpu::Buffer*> buffers;
    /// The program for `calls`, compiled: the plan's own for one call, the fused one for more.
    std::shared_ptr<Program> program;
    std::vector<std::shared_ptr<Program>> programs;     ///< close_open_dispatch's working storage
    std::vector<const gpu::ComputePipeline*> pipelines;
  } open;
  EncodedCall encoded;   ///< the call being recorded (record's working storage)
  EncodeScratch scratch;
};

/// Submits what `batch` recorded in one command buffer, every dispatch in one compute pass (gpu::Layout::
/// kOnePass; with `timestamps`: that pass's begin and end), marks its outputs written (or never written, when the submit
/// throws, rethrown), and releases the claims and references. Caller holds batch.mutex, not the device
/// mutex. Returns false when no call is recorded (releasing only the plans held for refused calls).
bool flush_batch(BatchState& batch, DeviceState& device, gpu::TimestampQuery* timestamps);
/// Drops what `batch` recorded: its outputs are marked never written. Caller holds the device mutex.
void drop_batch(BatchState& batch, DeviceState& device);
/// Gives the batch's open dispatch its bind group (cached like a call's) and pipeline, for its one call or
/// for K >= 2 fused calls (then dispatch.z = K), and closes it (none open after). Throws what making the bind
/// group throws (wgk::Error kGpu), the dispatch then still open. Caller holds the device mutex.
void close_open_dispatch(BatchState& batch, DeviceState& device);

}  // namespace wgk::runtime

namespace wgk {

// The opaque types of include/wgk/kernel.h are the runtime's state above.
struct Device::State final : runtime::DeviceState {
  using runtime::DeviceState::DeviceState;
};
struct Kernel::State final : runtime::KernelState {};
struct DeviceTensor::Buffer final : runtime::DeviceBuffer {};
struct Batch::State final : runtime::BatchState {};

/// The library's access to the private members of the public handles (their friend). Tools and tests use
/// wgk/introspect.h instead.
struct detail::Access {
  static std::shared_ptr<Device> make_device(std::unique_ptr<Device::State> state) {
    return std::shared_ptr<Device>(new Device(std::move(state)));
  }
  static Kernel make_kernel(std::shared_ptr<Kernel::State> state) { return Kernel(std::move(state)); }
  /// Throws as DeviceTensor's constructor (kInvalidArgument: no buffer, or a shape it cannot hold).
  static DeviceTensor make_tensor(DType dtype, Shape shape, std::shared_ptr<DeviceTensor::Buffer> buffer) {
    return DeviceTensor(dtype, std::move(shape), std::move(buffer));
  }
  static runtime::DeviceState& state(const Device& device) { return *device.state_; }
  static runtime::KernelState& state(const Kernel& kernel) { return *kernel.state_; }
  static runtime::BatchState& state(const Batch& batch) { return *batch.state_; }
  static const std::shared_ptr<DeviceTensor::Buffer>& buffer(const DeviceTensor& tensor) { return tensor.buffer_; }
};

namespace runtime {
inline DeviceState& state_of(const Device& device) { return detail::Access::state(device); }
inline KernelState& state_of(const Kernel& kernel) { return detail::Access::state(kernel); }
inline BatchState& state_of_batch(const Batch& batch) { return detail::Access::state(batch); }
/// Null for a default-constructed DeviceTensor.
inline const std::shared_ptr<DeviceTensor::Buffer>& tensor_buffer(const DeviceTensor& tensor) {
  return detail::Access::buffer(tensor);
}
}  // namespace runtime

}  // namespace wgk
