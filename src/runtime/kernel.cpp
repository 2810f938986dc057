// Device, DeviceTensor, Kernel and get_kernel: plan (plan::Planner), encode, submit.
#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <thread>
#include <type_traits>
#include <variant>

#include "contract/contract.h"
#include "core/buffer_sizes.h"
#include "plan/boundary.h"
#include "plan/templates.h"
#include "runtime/state.h"
#include "wgk/error.h"
#include "wgk/kernel.h"

namespace wgk {
namespace runtime {
namespace {

gpu::DeviceOptions to_gpu_options(const DeviceOptions& options) {
  gpu::DeviceOptions o;
  if (!options.backend.empty()) o.backend = gpu::parse_backend(options.backend);
  o.power_preference = options.high_performance ? gpu::PowerPreference::kHighPerformance : gpu::PowerPreference::kDefault;
  o.adapter = options.adapter;  // parsed by gpu::Device, as WGK_ADAPTER is
  o.timeout = options.gpu_timeout;  // checked (> 0) by gpu::Device
  return o;
}

plan::DeviceCaps caps_of(const gpu::Device& device) {
  plan::DeviceCaps caps;
  for (const auto& [name, value] : device.limits())
    caps.limits.emplace_back(name, static_cast<std::int64_t>(std::min<std::uint64_t>(value, INT64_MAX)));
  caps.shader_f16 = device.features().shader_f16;
  caps.timestamp_query = device.features().timestamp_query;
  caps.subgroups = device.features().subgroups;
  return caps;
}

// A storage buffer holding `bytes` (storage_buffer_size: zero-padded to 16). Caller holds the device mutex.
std::shared_ptr<DeviceTensor::Buffer> make_buffer(const std::shared_ptr<Device>& device, std::uint64_t bytes,
                                                  std::span<const std::byte> data, std::string_view label) {
  auto& state = state_of(*device);
  // A binding covers the whole allocation: the tensor's bytes padded to 16 must fit the binding limit
  // (the allocation's size class is cut back to them when the class would not fit).
  const std::uint64_t need = storage_buffer_size(bytes);
  const std::uint64_t max_binding = state.max_storage_binding;
  if (need > max_binding)
    throw Error(ErrorKind::kInvalidArgument, std::string(label) + ": " + std::to_string(bytes) + " bytes (" +
                                                 std::to_string(need) + " padded to 16) exceed the adapter's "
                                                 "maxStorageBufferBindingSize " + std::to_string(max_binding));
  // Host data waits in Dawn's staging memory until the GPU has run the work queued before it. A caller
  // that never reads could queue without end: past kMaxQueuedWriteBytes since the GPU was last seen
  // idle, wait for it first.
  if (!data.empty()) {
    if (state.queued_write_bytes > 0 && state.queued_write_bytes + data.size() > DeviceState::kMaxQueuedWriteBytes) {
      state.gpu.wait();
      state.queued_write_bytes = 0;
    }
    state.queued_write_bytes += data.size();
  }
  auto buffer = std::make_shared<DeviceTensor::Buffer>();
  buffer->device = device;
  buffer->bytes = bytes;
  buffer->buffer = state.cache.take_buffer(state.gpu, need, max_binding, label);
  if (data.size() % 4 != 0) {  // WebGPU writes whole 4-byte words: pad the tail with zeros
    std::vector<std::byte> words(copy_size(data.size()));
    std::memcpy(words.data(), data.data(), data.size());
    state.gpu.write(buffer->buffer, 0, words);
  } else if (!data.empty()) {
    state.gpu.write(buffer->buffer, 0, data);
  }
  return buffer;
}

}  // namespace

DeviceState::DeviceState(const gpu::DeviceOptions& options, std::uint64_t cache_budget_bytes)
    : gpu(options),
      caps(caps_of(gpu)),
      max_storage_binding(gpu.limit("maxStorageBufferBindingSize").value_or(~std::uint64_t{0})),
      cache(cache_budget_bytes) {}

DeviceState::~DeviceState() {
  std::lock_guard lock(mutex);
  cache.clear();
}

std::string pending_reason(std::uint64_t pending, std::uint64_t batch) {
  if (pending == DeviceBuffer::kNeverWritten)
    return "an output of a Batch that was destroyed before flush() or whose flush failed: it was never computed";
  if (batch != 0 && pending != batch)
    return "an output of another Batch, not yet flushed: flush that batch first";
  return "an output of a Batch not yet flushed: call its flush() first";
}

std::string two_devices(const Device& a, std::string_view a_role, const Device& b, std::string_view b_role) {
  const std::string first = a.description(), second = b.description();
  if (first == second)
    return std::string(a_role) + " and " + std::string(b_role) +
           " are two different wgk::Device objects on the same adapter, " + first;
  return std::string(a_role) + " is " + first + ", " + std::string(b_role) + " is " + second;
}

DeviceBuffer::~DeviceBuffer() {
  if (buffer && device) state_of(*device).cache.give_back(std::move(buffer));
}

}  // namespace runtime

// ---- Device -------------------------------------------------------------------------------------

Device::Device(std::unique_ptr<State> state) : state_(std::move(state)) {}
Device::~Device() = default;

std::shared_ptr<Device> Device::create(const DeviceOptions& options) {
  return detail::Access::make_device(
      std::make_unique<State>(runtime::to_gpu_options(options), options.cache_budget_bytes));
}

std::shared_ptr<Device> Device::default_device() {
  // Never destroyed: at process exit the Vulkan driver may already be torn down by its own exit
  // handlers, and releasing a Dawn device then crashes (seen on the NVIDIA driver).
  static std::mutex mutex;
  static auto* device = new std::shared_ptr<Device>();
  std::lock_guard lock(mutex);
  if (!*device) *device = create();
  return *device;
}

std::string Device::description() const {
  const auto& info = state_->gpu.adapter_info();
  return info.device + " (" + info.backend + ", " + info.adapter_type + ", " + info.description + ")";
}
bool Device::has_shader_f16() const { return state_->caps.shader_f16; }
bool Device::has_timestamp_query() const { return state_->caps.timestamp_query; }
std::chrono::nanoseconds Device::gpu_timeout() const { return state_->gpu.timeout(); }
CacheStats Device::cache_stats() const {
  std::lock_guard lock(state_->mutex);
  state_->cache.release_evicted();  // what eviction left goes now, so buffers_alive counts only live ones
  return state_->cache.stats();
}

// ---- DeviceTensor -------------------------------------------------------------------------------

DeviceTensor::DeviceTensor(DType dtype, Shape shape, std::shared_ptr<Buffer> buffer)
    : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {
  if (!buffer_) throw Error(ErrorKind::kInvalidArgument, "DeviceTensor: no buffer");
  const std::uint64_t need = with_context([&] { return tensor_bytes(dtype_, shape_); },
                                          [] { return std::string("making a DeviceTensor"); });
  const std::uint64_t have = buffer_->bytes;
  if (need > have)
    throw Error(ErrorKind::kInvalidArgument, "DeviceTensor: " + std::string(dtype_name(dtype_)) + " " + shape_string(shape_) +
                                                 " needs " + std::to_string(need) + " bytes, its buffer holds " +
                                                 std::to_string(have));
}

DeviceTensor DeviceTensor::upload(const HostTensor& host, const std::shared_ptr<Device>& device) {
  if (!device) throw Error(ErrorKind::kInvalidArgument, "DeviceTensor::upload: no device (a null std::shared_ptr<Device>)");
  plan::check_data_size("", host, "DeviceTensor::upload");
  std::lock_guard lock(runtime::state_of(*device).mutex);
  auto buffer = runtime::make_buffer(device, host.data.size(), host.data, "upload");
  buffer->int_range = plan::int_range(host);  // range checks of this tensor then need no read-back
  buffer->int_range_dtype = host.dtype;
  return DeviceTensor(host.dtype, host.shape, std::move(buffer));
}

HostTensor DeviceTensor::read() const {
  if (!buffer_) throw Error(ErrorKind::kInvalidArgument, "reading an empty DeviceTensor");
  HostTensor host{dtype_, shape_, {}};
  host.data.resize(tensor_bytes(dtype_, shape_));  // a view may cover a prefix of its buffer
  if (const std::uint64_t pending = buffer_->pending_batch.load(); pending != 0)
    throw Error(ErrorKind::kInvalidArgument, "reading a DeviceTensor " + std::string(dtype_name(dtype_)) + " " +
                                                 shape_string(shape_) + ": " + runtime::pending_reason(pending, 0));
  if (host.data.empty()) return host;
  auto& state = runtime::state_of(*buffer_->device);
  std::lock_guard lock(state.mutex);
  // Reads are whole 4-byte words: read the padded tail and keep the tensor's bytes.
  std::vector<std::byte> words(copy_size(host.data.size()));
  state.gpu.read(buffer_->buffer, 0, words);
  state.queued_write_bytes = 0;  // the read waited for everything queued before it
  std::memcpy(host.data.data(), words.data(), host.data.size());
  return host;
}

std::future<HostTensor> DeviceTensor::read_async() const {
  return std::async(std::launch::async, [copy = *this] { return copy.read(); });
}

// ---- Kernel -------------------------------------------------------------------------------------

namespace {

// Exact equality of expression values: the same kind and value, floats bit for bit (1 is not 1.0, -0.0 is
// not 0.0: either may plan differently).
bool same_value(const expr::Value& a, const expr::Value& b) {
  if (a.is_int() || b.is_int()) return a.is_int() && b.is_int() && a.as_int() == b.as_int();
  if (a.is_float() || b.is_float())
    return a.is_float() && b.is_float() && std::bit_cast<std::uint64_t>(a.as_float()) == std::bit_cast<std::uint64_t>(b.as_float());
  if (a.is_string() || b.is_string()) return a.is_string() && b.is_string() && a.as_string() == b.as_string();
  if (!a.is_list() || !b.is_list() || a.as_list().size() != b.as_list().size()) return false;
  for (std::size_t i = 0; i < a.as_list().size(); ++i)
    if (!same_value(a.as_list()[i], b.as_list()[i])) return false;
  return true;
}

// Whether a caller may spell out attribute `a`'s default: the boundary binds an absent attribute to its
// default as it stands, and a given value through contract::attribute_value, so only a default that binds
// to itself (not, say, an INT default of a FLOAT attribute) binds alike both ways.
bool default_binds_as_itself(const contract::Attribute& a) {
  if (!a.default_value) return false;
  try {
    return same_value(contract::attribute_value(a, *a.default_value), *a.default_value);
  } catch (const Error&) {
    return false;
  }
}

std::shared_ptr<Kernel::State> make_kernel_state(std::shared_ptr<const store::Package> package,
                                                std::shared_ptr<Device> device) {
  auto state = std::make_shared<Kernel::State>();
  state->package = std::move(package);
  state->device = device ? std::move(device) : Device::default_device();
  const std::string origin = state->package->id + " (" + state->package->origin + ")";
  state->contract = std::make_shared<const contract::Contract>(
      contract::load_contract(state->package->webgpu_file("manifest.json"), origin + ": manifest.json"));
  for (const auto& variant : state->contract->variants)
    for (const auto& pass : variant.passes)
      if (!state->package->files.count("build/webgpu/" + pass.shader))
        throw Error(ErrorKind::kContract, origin + ": variant " + variant.id + " pass " + pass.id +
                                              ": shader " + pass.shader + " is not in the package");
  plan::check_templates(*state->contract,
                            [&package = *state->package](const std::string& name) { return package.webgpu_file(name); },
                            origin);
  for (const auto& a : state->contract->attributes)
    if (default_binds_as_itself(a)) state->attribute_defaults.emplace_back(a.name, *a.default_value);
  auto package_ref = state->package;
  runtime::DeviceCache& cache = runtime::state_of(*state->device).cache;
  state->serial = cache.next_serial();
  const std::string prefix = state->serial_prefix();
  // Programs are cached by this kernel's serial and what the template reads (plan::ProgramText::key).
  auto programs = [&cache, prefix](std::string key, const std::string& label,
                                   const std::function<std::string()>& render) {
    return cache.program(prefix, key, label, render)->text;
  };
  state->planner = std::make_unique<plan::Planner>(
      state->contract, runtime::state_of(*state->device).caps,
      [package_ref](const std::string& name) { return package_ref->webgpu_file(name); }, programs);
  return state;
}

}  // namespace

Kernel get_kernel(std::string_view id, const KernelRef& ref, std::shared_ptr<Device> device) {
  return with_context(
      [&] {
        auto package = store::Store::default_store().load(id, store::PackageRef{ref.version, ref.revision, ref.content});
        return detail::Access::make_kernel(make_kernel_state(std::move(package), std::move(device)));
      },
      [&] {
        std::string frame = "loading package " + std::string(id);
        if (ref.version) frame += " version " + std::to_string(*ref.version);
        if (ref.revision) frame += " revision " + *ref.revision;
        if (ref.content) frame += " content " + *ref.content;
        return frame;
      });
}

Kernel load_kernel_directory(const std::string& folder, std::shared_ptr<Device> device) {
  return with_context(
      [&] {
        return detail::Access::make_kernel(make_kernel_state(store::load_package_directory(folder), std::move(device)));
      },
      [&] { return "loading the package folder " + folder; });
}

const std::string& Kernel::id() const { return state_->package->id; }
int Kernel::version() const { return state_->package->version; }
const std::string& Kernel::commit() const { return state_->package->commit; }
const std::string& Kernel::content_id() const { return state_->package->content_id; }
const std::shared_ptr<Device>& Kernel::device() const { return state_->device; }

Outputs Kernel::operator()(const Inputs& inputs, const Attributes& attrs) const {
  return call(inputs, attrs, {}, nullptr);
}

Outputs Kernel::operator()(const Inputs& inputs, const Attributes& attrs, const OutputNames& outputs) const {
  return call(inputs, attrs, {}, nullptr, outputs);
}

namespace runtime {

void EncodedCall::clear() {
  cached.reset();
  plan.reset();
  bind_groups.reset();
  inputs.clear();
  outputs.clear();
  dispatches.clear();
  plan_cached = false;
  held = nullptr;
  fused = false;
}

void EncodeScratch::clear() {
  programs.clear();
  for (auto& words : narrowed) words.clear();
  buffers.clear();
  bound.clear();
  pipelines.clear();
}

// ---- encode_call's stages -----------------------------------------------------------------------
//
// 1. plan: the signature-level boundary. The call's key (its input names, dtypes and shapes, attributes,
//    tunables, optional outputs) finds the plan the planner made for it, or the planner checks and plans
//    it (plan::Planner::plan: every signature-level rule) and the plan is cached with what its calls
//    look up by name (CachedPlan::inputs, sources). Equal keys are equal signatures, so a cached plan is the
//    planner's answer for this call.
// 2. check data: every call, whatever was cached: host data sizes, checked narrowing, value ranges (of
//    device-resident inputs too), device-resident inputs on this device and computed (no unflushed batch).
// 3. allocate: under the device mutex, pipelines (compiled on first use), uploads of host inputs, outputs.
// 4. bind: the bind-group set of these programs and buffers (cached), its uniforms written if they differ.
// 5. record: the dispatches of the passes with work.
namespace {

void put_bytes(std::string& key, const void* p, std::size_t n) { key.append(static_cast<const char*>(p), n); }

// Length-prefixed: a name holding '\0' or key bytes cannot spell another call's key.
void put_name(std::string& key, std::string_view name) {
  const auto n = static_cast<std::uint32_t>(name.size());
  put_bytes(key, &n, sizeof n);
  key += name;
}

// Whether the call gives attribute `name` its default (KernelState::attribute_defaults): keyed as absent.
bool is_default(const KernelState& k, std::string_view name, const AttributeValue& value) {
  for (const auto& [declared, default_value] : k.attribute_defaults)
    if (declared == name) return same_value(plan::attribute_value(value), default_value);
  return false;
}

void put_values(std::string& key, const Attributes& values, const KernelState* defaults = nullptr) {
  for (const auto& [name, value] : values) {
    if (defaults && is_default(*defaults, name, value)) continue;
    put_name(key, name);
    key += static_cast<char>(value.index());
    std::visit(
        [&key](const auto& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::int64_t> || std::is_same_v<X, double>) {
            put_bytes(key, &x, sizeof x);
          } else if constexpr (std::is_same_v<X, std::string>) {
            put_name(key, x);
          } else {
            const auto n = static_cast<std::uint32_t>(x.size());
            put_bytes(key, &n, sizeof n);
            for (const auto& e : x) {
              if constexpr (std::is_same_v<std::decay_t<decltype(e)>, std::string>) put_name(key, e);
              else put_bytes(key, &e, sizeof e);
            }
          }
        },
        value);
  }
}

// Stage 1's key: every part of the call the planner reads, each value in its caller's type (two calls with
// equal keys make equal plan::CallSignatures: the runtime converts them the same way, signature_of), except
// an attribute given its default, keyed as absent (the boundary binds both alike).
void append_call_key(std::string& key, const KernelState& k, const Inputs& inputs, const Attributes& attrs,
                     const Attributes& tunables, const OutputNames& outputs) {
  for (const auto& [name, arg] : inputs) {
    const Shape& shape = arg.shape();
    put_name(key, name);
    key += static_cast<char>(arg.dtype());
    const auto rank = static_cast<std::uint32_t>(shape.size());
    put_bytes(key, &rank, sizeof rank);
    put_bytes(key, shape.data(), shape.size() * sizeof(std::int64_t));
  }
  key += '\x01';
  put_values(key, attrs, &k);
  key += '\x02';
  put_values(key, tunables);
  key += '\x03';
  for (const auto& name : outputs) put_name(key, name);
}

plan::CallSignature signature_of(const Inputs& inputs, const Attributes& attrs, const Attributes& tunables,
                                     const OutputNames& outputs) {
  plan::CallSignature signature;
  for (const auto& [name, arg] : inputs) signature.inputs.emplace(name, plan::TensorSignature{arg.dtype(), arg.shape()});
  for (const auto& [name, value] : attrs) signature.attrs.emplace(name, plan::attribute_value(value));
  for (const auto& [name, value] : tunables) signature.tunables.emplace(name, plan::attribute_value(value));
  signature.outputs = outputs;
  return signature;
}

// Where a storage binding of `planned` finds argument `arg` among a call's buffers (EncodeScratch::buffers:
// its inputs in `inputs` order, then the plan's outputs). Never fails for a contract that loaded: the loader
// refuses a storage binding whose `arg` names no declared input or output (kContract), and the planner leaves
// out the binding of an input the call does not give or of an output it does not plan (Planner::plan_bindings).
// So a miss is a defect of this library: kInternal, not a package's kContract.
std::uint32_t source_of(const std::vector<CachedPlan::Input>& inputs, const plan::Plan& planned, const std::string& arg) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].spec->name == arg) return static_cast<std::uint32_t>(i);
  for (std::size_t o = 0; o < planned.outputs.size(); ++o)
    if (planned.outputs[o].name == arg) return static_cast<std::uint32_t>(inputs.size() + o);
  throw Error(ErrorKind::kInternal, "variant " + planned.variant->id + " binds " + arg +
                                        ", which is neither an input of this call nor an output of its plan");
}

