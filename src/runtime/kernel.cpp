// Device, DeviceTensor, Kernel and get_kernel: plan (contract::Planner), encode, submit.
#include <algorithm>
#include <cstring>
#include <thread>

#include "contract/contract.h"
#include "runtime/boundary.h"
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
  if (!options.adapter.empty()) {
    if (std::all_of(options.adapter.begin(), options.adapter.end(), [](char c) { return c >= '0' && c <= '9'; }))
      o.adapter_index = std::stoul(options.adapter);
    else
      o.adapter_name = options.adapter;
  }
  return o;
}

contract::DeviceCaps caps_of(const gpu::Device& device) {
  contract::DeviceCaps caps;
  for (const auto& [name, value] : device.limits())
    caps.limits.emplace_back(name, static_cast<std::int64_t>(std::min<std::uint64_t>(value, INT64_MAX)));
  caps.shader_f16 = device.features().shader_f16;
  caps.timestamp_query = device.features().timestamp_query;
  caps.subgroups = device.features().subgroups;
  return caps;
}

std::uint64_t padded(std::uint64_t bytes) { return std::max<std::uint64_t>(16, (bytes + 15) & ~std::uint64_t{15}); }

expr::Value to_value(const AttributeValue& v) {
  return std::visit([](const auto& x) { return expr::Value(x); }, v);
}

// A storage buffer holding `bytes` (zero-padded to 16). Caller holds the device mutex.
std::shared_ptr<DeviceBuffer> make_buffer(const std::shared_ptr<Device>& device, std::uint64_t bytes,
                                          std::span<const std::byte> data, std::string_view label) {
  auto& state = device->state();
  if (auto max = state.gpu.limit("maxStorageBufferBindingSize"); max && bytes > *max)
    throw Error(ErrorKind::kInvalidArgument, std::string(label) + ": " + std::to_string(bytes) +
                                                 " bytes exceed the adapter's maxStorageBufferBindingSize " +
                                                 std::to_string(*max));
  auto buffer = std::make_shared<DeviceBuffer>();
  buffer->device = device;
  buffer->bytes = bytes;
  buffer->buffer = state.take_buffer(padded(bytes), label);
  if (data.size() % 4 != 0) {  // WebGPU writes whole 4-byte words: pad the tail with zeros
    std::vector<std::byte> words((data.size() + 3) & ~std::size_t{3});
    std::memcpy(words.data(), data.data(), data.size());
    state.gpu.write(buffer->buffer, 0, words);
  } else if (!data.empty()) {
    state.gpu.write(buffer->buffer, 0, data);
  }
  return buffer;
}

}  // namespace

DeviceState::DeviceState(const gpu::DeviceOptions& options) : gpu(options), caps(caps_of(gpu)) {}

DeviceState::~DeviceState() = default;

gpu::Buffer DeviceState::take_buffer(std::uint64_t size, std::string_view label) {
  {
    std::lock_guard lock(pool_mutex_);
    to_release_.clear();  // under the device mutex (the caller's): Dawn releases stay on one thread
    auto it = pool_.find(size);
    if (it != pool_.end() && !it->second.empty()) {
      gpu::Buffer buffer = std::move(it->second.back());
      it->second.pop_back();
      pooled_bytes_ -= size;
      return buffer;
    }
  }
  return gpu.create_buffer(size, gpu::BufferUsage::kStorage, label);
}

void DeviceState::give_back(gpu::Buffer buffer) {
  std::lock_guard lock(pool_mutex_);
  if (pooled_bytes_ + buffer.size() > kMaxPooledBytes) {
    to_release_.push_back(std::move(buffer));
    return;
  }
  pooled_bytes_ += buffer.size();
  pool_[buffer.size()].push_back(std::move(buffer));
}

DeviceBuffer::~DeviceBuffer() {
  if (buffer && device) device->state().give_back(std::move(buffer));
}

std::shared_ptr<gpu::ComputePipeline> DeviceState::pipeline(const std::string& wgsl, const std::string& label) {
  auto it = pipelines.find(wgsl);
  if (it != pipelines.end()) return it->second;
  auto compiled = std::make_shared<gpu::ComputePipeline>(gpu.create_compute_pipeline(wgsl, label));
  ++pipelines_compiled;
  pipelines.emplace(wgsl, compiled);
  return compiled;
}

}  // namespace runtime

