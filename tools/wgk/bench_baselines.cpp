// Copy and empty-dispatch baselines (see bench_baselines.h).
#include "bench_baselines.h"

#include <algorithm>
#include <chrono>
#include <vector>
#include <mutex>

#include "runtime/state.h"  // the types behind introspect::state
#include "runtime/timing.h"
#include "wgk/introspect.h"
#include "wgk/error.h"

namespace wgk::cli {
namespace {

// Each invocation copies one vec4<u32> (16 bytes); a 2D grid keeps x under 65535 workgroups.
constexpr const char* kCopyWgsl = R"(
@group(0) @binding(0) var<storage, read> src : array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst : array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>, @builtin(num_workgroups) groups : vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i < arrayLength(&dst)) {
    dst[i] = src[i];
  }
}
)";

// Never writes (one invocation, gid.x == 0); the binding keeps the auto layout non-empty.
constexpr const char* kEmptyWgsl = R"(
@group(0) @binding(0) var<storage, read_write> sink : array<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  if (gid.x > 1u) {
    sink[0] = gid.x;
  }
}
)";

// A vec4 copy of `bytes` between two new storage buffers, ready to dispatch. Caller holds the device mutex.
struct Copy {
  gpu::Buffer src, dst;
  std::shared_ptr<runtime::Program> program;  // cached by the device (runtime/cache.h)
  gpu::BindGroup group;
  gpu::Dispatch dispatch;
};
std::unique_ptr<Copy> make_copy(runtime::DeviceState& state, std::uint64_t bytes) {
  auto c = std::make_unique<Copy>();
  c->src = state.gpu.create_buffer(bytes, gpu::BufferUsage::kStorage, "copy src");
  c->dst = state.gpu.create_buffer(bytes, gpu::BufferUsage::kStorage, "copy dst");
  c->program = state.cache.program("bench/", "copy_vec4", "bench/copy_vec4", [] { return std::string(kCopyWgsl); });
  const gpu::ComputePipeline& pipeline = state.cache.pipeline(state.gpu, *c->program);
  const gpu::BindGroupEntry entries[] = {{0, &c->src, 0, gpu::kWholeSize}, {1, &c->dst, 0, gpu::kWholeSize}};
  c->group = state.gpu.create_bind_group(pipeline, entries);
  const std::uint64_t groups = (bytes / 16 + 255) / 256;
  const std::uint64_t x = std::min<std::uint64_t>(groups, 32768);
  const std::uint64_t y = (groups + x - 1) / x;
  c->dispatch = {&pipeline, &c->group, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 1};
  return c;
}

introspect::Timing time_one(gpu::Device& gpu, const gpu::Dispatch& d, int warmup, int iterations) {
  if (warmup > 0) runtime::time_dispatches(gpu, std::span(&d, 1), warmup);
  return runtime::time_dispatches(gpu, std::span(&d, 1), iterations);
}

}  // namespace

introspect::Timing time_copy(const std::shared_ptr<Device>& device, std::uint64_t bytes, int warmup, int iterations) {
  if (bytes == 0 || bytes % 16 != 0)
    throw Error(ErrorKind::kInvalidArgument, "copy baseline: " + std::to_string(bytes) + " bytes is not a positive multiple of 16");
  auto& state = introspect::state(*device);
  std::lock_guard lock(state.mutex);
  const auto copy = make_copy(state, bytes);
  return time_one(state.gpu, copy->dispatch, warmup, iterations);
}

double time_copy_one_pass(const std::shared_ptr<Device>& device, std::uint64_t bytes, int warmup, int repeats) {
  if (bytes == 0 || bytes % 16 != 0)
    throw Error(ErrorKind::kInvalidArgument, "copy baseline: " + std::to_string(bytes) + " bytes is not a positive multiple of 16");
  auto& state = introspect::state(*device);
  std::lock_guard lock(state.mutex);
  const auto copy = make_copy(state, bytes);
  if (warmup > 0) runtime::time_dispatches(state.gpu, std::span(&copy->dispatch, 1), warmup);
  return runtime::time_one_pass(state.gpu, std::span(&copy->dispatch, 1), repeats);
}

introspect::Timing time_empty_dispatch(const std::shared_ptr<Device>& device, int warmup, int iterations) {
  auto& state = introspect::state(*device);
  std::lock_guard lock(state.mutex);
  auto& gpu = state.gpu;
  gpu::Buffer sink = gpu.create_buffer(16, gpu::BufferUsage::kStorage, "empty sink");
  auto program = state.cache.program("bench/", "empty", "bench/empty", [] { return std::string(kEmptyWgsl); });
  const gpu::ComputePipeline& pipeline = state.cache.pipeline(gpu, *program);
  const gpu::BindGroupEntry entries[] = {{0, &sink, 0, gpu::kWholeSize}};
  gpu::BindGroup group = gpu.create_bind_group(pipeline, entries);
  return time_one(gpu, {&pipeline, &group, 1, 1, 1}, warmup, iterations);
}

void spin_up(const std::shared_ptr<Device>& device, int ms) {
  using Clock = std::chrono::steady_clock;
  const auto until = Clock::now() + std::chrono::milliseconds(ms);
  auto& state = introspect::state(*device);
  std::lock_guard lock(state.mutex);
  // Back-to-back copies of 64 MiB, batches growing until one takes 20 ms, so the queue never runs dry
  // long enough for the GPU to count as idle (the H200 under Vulkan otherwise stays at 345-540 MHz).
  const auto copy = make_copy(state, std::uint64_t{64} << 20);
  std::vector<gpu::Dispatch> batch(4, copy->dispatch);
  while (Clock::now() < until) {
    const auto start = Clock::now();
    state.gpu.submit(batch, nullptr, false);
    state.gpu.submit(batch, nullptr, false);
    state.gpu.wait();
    if (Clock::now() - start < std::chrono::milliseconds(20) && batch.size() < 4096)
      batch.resize(batch.size() * 2, copy->dispatch);
  }
}

void wait_idle(const std::shared_ptr<Device>& device) {
  auto& state = introspect::state(*device);
  std::lock_guard lock(state.mutex);
  state.gpu.wait();
}

double reported_ns(const introspect::Timing& timing) {
  const double median = static_cast<double>(timing.median_ns());
  if (median > 0 && static_cast<double>(timing.resolution_ns) * 100 <= median) return median;
  return timing.span_mean_ns;
}

}  // namespace wgk::cli