// Stage 1 on a miss: plan, and resolve by name what every call of the plan looks up.
std::shared_ptr<CachedPlan> make_plan(KernelState& k, const Inputs& inputs, const Attributes& attrs,
                                      const Attributes& tunables, const OutputNames& outputs,
                                      std::vector<std::shared_ptr<Program>>& programs) {
  DeviceCache& cache = state_of(*k.device).cache;
  const contract::Contract& contract = *k.contract;
  auto made = std::make_shared<CachedPlan>();
  made->contract = k.contract;
  made->plan = k.planner->plan(signature_of(inputs, attrs, tunables, outputs));  // renders through the cache
  const plan::Plan& planned = *made->plan;
  programs.clear();
  for (const auto& pass : planned.passes) {
    // Rendered by plan() a moment ago (or found): this finds it, unless a tiny budget evicted it.
    const std::string label = contract.domain + "." + contract.name + "/" + planned.variant->id + "/" + pass.pass->id;
    programs.push_back(cache.program(k.serial_prefix(), pass.program, label));
    made->programs.push_back(programs.back());
  }
  for (const auto& [name, arg] : inputs) {
    const contract::Input* spec = contract.find_input(name);
    // The planner refused unknown names.
    if (!spec) throw Error(ErrorKind::kInternal, "input '" + name + "' has no declaration, yet the call was planned");
    CachedPlan::Input in{spec, nullptr};
    for (const auto& r : planned.value_ranges)
      if (r.input == spec->name) in.range = &r;
    made->inputs.push_back(in);
  }
  for (const auto& out : planned.outputs)
    made->output_bytes.push_back(static_cast<std::uint64_t>(numel(out.shape)) * dtype_size(out.dtype));
  for (const auto& pass : planned.passes)
    for (const auto& b : pass.bindings) {
      if (b.binding->kind == contract::BindingKind::kUniform) {
        made->uniforms.insert(made->uniforms.end(), b.uniform.begin(), b.uniform.end());
        continue;
      }
      made->sources.push_back(source_of(made->inputs, planned, b.binding->arg));
    }
  // Fused calls: one pass with `fusion`, K calls' storage bindings within the device's limit.
  if (planned.passes.size() == 1 && planned.passes[0].pass->fusion) {
    const plan::PlannedPass& pp = planned.passes[0];
    std::size_t storage = 0;
    for (const auto& b : pp.bindings) {
      if (b.binding->kind == contract::BindingKind::kUniform) continue;
      if (!pp.pass->per_call(static_cast<std::size_t>(b.binding - contract.bindings.data())))
        made->shared_sources.push_back(made->sources[storage]);
      ++storage;
    }
    made->max_fused_calls = plan::fused_layout(contract, pp, state_of(*k.device).caps).calls;
    made->fused.resize(made->max_fused_calls - 1);
  }
  return made;
}