// ---- Device -------------------------------------------------------------------------------------

Device::Device(std::unique_ptr<runtime::DeviceState> state) : state_(std::move(state)) {}
Device::~Device() = default;

std::shared_ptr<Device> Device::create(const DeviceOptions& options) {
  return std::make_shared<Device>(std::make_unique<runtime::DeviceState>(runtime::to_gpu_options(options)));
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

// ---- DeviceTensor -------------------------------------------------------------------------------

DeviceTensor::DeviceTensor(DType dtype, Shape shape, std::shared_ptr<runtime::DeviceBuffer> buffer)
    : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {
  if (!buffer_) throw Error(ErrorKind::kInvalidArgument, "DeviceTensor: no buffer");
  std::uint64_t need = 0;
  try {
    need = tensor_bytes(dtype_, shape_);
  } catch (const Error& e) {
    throw Error(ErrorKind::kInvalidArgument, std::string("DeviceTensor: ") + e.what());
  }
  const std::uint64_t have = buffer_->bytes;
  if (need > have)
    throw Error(ErrorKind::kInvalidArgument, "DeviceTensor: " + std::string(dtype_name(dtype_)) + " " + shape_string(shape_) +
                                                 " needs " + std::to_string(need) + " bytes, its buffer holds " +
                                                 std::to_string(have));
}

DeviceTensor DeviceTensor::upload(const HostTensor& host, const std::shared_ptr<Device>& device) {
  runtime::check_data_size("upload", host);
  std::lock_guard lock(device->state().mutex);
  auto buffer = runtime::make_buffer(device, host.data.size(), host.data, "upload");
  buffer->int_range = runtime::int_range(host);  // range checks of this tensor then need no read-back
  return DeviceTensor(host.dtype, host.shape, std::move(buffer));
}

HostTensor DeviceTensor::read() const {
  if (!buffer_) throw Error(ErrorKind::kInvalidArgument, "reading an empty DeviceTensor");
  HostTensor host{dtype_, shape_, {}};
  host.data.resize(tensor_bytes(dtype_, shape_));  // a view may cover a prefix of its buffer
  if (host.data.empty()) return host;
  auto& state = buffer_->device->state();
  std::lock_guard lock(state.mutex);
  // Reads are whole 4-byte words: read the padded tail and keep the tensor's bytes.
  std::vector<std::byte> words((host.data.size() + 3) & ~std::size_t{3});
  state.gpu.read(buffer_->buffer, 0, words);
  std::memcpy(host.data.data(), words.data(), host.data.size());
  return host;
}

std::future<HostTensor> DeviceTensor::read_async() const {
  return std::async(std::launch::async, [copy = *this] { return copy.read(); });
}

// ---- Kernel -------------------------------------------------------------------------------------

namespace {

std::shared_ptr<runtime::KernelState> make_kernel_state(std::shared_ptr<const store::Package> package,
                                                        std::shared_ptr<Device> device) {
  auto state = std::make_shared<runtime::KernelState>();
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
  auto package_ref = state->package;
  state->planner = std::make_unique<contract::Planner>(
      state->contract, state->device->state().caps,
      [package_ref](const std::string& name) { return package_ref->webgpu_file(name); });
  return state;
}

}  // namespace

Kernel get_kernel(std::string_view id, const KernelRef& ref, std::shared_ptr<Device> device) {
  auto package = store::Store::default_store().load(id, store::PackageRef{ref.version, ref.revision, ref.content});
  return Kernel(make_kernel_state(std::move(package), std::move(device)));
}

Kernel load_kernel_directory(const std::string& folder, std::shared_ptr<Device> device) {
  return Kernel(make_kernel_state(store::load_package_directory(folder), std::move(device)));
}

const std::string& Kernel::id() const { return state_->package->id; }
int Kernel::version() const { return state_->package->version; }
const std::string& Kernel::commit() const { return state_->package->commit; }
const std::string& Kernel::content_id() const { return state_->package->content_id; }
const std::shared_ptr<Device>& Kernel::device() const { return state_->device; }

Outputs Kernel::operator()(const Inputs& inputs, const Attributes& attrs) const {
  return call(inputs, attrs, {}, nullptr);
}

namespace runtime {

EncodedCall encode_call(KernelState& k, const Inputs& inputs, const Attributes& attrs,
                        const Attributes& tunables, std::unique_lock<std::mutex>& lock) {
  const contract::Contract& contract = *k.contract;
  EncodedCall call;

  // 1. Signature-level boundary and plan (cached by signature).
  contract::CallSignature signature;
  for (const auto& [name, arg] : inputs) signature.inputs.emplace(name, contract::TensorSignature{arg.dtype(), arg.shape()});
  for (const auto& [name, value] : attrs) signature.attrs.emplace(name, to_value(value));
  for (const auto& [name, value] : tunables) signature.tunables.emplace(name, to_value(value));
  const std::size_t cached_before = k.planner->cache_size();
  call.plan = k.planner->plan(signature);
  call.plan_cached = k.planner->cache_size() == cached_before;
  const contract::Plan& plan = *call.plan;

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
    Staged st{spec, &arg, {}};
    const contract::ValueRange* range = nullptr;
    for (const auto& r : plan.value_ranges)
      if (r.input == spec->name) range = &r;
    if (const HostTensor* host = arg.host()) {
      check_data_size(name, *host);
      if (spec->storage == DType::kUInt32) st.narrowed = narrow_to_u32(name, *host, range);
      else if (range) check_value_range(name, *host, *range);
    } else if (!arg.device()->buffer()) {
      throw Error(ErrorKind::kInvalidArgument, "input " + name + ": an empty DeviceTensor (no buffer)");
    } else if (spec->storage == DType::kUInt32 && arg.dtype() != DType::kUInt32) {
      throw Error(ErrorKind::kInvalidArgument,
                  "input " + name + ": a device-resident " + std::string(dtype_name(arg.dtype())) +
                      " tensor cannot be narrowed on the device; upload it as uint32 or pass host data");
    } else if (arg.device()->buffer()->device.get() != k.device.get()) {
      throw Error(ErrorKind::kInvalidArgument, "input " + name + " lives on another device");
    } else if (range && arg.device()->numel() > 0) {
      // A device-resident input with a valueRange (position ids) is checked too: the kernels index caches
      // with it, and an unchecked row would give a silently wrong answer. Its [min, max] is known from the
      // upload (covering the whole buffer, so it bounds any view of the same dtype), or read back (a wait
      // for the GPU) and remembered by the buffer when the view covers all of it.
      const DeviceTensor& tensor = *arg.device();
      DeviceBuffer& buffer = *tensor.buffer();
      std::optional<IntRange> known;
      {
        std::lock_guard range_lock(buffer.int_range_mutex);
        if (buffer.int_range && buffer.int_range->dtype == tensor.dtype()) known = buffer.int_range;
      }
      std::optional<HostTensor> values;
      if (!known) {
        values = tensor.read();
        known = int_range(*values);
        if (tensor_bytes(tensor.dtype(), tensor.shape()) == buffer.bytes) {
          std::lock_guard range_lock(buffer.int_range_mutex);
          buffer.int_range = known;
        }
      }
      if (!known || known->min < range->min || known->max > range->max)
        check_value_range(name, values ? *values : tensor.read(), *range);  // names the first element out of range
    }
    staged.push_back(std::move(st));
  }

  // 3. The device from here on: pipelines and uniforms (once per plan), buffers, bind groups.
  DeviceState& device = k.device->state();
  lock.lock();
  {
    std::lock_guard plock(k.prepared_mutex);
    auto it = k.prepared.find(call.plan.get());
    if (it != k.prepared.end()) call.prepared = it->second.second;
  }
  if (!call.prepared) {
    auto prepared = std::make_shared<PreparedPlan>();
    for (const auto& pass : plan.passes) {
      prepared->pipelines.push_back(device.pipeline(
          pass.wgsl, contract.domain + "." + contract.name + "/" + plan.variant->id + "/" + pass.pass->id));
      auto& uniforms = prepared->uniforms.emplace_back();
      for (const auto& b : pass.bindings) {
        if (b.binding->kind != contract::BindingKind::kUniform) continue;
        uniforms.push_back(device.gpu.create_buffer(b.uniform.size(), gpu::BufferUsage::kUniform, b.binding->name));
        device.gpu.write(uniforms.back(), 0, b.uniform);
      }
    }
    std::lock_guard plock(k.prepared_mutex);
    if (k.prepared.size() > contract::Planner::kCacheCapacity) k.prepared.clear();
    k.prepared.emplace(call.plan.get(), std::make_pair(call.plan, prepared));
    call.prepared = std::move(prepared);
  }
  PreparedPlan& prepared = *call.prepared;

  // Tensor buffers by argument name (inputs and outputs); at most a handful, so a flat list.
  std::vector<std::pair<std::string_view, const gpu::Buffer*>> buffers;
  for (const Staged& st : staged) {
    if (const DeviceTensor* dt = st.arg->device()) {
      buffers.emplace_back(st.spec->name, &dt->buffer()->buffer);
      continue;
    }
    const HostTensor& host = *st.arg->host();
    std::span<const std::byte> bytes = st.narrowed.empty() ? std::span<const std::byte>(host.data) : st.narrowed;
    const std::uint64_t size = st.spec->storage == DType::kUInt32 ? host.numel() * 4 : host.data.size();
    call.inputs.push_back(make_buffer(k.device, size, bytes, st.spec->name));
    buffers.emplace_back(st.spec->name, &call.inputs.back()->buffer);
  }
  for (const auto& out : plan.outputs) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(numel(out.shape)) * dtype_size(out.dtype);
    auto buffer = make_buffer(k.device, bytes, {}, out.name);
    buffers.emplace_back(out.name, &buffer->buffer);
    call.outputs.emplace(out.name, DeviceTensor(out.dtype, out.shape, std::move(buffer)));
  }
  auto buffer_of = [&](const std::string& arg) -> const gpu::Buffer* {
    for (const auto& [name, b] : buffers)
      if (name == arg) return b;
    throw Error(ErrorKind::kContract, "variant " + plan.variant->id + " binds " + arg + ", which this call does not have");
  };

  // Bind groups, cached by the identities of the buffers they bind (pooled buffers recur).
  std::string key;
  for (const auto& pass : plan.passes)
    for (const auto& b : pass.bindings)
      if (b.binding->kind != contract::BindingKind::kUniform) {
        const void* id = buffer_of(b.binding->arg)->id();
        key.append(reinterpret_cast<const char*>(&id), sizeof id);
      }
  auto groups = prepared.bind_groups.find(key);
  if (groups == prepared.bind_groups.end()) {
    if (prepared.bind_groups.size() >= PreparedPlan::kMaxBindGroupSets) prepared.bind_groups.clear();
    std::vector<gpu::BindGroup> made;
    for (std::size_t p = 0; p < plan.passes.size(); ++p) {
      std::vector<gpu::BindGroupEntry> entries;
      std::size_t uniform = 0;
      for (const auto& b : plan.passes[p].bindings) {
        const gpu::Buffer* buffer = b.binding->kind == contract::BindingKind::kUniform
                                        ? &prepared.uniforms[p][uniform++]
                                        : buffer_of(b.binding->arg);
        entries.push_back({b.slot, buffer, 0, gpu::kWholeSize});
      }
      made.push_back(device.gpu.create_bind_group(*prepared.pipelines[p], entries));
    }
    groups = prepared.bind_groups.emplace(std::move(key), std::move(made)).first;
  }
  for (std::size_t p = 0; p < plan.passes.size(); ++p) {
    const auto& w = plan.passes[p].workgroups;
    if (w[0] == 0 || w[1] == 0 || w[2] == 0) continue;  // an empty tensor: nothing to run
    call.dispatches.push_back({prepared.pipelines[p].get(), &groups->second[p], w[0], w[1], w[2]});
  }
  return call;
}

}  // namespace runtime

Outputs Kernel::call(const Inputs& inputs, const Attributes& attrs, const Attributes& tunables, CallInfo* info) const {
  std::unique_lock<std::mutex> lock(state_->device->state().mutex, std::defer_lock);
  runtime::EncodedCall call = runtime::encode_call(*state_, inputs, attrs, tunables, lock);
  if (info) {
    info->variant = call.plan->variant->id;
    info->plan_cached = call.plan_cached;
  }
  // Pipelines and bind groups were validated when made; the submit itself skips the error scope.
  if (!call.dispatches.empty()) state_->device->state().gpu.submit(call.dispatches, nullptr, /*validate=*/false);
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
