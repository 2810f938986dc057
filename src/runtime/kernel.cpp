// Device, DeviceTensor, Kernel and get_kernel: plan (plan::Planner), encode, submit.
#include <algorithm>
#include <cstring>
#include <thread>

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
  const std::uint64_t max_binding = state.gpu.limit("maxStorageBufferBindingSize").value_or(~std::uint64_t{0});
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
    : gpu(options), caps(caps_of(gpu)), cache(cache_budget_bytes) {}

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
  plan::check_data_size("upload", host);
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

EncodedCall encode_call(KernelState& k, const Inputs& inputs, const Attributes& attrs,
                        const Attributes& tunables, std::unique_lock<std::mutex>& lock, std::uint64_t batch,
                        const OutputNames& outputs) {
  const contract::Contract& contract = *k.contract;
  EncodedCall call;

  // 1. Signature-level boundary and plan, cached by the kernel's serial and the call signature.
  plan::CallSignature signature;
  for (const auto& [name, arg] : inputs) {
    // Before planning: a default-constructed DeviceTensor has no shape to check (it is not a rank-0 tensor).
    if (arg.device() && !tensor_buffer(*arg.device()))
      throw Error(ErrorKind::kInvalidArgument, "input " + name + ": an empty DeviceTensor (default-constructed: no "
                                                                 "buffer; use an earlier call's output or DeviceTensor::upload)");
    signature.inputs.emplace(name, plan::TensorSignature{arg.dtype(), arg.shape()});
  }
  for (const auto& [name, value] : attrs) signature.attrs.emplace(name, plan::attribute_value(value));
  for (const auto& [name, value] : tunables) signature.tunables.emplace(name, plan::attribute_value(value));
  signature.outputs = outputs;
  DeviceCache& cache = state_of(*k.device).cache;
  thread_local std::string key;
  key = k.serial_prefix();
  plan::append_signature_key(key, signature);
  call.cached = cache.find_plan(key, &call.programs);
  call.plan_cached = call.cached != nullptr;
  if (!call.cached) {
    auto planned = std::make_shared<CachedPlan>();
    planned->contract = k.contract;
    planned->plan = k.planner->plan(signature);  // renders through the cache's programs (make_kernel_state)
    for (const auto& pass : planned->plan->passes) {
      // Rendered by plan() a moment ago (or found): this finds it, unless a tiny budget evicted it.
      const std::string label = contract.domain + "." + contract.name + "/" + planned->plan->variant->id + "/" + pass.pass->id;
      call.programs.push_back(cache.program(k.serial_prefix(), pass.program, label));
      planned->programs.push_back(call.programs.back());
    }
    call.cached = cache.insert_plan(std::move(key), std::move(planned));  // `key` is scratch: assigned anew each call
  }
  call.plan = call.cached->plan;
  const plan::Plan& plan = *call.plan;

  // 2. Data-level boundary: data sizes, checked narrowing, value ranges.
  struct Staged {
    const contract::Input* spec;
    const TensorArg* arg;
    std::vector<std::byte> narrowed;
  };
  std::vector<Staged> staged;
  staged.reserve(inputs.size());
  for (const auto& [name, arg] : inputs) {
    const contract::Input* spec = contract.find_input(name);
    // The planner refused unknown names; a plan from the cache was made for these same names.
    if (!spec) throw Error(ErrorKind::kInternal, "input '" + name + "' has no declaration, yet the call was planned");
    Staged st{spec, &arg, {}};
    const plan::ValueRange* range = nullptr;
    for (const auto& r : plan.value_ranges)
      if (r.input == spec->name) range = &r;
    if (const HostTensor* host = arg.host()) {
      plan::check_data_size(name, *host);
      if (spec->storage == DType::kUInt32) st.narrowed = narrow_to_u32(name, *host, range);
      else if (range) check_value_range(name, *host, *range);
    } else if (spec->storage == DType::kUInt32 && arg.dtype() != DType::kUInt32) {
      throw Error(ErrorKind::kInvalidArgument,
                  "input " + name + ": a device-resident " + std::string(dtype_name(arg.dtype())) +
                      " tensor cannot be narrowed on the device; upload it as uint32 or pass host data");
    } else if (tensor_buffer(*arg.device())->device.get() != k.device.get()) {
      throw Error(ErrorKind::kInvalidArgument, "input " + name + " lives on another device");
    } else if (const std::uint64_t pending = tensor_buffer(*arg.device())->pending_batch.load();
               pending != 0 && pending != batch) {
      throw Error(ErrorKind::kInvalidArgument, "input " + name + ": " + pending_reason(pending, batch));
    } else if (range && arg.device()->numel() > 0) {
      // A device-resident input with a valueRange (position ids): its extent is known from the upload, or
      // read back and remembered by the buffer when the view covers all of it.
      const DeviceTensor& tensor = *arg.device();
      DeviceBuffer& buffer = *tensor_buffer(tensor);
      std::optional<plan::ValueRange> known;
      {
        std::lock_guard range_lock(buffer.int_range_mutex);
        if (buffer.int_range && buffer.int_range_dtype == tensor.dtype()) known = buffer.int_range;
      }
      plan::check_device_value_range(
          name, *range, known, buffer.pending_batch.load() == 0, [&] { return tensor.read(); },
          [&](const std::optional<plan::ValueRange>& extent) {
            if (tensor_bytes(tensor.dtype(), tensor.shape()) != buffer.bytes) return;
            std::lock_guard range_lock(buffer.int_range_mutex);
            buffer.int_range = extent;
            buffer.int_range_dtype = tensor.dtype();
          });
    }
    staged.push_back(std::move(st));
  }

  // 3. The device from here on: pipelines and uniforms (once per plan), buffers, bind groups.
  DeviceState& device = state_of(*k.device);
  lock.lock();
  cache.release_evicted();
  std::vector<const gpu::ComputePipeline*> pipelines;
  for (std::size_t p = 0; p < plan.passes.size(); ++p) pipelines.push_back(&cache.pipeline(device.gpu, *call.programs[p]));

  // Tensor buffers by argument name (inputs and outputs); at most a handful, so a flat list.
  struct BoundBuffer {
    std::string_view name;
    const gpu::Buffer* buffer;
  };
  std::vector<BoundBuffer> buffers;
  for (const Staged& st : staged) {
    if (const DeviceTensor* dt = st.arg->device()) {
      buffers.push_back({st.spec->name, &tensor_buffer(*dt)->buffer});
      continue;
    }
    const HostTensor& host = *st.arg->host();
    std::span<const std::byte> bytes = st.narrowed.empty() ? std::span<const std::byte>(host.data) : st.narrowed;
    const std::uint64_t size = st.spec->storage == DType::kUInt32 ? host.numel() * 4 : host.data.size();
    call.inputs.push_back(make_buffer(k.device, size, bytes, st.spec->name));
    buffers.push_back({st.spec->name, &call.inputs.back()->buffer});
  }
  for (const auto& out : plan.outputs) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(numel(out.shape)) * dtype_size(out.dtype);
    auto buffer = make_buffer(k.device, bytes, {}, out.name);
    buffers.push_back({out.name, &buffer->buffer});
    call.outputs.emplace(out.name, detail::Access::make_tensor(out.dtype, out.shape, std::move(buffer)));
  }
  auto buffer_of = [&](const std::string& arg) -> const BoundBuffer& {
    for (const auto& b : buffers)
      if (b.name == arg) return b;
    throw Error(ErrorKind::kContract, "variant " + plan.variant->id + " binds " + arg + ", which this call does not have");
  };

  // Bind groups, cached by the programs and the identities of the buffers they bind. Each binds its
  // buffers' whole allocation (allocation_size: a size class), so a pooled buffer reused for a tensor of
  // another length in the same class keeps its bind groups (docs/kernel-conventions.md "Buffers").
  std::string group_key;
  std::vector<std::uint64_t> program_ids;
  std::vector<const void*> pinned;
  for (std::size_t p = 0; p < plan.passes.size(); ++p) {
    program_ids.push_back(call.programs[p]->id);
    group_key.append(reinterpret_cast<const char*>(&program_ids.back()), sizeof program_ids.back());
    for (const auto& b : plan.passes[p].bindings)
      if (b.binding->kind != contract::BindingKind::kUniform) {
        const BoundBuffer& bound = buffer_of(b.binding->arg);
        const void* id = bound.buffer->id();
        group_key.append(reinterpret_cast<const char*>(&id), sizeof id);
        pinned.push_back(id);
      }
  }
  // This call's uniform values: does `set` hold them already?
  auto uniforms_match = [&plan](const BindGroupSet& set) {
    std::size_t at = 0;
    bool same = true;
    for (const auto& pass : plan.passes)
      for (const auto& b : pass.bindings) {
        if (b.binding->kind != contract::BindingKind::kUniform) continue;
        same = same && at + b.uniform.size() <= set.written.size() &&
               std::memcmp(set.written.data() + at, b.uniform.data(), b.uniform.size()) == 0;
        at += b.uniform.size();
      }
    return same && at == set.written.size();
  };
  auto make_set = [&] {
    auto made = std::make_shared<BindGroupSet>();
    for (std::size_t p = 0; p < plan.passes.size(); ++p) {
      auto& uniforms = made->uniforms.emplace_back();
      for (const auto& b : plan.passes[p].bindings)
        if (b.binding->kind == contract::BindingKind::kUniform)
          uniforms.push_back(device.gpu.create_buffer(b.uniform.size(), gpu::BufferUsage::kUniform, b.binding->name));
      std::vector<gpu::BindGroupEntry> entries;
      std::size_t uniform = 0;
      for (const auto& b : plan.passes[p].bindings) {
        if (b.binding->kind == contract::BindingKind::kUniform) {
          entries.push_back({b.slot, &uniforms[uniform++], 0, gpu::kWholeSize});
        } else {
          const BoundBuffer& bound = buffer_of(b.binding->arg);
          entries.push_back({b.slot, bound.buffer, 0, gpu::kWholeSize});
        }
      }
      made->groups.push_back(device.gpu.create_bind_group(*pipelines[p], entries));
    }
    return made;
  };
  call.bind_groups = cache.find_bind_groups(group_key);
  if (!call.bind_groups) {
    call.bind_groups = make_set();
    cache.insert_bind_groups(std::move(group_key), call.bind_groups, program_ids, pinned);
  } else if (call.bind_groups->batch_claims > 0 && !uniforms_match(*call.bind_groups)) {
    // An unflushed batch's call uses this set with other uniform values, and its submit comes after any
    // write made now: this call gets its own set, not cached.
    call.bind_groups = make_set();
  }
  // This call's uniform values, written when they differ from what the set's buffers were last given.
  BindGroupSet& set = *call.bind_groups;
  if (!uniforms_match(set)) {
    set.written.clear();
    for (std::size_t p = 0; p < plan.passes.size(); ++p) {
      std::size_t uniform = 0;
      for (const auto& b : plan.passes[p].bindings) {
        if (b.binding->kind != contract::BindingKind::kUniform) continue;
        device.gpu.write(set.uniforms[p][uniform++], 0, b.uniform);
        set.written.insert(set.written.end(), b.uniform.begin(), b.uniform.end());
      }
    }
  }
  for (std::size_t p = 0; p < plan.passes.size(); ++p) {
    const auto& w = plan.passes[p].workgroups;
    if (w[0] == 0 || w[1] == 0 || w[2] == 0) continue;  // an empty tensor: nothing to run
    call.dispatches.push_back({pipelines[p], &call.bind_groups->groups[p], w[0], w[1], w[2]});
  }
  if (batch != 0) ++set.batch_claims;  // released by the batch (flush_batch, drop_batch)
  return call;
}

}  // namespace runtime

Outputs Kernel::call(const Inputs& inputs, const Attributes& attrs, const Attributes& tunables, CallInfo* info,
                     const OutputNames& outputs) const {
  std::unique_lock<std::mutex> lock(runtime::state_of(*state_->device).mutex, std::defer_lock);
  runtime::EncodedCall call = with_context([&] { return runtime::encode_call(*state_, inputs, attrs, tunables, lock, 0, outputs); },
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