// Stage 1: the plan of this call (held by the batch recording it, cached, or made), its programs in
// `scratch.programs`. A batch's call leaves its plan held by the batch (BatchState::plans).
void plan_call(EncodedCall& call, EncodeScratch& scratch, KernelState& k, const Inputs& inputs, const Attributes& attrs,
               const Attributes& tunables, const OutputNames& outputs, BatchState* batch) {
  for (const auto& [name, arg] : inputs)
    // A default-constructed DeviceTensor has no shape to check (it is not a rank-0 tensor).
    if (arg.device() && !tensor_buffer(*arg.device()))
      throw Error(ErrorKind::kInvalidArgument, "input " + name + ": an empty DeviceTensor (default-constructed: no "
                                                                 "buffer; use an earlier call's output or DeviceTensor::upload)");
  DeviceCache& cache = state_of(*k.device).cache;
  std::string& key = scratch.plan_key;
  key.assign(reinterpret_cast<const char*>(&k.serial), sizeof k.serial);
  append_call_key(key, k, inputs, attrs, tunables, outputs);
  if (batch) {
    if (auto held = batch->plans.find(key); held != batch->plans.end()) {
      call.held = &held->second;
      call.cached = call.held->cached;
      call.plan = call.cached->plan;
      call.plan_cached = true;
      scratch.programs.assign(call.held->programs.begin(), call.held->programs.end());
      return;
    }
  }
  call.cached = cache.find_plan(key, &scratch.programs);
  call.plan_cached = call.cached != nullptr;
  if (!call.cached) call.cached = cache.insert_plan(key, make_plan(k, inputs, attrs, tunables, outputs, scratch.programs));
  call.plan = call.cached->plan;
  if (batch) {
    HeldPlan& held = batch->plans.try_emplace(key).first->second;
    held.cached = call.cached;
    held.programs = scratch.programs;
    held.fused.resize(call.cached->fused.size());
    cache.hold(held.programs);
    call.held = &held;
  }
}

// Stage 2, one device-resident input with a valueRange (position ids): the kernels index caches with it,
// and an unchecked row would give a silently wrong answer. Its extent is known from the upload (covering
// the whole buffer, so it bounds any view of the same dtype), or read back (a wait for the GPU) and
// remembered by the buffer when the view covers all of it.
void check_device_range(const std::string& name, const DeviceTensor& tensor, const plan::ValueRange& range) {
  DeviceBuffer& buffer = *tensor_buffer(tensor);
  std::optional<plan::ValueRange> known;
  {
    std::lock_guard range_lock(buffer.int_range_mutex);
    if (buffer.int_range && buffer.int_range_dtype == tensor.dtype()) known = buffer.int_range;
  }
  if (known && range.contains(*known)) return;
  plan::check_device_value_range(
      name, range, known, buffer.pending_batch.load() == 0, [&] { return tensor.read(); },
      [&](const std::optional<plan::ValueRange>& extent) {
        if (tensor_bytes(tensor.dtype(), tensor.shape()) != buffer.bytes) return;
        std::lock_guard range_lock(buffer.int_range_mutex);
        buffer.int_range = extent;
        buffer.int_range_dtype = tensor.dtype();
      });
}

// Stage 2: the data-level boundary of every input; narrowed host words in `scratch.narrowed`.
void check_data(const KernelState& k, const CachedPlan& cached, const Inputs& inputs, std::uint64_t batch,
                EncodeScratch& scratch) {
  if (scratch.narrowed.size() < inputs.size()) scratch.narrowed.resize(inputs.size());
  std::size_t i = 0;
  for (const auto& [name, arg] : inputs) {
    const auto& [spec, range] = cached.inputs[i++];
    if (const HostTensor* host = arg.host()) {
      plan::check_data_size(name, *host);
      if (spec->storage == DType::kUInt32) scratch.narrowed[i - 1] = plan::narrow_to_u32(name, *host, range);
      else if (range) plan::check_value_range(name, *host, *range);
      continue;
    }
    const DeviceTensor& tensor = *arg.device();
    if (spec->storage == DType::kUInt32 && tensor.dtype() != DType::kUInt32)
      throw Error(ErrorKind::kInvalidArgument,
                  "input " + name + ": a device-resident " + std::string(dtype_name(tensor.dtype())) +
                      " tensor cannot be narrowed on the device; upload it as uint32 or pass host data");
    const DeviceBuffer& buffer = *tensor_buffer(tensor);
    if (buffer.device.get() != k.device.get())
      throw Error(ErrorKind::kInvalidArgument,
                  "input " + name + " lives on another device than the kernel (" +
                      two_devices(*buffer.device, "the tensor's", *k.device, "the kernel's") +
                      "): upload it with the kernel's device (DeviceTensor::upload(host, kernel.device()))");
    if (const std::uint64_t pending = buffer.pending_batch.load(); pending != 0 && pending != batch)
      throw Error(ErrorKind::kInvalidArgument, "input " + name + ": " + pending_reason(pending, batch));
    if (range && tensor.numel() > 0) check_device_range(name, tensor, *range);
  }
}

// Stage 3: pipelines, host inputs uploaded, outputs allocated; every tensor's buffer in `scratch.buffers`
// (inputs in Inputs order, then outputs). Caller holds the device mutex.
void allocate(EncodedCall& call, EncodeScratch& scratch, const KernelState& k, const Inputs& inputs) {
  DeviceState& device = state_of(*k.device);
  const CachedPlan& cached = *call.cached;
  const plan::Plan& planned = *call.plan;
  for (const auto& program : scratch.programs) scratch.pipelines.push_back(&device.cache.pipeline(device.gpu, *program));
  std::size_t i = 0;
  for (const auto& [name, arg] : inputs) {
    const contract::Input& spec = *cached.inputs[i].spec;
    const std::vector<std::byte>& narrowed = scratch.narrowed[i++];
    if (const DeviceTensor* dt = arg.device()) {
      scratch.buffers.push_back(&tensor_buffer(*dt)->buffer);
      continue;
    }
    const HostTensor& host = *arg.host();
    std::span<const std::byte> bytes = spec.storage == DType::kUInt32 ? std::span<const std::byte>(narrowed) : host.data;
    const std::uint64_t size = spec.storage == DType::kUInt32 ? host.numel() * 4 : host.data.size();
    call.inputs.push_back(make_buffer(k.device, size, bytes, spec.name));
    scratch.buffers.push_back(&call.inputs.back()->buffer);
  }
  for (std::size_t o = 0; o < planned.outputs.size(); ++o) {
    const plan::PlannedOutput& out = planned.outputs[o];
    auto buffer = make_buffer(k.device, cached.output_bytes[o], {}, out.name);
    scratch.buffers.push_back(&buffer->buffer);
    call.outputs.emplace(out.name, detail::Access::make_tensor(out.dtype, out.shape, std::move(buffer)));
  }
}

// The bind-group set of `programs` (one per pass of `passes`) binding `bound` (per storage binding, passes in
// order, bindings in @binding order) and `uniforms` (every uniform binding's bytes, in order): cached by the
// programs and buffers, its uniform buffers written when they differ. Claimed when `batch` != 0. Caller
// holds the device mutex.
std::shared_ptr<BindGroupSet> bind_set(DeviceState& device, std::string& key,
                                       const std::vector<std::shared_ptr<Program>>& programs,
                                       const std::vector<const gpu::ComputePipeline*>& pipelines,
                                       std::span<const plan::PlannedPass> passes,
                                       std::span<const gpu::Buffer* const> bound, const std::vector<std::byte>& uniforms,
                                       std::uint64_t batch) {
  DeviceCache& cache = device.cache;
  key.clear();
  std::size_t source = 0;
  for (std::size_t p = 0; p < passes.size(); ++p) {
    put_bytes(key, &programs[p]->id, sizeof programs[p]->id);
    for (const auto& b : passes[p].bindings)
      if (b.binding->kind != contract::BindingKind::kUniform) {
        const void* id = bound[source++]->id();
        put_bytes(key, &id, sizeof id);
      }
  }
  auto make_set = [&] {
    auto made = std::make_shared<BindGroupSet>();
    made->programs = programs;
    std::size_t at = 0;
    for (std::size_t p = 0; p < passes.size(); ++p) {
      auto& pass_uniforms = made->uniforms.emplace_back();
      std::vector<gpu::BindGroupEntry> entries;
      for (const auto& b : passes[p].bindings) {
        if (b.binding->kind == contract::BindingKind::kUniform) {
          pass_uniforms.push_back(device.gpu.create_buffer(b.uniform.size(), gpu::BufferUsage::kUniform, b.binding->name));
        }
      }
      std::size_t uniform = 0;
      for (const auto& b : passes[p].bindings) {
        if (b.binding->kind == contract::BindingKind::kUniform) entries.push_back({b.slot, &pass_uniforms[uniform++], 0, gpu::kWholeSize});
        else entries.push_back({b.slot, bound[at++], 0, b.as_uniform ? b.uniform_bytes : gpu::kWholeSize});
      }
      made->groups.push_back(device.gpu.create_bind_group(*pipelines[p], entries));
    }
    return made;
  };
  std::shared_ptr<BindGroupSet> set = cache.find_bind_groups(key);
  if (!set) {
    set = make_set();
    std::vector<const void*> pinned;
    for (const gpu::Buffer* buffer : bound) pinned.push_back(buffer->id());
    cache.insert_bind_groups(key, set, pinned);
  } else if (set->batch_claims > 0 && set->written != uniforms) {
    // An unflushed batch's call uses this set with other uniform values, and its submit comes after any
    // write made now: this call gets its own set, not cached.
    set = make_set();
  }
  // This call's uniform values, written when they differ from what the set's buffers were last given.
  if (set->written != uniforms) {
    for (std::size_t p = 0; p < passes.size(); ++p) {
      std::size_t uniform = 0;
      for (const auto& b : passes[p].bindings)
        if (b.binding->kind == contract::BindingKind::kUniform) device.gpu.write(set->uniforms[p][uniform++], 0, b.uniform);
    }
    set->written = uniforms;
  }
  if (batch != 0) ++set->batch_claims;  // released by the batch (flush_batch, drop_batch)
  return set;
}

// Stage 4: the bind-group set of this call's programs and buffers. Each binds its buffers' whole allocation
// (allocation_size: a size class), so a pooled buffer reused for a tensor of another length in the same
// class keeps its bind groups (docs/kernel-conventions.md "Buffers"). Caller holds the device mutex.
void bind(EncodedCall& call, EncodeScratch& scratch, std::uint64_t batch, DeviceState& device) {
  const CachedPlan& cached = *call.cached;
  scratch.bound.clear();
  for (std::uint32_t s : cached.sources) scratch.bound.push_back(scratch.buffers[s]);
  call.bind_groups = bind_set(device, scratch.group_key, scratch.programs, scratch.pipelines, call.plan->passes,
                              scratch.bound, cached.uniforms, batch);
}

// Fused calls (docs/kernel-conventions.md "Fused calls"). Whether the call encoded into `call` and
// `scratch` (stages 1-3 done) joins the batch's open dispatch, and if so joins it: the same cached plan,
// room for one more call, the same shared buffers, and none of its inputs written by a call of the
// dispatch (they would race). The plan and pipeline for one more call are made here on first use, so a
// template fault is this call's error. Caller holds the device mutex.
bool join_open_dispatch(BatchState& batch, EncodedCall& call, EncodeScratch& scratch, KernelState& k,
                        const Inputs& inputs, const Attributes& attrs, const Attributes& tunables,
                        const OutputNames& outputs, DeviceState& device) {
  BatchState::OpenDispatch& open = batch.open;
  if (!open.cached || open.cached != call.cached || open.calls >= call.cached->max_fused_calls) return false;
  const std::size_t per_call = scratch.buffers.size();
  for (std::uint32_t s : open.cached->shared_sources)
    if (scratch.buffers[s] != open.buffers[s]) return false;
  for (std::size_t i = 0; i < open.inputs_per_call; ++i)
    for (std::uint32_t c = 0; c < open.calls; ++c)
      for (std::size_t o = open.inputs_per_call; o < per_call; ++o)
        if (scratch.buffers[i] == open.buffers[c * per_call + o]) return false;
  const std::uint32_t calls = open.calls + 1;
  CachedPlan::Fused& fused = open.cached->fused[calls - 2];
  if (!fused.plan) {
    CachedPlan::Fused made;  // assigned once complete: a throw below leaves the plan without it
    auto planned = k.planner->plan_fused(signature_of(inputs, attrs, tunables, outputs), calls);
    const plan::PlannedPass& pp = planned->passes.at(0);
    for (const auto& b : pp.bindings) {
      if (b.binding->kind == contract::BindingKind::kUniform) {
        made.uniforms.insert(made.uniforms.end(), b.uniform.begin(), b.uniform.end());
        continue;
      }
      // The same arguments as the one-call plan's bindings: their index in a call's buffers.
      made.sources.emplace_back(b.call.value_or(0), source_of(open.cached->inputs, *planned, b.binding->arg));
    }
    made.plan = std::move(planned);
    fused = std::move(made);
    device.cache.count_fused(scratch.plan_key, *open.cached, fused);
  }
  // The program for `calls` the batch holds (call.held: the plan is held since the dispatch's first call),
  // else the cache's, then held.
  std::shared_ptr<Program>& held = call.held->fused[calls - 2];
  if (!held) {
    std::shared_ptr<Program> program = fused.program.lock();
    if (!program || program->evicted) {
      const std::string label = k.contract->domain + "." + k.contract->name + "/" + call.plan->variant->id + "/" +
                                call.plan->passes[0].pass->id + "/" + std::to_string(calls) + " calls";
      program = device.cache.program(k.serial_prefix(), fused.plan->passes[0].program, label);
      fused.program = program;
    }
    device.cache.pipeline(device.gpu, *program);  // compiled now: a fault is this call's
    held = std::move(program);
    device.cache.hold(std::span(&held, 1));
  }
  open.program = held;
  open.buffers.insert(open.buffers.end(), scratch.buffers.begin(), scratch.buffers.end());
  open.calls = calls;
  call.fused = true;
  return true;
}

// A call whose plan allows fusion, and that did not join, opens a dispatch later calls may join: its one
// dispatch is recorded with its pipeline and without a bind group, which close_open_dispatch makes once for
// all the calls the dispatch serves. False (nothing done) for a plan without fusion or a pass without work.
bool open_dispatch(BatchState& batch, EncodedCall& call, const EncodeScratch& scratch, std::size_t inputs) {
  const auto& w = call.plan->passes[0].workgroups;
  if (call.cached->max_fused_calls < 2 || w[0] == 0 || w[1] == 0 || w[2] == 0) return false;
  BatchState::OpenDispatch& open = batch.open;
  open.cached = call.cached;
  open.calls = 1;
  open.call = batch.calls.size();  // Batch::record appends this call's (null) set and its dispatch next
  open.dispatch = batch.dispatches.size();
  open.inputs_per_call = inputs;
  open.buffers.assign(scratch.buffers.begin(), scratch.buffers.end());
  open.program = scratch.programs[0];
  call.dispatches.push_back({scratch.pipelines[0], nullptr, w[0], w[1], w[2]});
  return true;
}

// Stage 5: the dispatches of the passes that have work.
void record(EncodedCall& call, const EncodeScratch& scratch) {
  const plan::Plan& planned = *call.plan;
  for (std::size_t p = 0; p < planned.passes.size(); ++p) {
    const auto& w = planned.passes[p].workgroups;
    if (w[0] == 0 || w[1] == 0 || w[2] == 0) continue;  // an empty tensor: nothing to run
    call.dispatches.push_back({scratch.pipelines[p], &call.bind_groups->groups[p], w[0], w[1], w[2]});
  }
}

}  // namespace

void encode_call(EncodedCall& call, EncodeScratch& scratch, KernelState& k, const Inputs& inputs,
                 const Attributes& attrs, const Attributes& tunables, std::unique_lock<std::mutex>& lock,
                 const OutputNames& outputs, BatchState* batch) {
  call.clear();
  // The scratch holds references (programs) only while this runs, and a call that throws is dropped:
  // under the device mutex when it was taken (what it holds by then may be the last references to Dawn
  // objects), else it holds none yet (a plan and no buffers).
  struct Release {
    EncodedCall& call;
    EncodeScratch& scratch;
    bool encoded = false;
    ~Release() {
      scratch.clear();
      if (!encoded) call.clear();
    }
  } release{call, scratch};
  plan_call(call, scratch, k, inputs, attrs, tunables, outputs, batch);
  const std::uint64_t serial = batch ? batch->serial : 0;
  check_data(k, *call.cached, inputs, serial, scratch);
  DeviceState& device = state_of(*k.device);
  lock.lock();
  device.cache.release_evicted();
  allocate(call, scratch, k, inputs);
  if (batch) {
    if (join_open_dispatch(*batch, call, scratch, k, inputs, attrs, tunables, outputs, device)) {
      release.encoded = true;
      return;
    }
    close_open_dispatch(*batch, device);
    if (open_dispatch(*batch, call, scratch, inputs.size())) {
      release.encoded = true;
      return;
    }
  }
  bind(call, scratch, serial, device);
  record(call, scratch);
  release.encoded = true;
}

void close_open_dispatch(BatchState& batch, DeviceState& device) {
  BatchState::OpenDispatch& open = batch.open;
  if (open.cached) {
    const CachedPlan& cached = *open.cached;
    const CachedPlan::Fused* fused = open.calls >= 2 ? &cached.fused[open.calls - 2] : nullptr;
    const std::size_t per_call = open.buffers.size() / open.calls;
    // Only the scratch's group_key and bound: inside encode_call (a call that does not join), bind() refills
    // both after this; the call's own vectors are left alone.
    EncodeScratch& scratch = batch.scratch;
    scratch.bound.clear();
    if (fused) {
      for (const auto& [call, source] : fused->sources) scratch.bound.push_back(open.buffers[call * per_call + source]);
    } else {
      for (std::uint32_t source : cached.sources) scratch.bound.push_back(open.buffers[source]);
    }
    open.programs.assign(1, open.program);  // vectors of one, kept with their capacity
    open.pipelines.assign(1, open.program->pipeline.get());
    std::shared_ptr<BindGroupSet> set =
        bind_set(device, scratch.group_key, open.programs, open.pipelines, (fused ? *fused->plan : *cached.plan).passes,
                 scratch.bound, fused ? fused->uniforms : cached.uniforms, batch.serial);
    gpu::Dispatch& d = batch.dispatches[open.dispatch];
    d.pipeline = open.pipelines[0];
    d.bind_group = &set->groups[0];
    if (fused) d.z = open.calls;
    batch.calls[open.call] = std::move(set);
  }
  open.cached.reset();
  open.calls = 0;
  open.buffers.clear();
  open.program.reset();
  open.programs.clear();
}

EncodedCall encode_call(KernelState& k, const Inputs& inputs, const Attributes& attrs, const Attributes& tunables,
                        std::unique_lock<std::mutex>& lock, const OutputNames& outputs) {
  // The thread's scratch holds nothing between calls (encode_call clears it), only its capacity: this
  // thread's next call allocates none of it again.
  thread_local EncodeScratch scratch;
  EncodedCall call;
  encode_call(call, scratch, k, inputs, attrs, tunables, lock, outputs, nullptr);
  return call;
}

}  // namespace runtime

Outputs Kernel::call(const Inputs& inputs, const Attributes& attrs, const Attributes& tunables, CallInfo* info,
                     const OutputNames& outputs) const {
  std::unique_lock<std::mutex> lock(runtime::state_of(*state_->device).mutex, std::defer_lock);
  runtime::EncodedCall call = with_context([&] { return runtime::encode_call(*state_, inputs, attrs, tunables, lock, outputs); },
                                           [&] { return "calling " + state_->package->id; });
  if (info) {
    info->variant = call.plan->variant->id;
    info->plan_cached = call.plan_cached;
  }
  // Pipelines and bind groups were validated when made; the submit itself skips the error scope.
  if (!call.dispatches.empty()) runtime::state_of(*state_->device).gpu.submit(call.dispatches, nullptr, /*validate=*/false);
  return std::move(call.outputs);
}

std::future<std::map<std::string, HostTensor, std::less<>>> Kernel::call_async(Inputs inputs, Attributes attrs) const {
  // Upload and submit now (host tensors are borrowed only for this call); read back on another thread.
  Outputs outputs = call(inputs, attrs, {}, nullptr);
  return std::async(std::launch::async, [outputs = std::move(outputs)] {
    std::map<std::string, HostTensor, std::less<>> host;
    for (const auto& [name, tensor] : outputs) host.emplace(name, tensor.read());
    return host;
  });
}

}  // namespace wgk
