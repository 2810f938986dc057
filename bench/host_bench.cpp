// Host cost of one kernel call at decode sizes, inputs already on the device (Google Benchmark).
//
// BM_Call: Kernel::call as an application makes it (boundary checks, plan-cache hit, output allocation,
// bind group, encode, submit; no read-back). BM_Record: Batch::record alone (encode_call: boundary, plan
// lookup, output allocation, bind groups), the flush every 64 calls outside timing: our own host cost,
// without Dawn's encode and submit. BM_BatchedCall: the same with the flush timed (64 calls per flush,
// each call carrying 1/64 of the submit). The rest split the parts: BM_Plan (planning a signature, the
// plan-cache miss), BM_OutputBuffer (one storage buffer from Dawn), BM_BindGroup, BM_Submit (encode +
// submit of one prepared small copy dispatch, the gpu::Device floor). BM_Flush: only the submit of 64
// recorded calls' dispatches (Dawn's cost of a flush, without ours; fused calls share dispatches: per_call is
// the submit's CPU time over the 64 calls); BM_FlushCopy/bindings:2|6: the same for
// a trivial kernel with 2 or 6 bindings (Dawn's per-dispatch cost against bind-group size; groups:1 one bind
// group for all). BM_FlushFused/calls:K: 64 decode-like calls as 64 / K dispatches, K calls each (what fusing
// calls would save). The GPU is
// drained every 1024 calls (outside timing) so queued work does not pile up.
//
// Counter allocs_per_call: heap allocations (operator new) made by the benchmark's thread per iteration,
// timed part only (Dawn's own allocations on that thread included; lavapipe's threads not).
//
// Cases: RoPE decode_r4_b1_h32x128 of ai.onnx.RotaryEmbedding's bench.json (x [1, 32, 1, 128], cos/sin
// [4096, 64], one position) and com.microsoft's; RMSNormalization decode_1x4096_f32 (x [1, 4096], scale [4096]);
// SkipSimplifiedLayerNormalization decode_1x4096_f32 (x and skip [1, 4096], gamma [4096], no bias, y only).
// onnx_f32_interleaved (BM_BatchedCall only): the ai.onnx case with interleaved=1, which runs the vec4 variant.
//
// run: build-*/bench/bench_host  (XDG_RUNTIME_DIR=/tmp; WGK_ADAPTER picks the adapter; WGK_DAWN_ENABLE_TOGGLES=
// skip_validation measures Dawn without its validation, docs/platform.md)
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/state.h"  // the types behind introspect::state
#include "wgk/introspect.h"
#include "wgk/kernel.h"

// Heap allocations of threads that count (the benchmark's thread while timed): a replaced global
// operator new. Only the allocating forms are replaced; every delete form stays the library's, which
// frees what malloc returned.
namespace {
thread_local bool counting = false;
thread_local std::uint64_t allocations = 0;
}  // namespace

void* operator new(std::size_t n) {
  if (counting) ++allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (counting) ++allocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept { return operator new(n, t); }
// GCC's -Wmismatched-new-delete sees free() of what the (replaced) operator new returned: malloc's.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace {

// Counts this thread's allocations while alive; st.counters[name] on destruction: per iteration, divided by
// `per` (the dispatches of one iteration, for the flush benchmarks).
struct AllocationCounter {
  benchmark::State& st;
  std::uint64_t start;
  const char* name;
  double per;
  explicit AllocationCounter(benchmark::State& s, const char* counter = "allocs_per_call", double per_iteration = 1)
      : st(s), start(allocations), name(counter), per(per_iteration) {
    counting = true;
  }
  void pause() { counting = false; }
  void resume() { counting = true; }
  ~AllocationCounter() {
    counting = false;
    st.counters[name] = st.iterations() ? static_cast<double>(allocations - start) /
                                              (static_cast<double>(st.iterations()) * per)
                                        : 0.0;
  }
};

struct Decode {
  wgk::Kernel kernel;
  wgk::Inputs inputs;
  wgk::Attributes attrs;
};

constexpr const char* kOnnxRope = "webgpu-kernels/ai.onnx.RotaryEmbedding";
constexpr const char* kMsRope = "webgpu-kernels/com.microsoft.RotaryEmbedding";
constexpr const char* kRmsNorm = "webgpu-kernels/ai.onnx.RMSNormalization";
constexpr const char* kSkipNorm = "webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization";

// The decode case of `id` (see the file comment), inputs uploaded (zeros; position 7); RoPE's attribute
// `interleaved` as given.
Decode& decode(const std::string& id, wgk::DType dtype, std::int64_t interleaved = 0) {
  static std::map<std::tuple<std::string, int, std::int64_t>, Decode> cache;
  auto key = std::make_tuple(id, static_cast<int>(dtype), interleaved);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto device = wgk::Device::default_device();
  auto host = [&](wgk::Shape shape) {
    wgk::HostTensor t{dtype, shape, {}};
    t.data.resize(static_cast<std::size_t>(wgk::numel(shape)) * wgk::dtype_size(dtype));
    return wgk::DeviceTensor::upload(t, device);
  };
  wgk::Inputs inputs;
  if (id == kRmsNorm) {
    inputs.emplace("x", host({1, 4096}));
    inputs.emplace("scale", host({4096}));
  } else if (id == kSkipNorm) {
    inputs.emplace("x", host({1, 4096}));
    inputs.emplace("skip", host({1, 4096}));
    inputs.emplace("gamma", host({4096}));
  } else {
    inputs.emplace("x", host({1, 32, 1, 128}));
    inputs.emplace("cos", host({4096, 64}));
    inputs.emplace("sin", host({4096, 64}));
    inputs.emplace("positionIds", wgk::DeviceTensor::upload(
                                      wgk::HostTensor::from(wgk::DType::kUInt32, {1, 1}, std::vector<std::uint32_t>{7}), device));
  }
  wgk::Attributes attrs;
  if (interleaved != 0) attrs.emplace("interleaved", interleaved);
  return cache.emplace(key, Decode{wgk::get_kernel(id, {.version = 1}, device), std::move(inputs), std::move(attrs)})
      .first->second;
}

void drain(wgk::runtime::DeviceState& state) {
  std::lock_guard lock(state.mutex);
  state.gpu.wait();
}

void BM_Call(benchmark::State& st, std::string id, wgk::DType dtype) {
  Decode& d = decode(id, dtype);
  auto& dev = wgk::introspect::state(*d.kernel.device());
  d.kernel.call(d.inputs, d.attrs, {}, nullptr);  // plan, compile: not timed
  drain(dev);
  std::int64_t n = 0;
  AllocationCounter allocs(st);
  for (auto _ : st) {
    benchmark::DoNotOptimize(d.kernel.call(d.inputs, d.attrs, {}, nullptr));
    if (++n % 1024 == 0) {
      st.PauseTiming();
      allocs.pause();
      drain(dev);
      allocs.resume();
      st.ResumeTiming();
    }
  }
  drain(dev);
}
BENCHMARK_CAPTURE(BM_Call, onnx_f32, kOnnxRope, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, onnx_f16, kOnnxRope, wgk::DType::kFloat16)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, ms_f32, kMsRope, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, rmsnorm_f32, kRmsNorm, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Call, skipnorm_f32, kSkipNorm, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);

constexpr std::int64_t kCallsPerSubmit = 64;

// Batch::record of the call, flushed every 64 calls, the GPU drained every 1024 calls (never timed).
// `flush_timed` false (BM_Record): the flush, and its release of the 64 calls' references, outside timing:
// time per iteration = our host time per recorded call. true (BM_BatchedCall): the flush (one submit) is
// timed, each call carrying 1/64 of it: host time per call of a batched call.
void run_batched(benchmark::State& st, const std::string& id, wgk::DType dtype, bool flush_timed,
                 std::int64_t interleaved = 0) {
  Decode& d = decode(id, dtype, interleaved);
  auto& dev = wgk::introspect::state(*d.kernel.device());
  d.kernel.call(d.inputs, d.attrs, {}, nullptr);  // plan, compile: not timed
  drain(dev);
  wgk::Batch batch(d.kernel.device());
  std::int64_t n = 0;
  double dispatches = 0;  // summed over the flushes
  AllocationCounter allocs(st);
  for (auto _ : st) {
    benchmark::DoNotOptimize(batch.record(d.kernel, d.inputs, d.attrs));
    ++n;
    if (n % kCallsPerSubmit == 0) dispatches += static_cast<double>(batch.dispatches());
    if (flush_timed && n % kCallsPerSubmit == 0) batch.flush();
    if ((!flush_timed && n % kCallsPerSubmit == 0) || n % 1024 == 0) {
      st.PauseTiming();
      allocs.pause();
      if (!flush_timed) batch.flush();
      if (n % 1024 == 0) drain(dev);
      allocs.resume();
      st.ResumeTiming();
    }
  }
  allocs.pause();
  batch.flush();
  drain(dev);
  st.counters["calls_per_submit"] = static_cast<double>(kCallsPerSubmit);
  // Dispatches per submit (64 when no call fuses; 64 / K when K calls share each dispatch).
  if (n >= kCallsPerSubmit) st.counters["dispatches_per_submit"] = dispatches / static_cast<double>(n / kCallsPerSubmit);
}
void BM_Record(benchmark::State& st, std::string id, wgk::DType dtype) { run_batched(st, id, dtype, false); }
void BM_BatchedCall(benchmark::State& st, std::string id, wgk::DType dtype, std::int64_t interleaved = 0) {
  run_batched(st, id, dtype, true, interleaved);
}
BENCHMARK_CAPTURE(BM_Record, onnx_f32, kOnnxRope, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Record, onnx_f16, kOnnxRope, wgk::DType::kFloat16)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Record, ms_f32, kMsRope, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Record, rmsnorm_f32, kRmsNorm, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Record, skipnorm_f32, kSkipNorm, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BatchedCall, onnx_f32, kOnnxRope, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BatchedCall, onnx_f16, kOnnxRope, wgk::DType::kFloat16)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BatchedCall, ms_f32, kMsRope, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BatchedCall, rmsnorm_f32, kRmsNorm, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BatchedCall, skipnorm_f32, kSkipNorm, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BatchedCall, onnx_f32_interleaved, kOnnxRope, wgk::DType::kFloat32, std::int64_t{1})
    ->Unit(benchmark::kMicrosecond);

// One validated submit of `dispatches` in one compute pass, exactly as flush_batch makes it (gpu::Layout::
// kOnePass, validate true), timed per iteration; the GPU drained every 16 submits (not timed). Counters:
// per_dispatch (CPU time of the thread over the dispatches submitted), allocs_per_dispatch.
void time_submits(benchmark::State& st, wgk::runtime::DeviceState& dev,
                  const std::vector<wgk::gpu::Dispatch>& dispatches) {
  const auto per_submit = static_cast<double>(dispatches.size());
  std::int64_t n = 0;
  {
    AllocationCounter allocs(st, "allocs_per_dispatch", per_submit);
    for (auto _ : st) {
      std::lock_guard lock(dev.mutex);
      dev.gpu.submit(dispatches, nullptr, /*validate=*/true, wgk::gpu::Layout::kOnePass);
      if (++n % 16 == 0) {
        st.PauseTiming();
        allocs.pause();
        dev.gpu.wait();
        allocs.resume();
        st.ResumeTiming();
      }
    }
  }
  drain(dev);
  st.counters["dispatches_per_submit"] = per_submit;
  // The inverse of a rate: CPU seconds per dispatch (printed with an SI prefix: "1.2us").
  st.counters["per_dispatch"] =
      benchmark::Counter(per_submit, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Dawn's own cost of a flush: 64 calls of the BM_BatchedCall case recorded into a Batch once (not timed),
// then only the submit of exactly those dispatches (their pipelines and bind groups, which the batch keeps
// alive) repeated: no encode_call, no release of the calls. The batch is flushed once at the end.
void BM_Flush(benchmark::State& st, std::string id, wgk::DType dtype) {
  Decode& d = decode(id, dtype);
  auto& dev = wgk::introspect::state(*d.kernel.device());
  d.kernel.call(d.inputs, d.attrs, {}, nullptr);  // plan, compile: not timed
  drain(dev);
  wgk::Batch batch(d.kernel.device());
  for (std::int64_t i = 0; i < kCallsPerSubmit; ++i) batch.record(d.kernel, d.inputs, d.attrs);
  {
    std::lock_guard lock(dev.mutex);  // the last dispatch of fused calls gets its pipeline and bind group
    wgk::runtime::close_open_dispatch(wgk::runtime::state_of_batch(batch), dev);
  }
  const std::vector<wgk::gpu::Dispatch> dispatches = wgk::runtime::state_of_batch(batch).dispatches;
  time_submits(st, dev, dispatches);
  st.counters["per_call"] = benchmark::Counter(static_cast<double>(kCallsPerSubmit),
                                               benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  batch.flush();
  drain(dev);
}
BENCHMARK_CAPTURE(BM_Flush, onnx_f32, kOnnxRope, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Flush, onnx_f16, kOnnxRope, wgk::DType::kFloat16)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Flush, ms_f32, kMsRope, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Flush, rmsnorm_f32, kRmsNorm, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Flush, skipnorm_f32, kSkipNorm, wgk::DType::kFloat32)->Unit(benchmark::kMicrosecond);

// How Dawn's per-dispatch cost grows with a bind group's entries: 64 dispatches of a trivial kernel with
// `bindings` (2 or 6) entries, as the decode kernels' calls are laid out: read-only storage inputs shared by
// every call (1, or 4 like x, cos, sin, position_ids), for 6 a uniform per call (params), and the output
// per call, so every dispatch has its own bind group. 16 workgroups of 256 over 4096 u32. groups:1: one
// bind group for all 64 (submit then sets it once: Dawn's cost of SetBindGroup against that of a dispatch).
void BM_FlushCopy(benchmark::State& st) {
  const auto bindings = static_cast<int>(st.range(0));
  const auto group_count = static_cast<std::size_t>(st.range(1));
  auto& dev = wgk::introspect::state(*wgk::Device::default_device());
  const int inputs = bindings == 2 ? 1 : bindings - 2;
  const bool uniform = bindings > 2;
  std::string wgsl;
  for (int i = 0; i < inputs; ++i)
    wgsl += "@group(0) @binding(" + std::to_string(i) + ") var<storage, read> in" + std::to_string(i) +
            " : array<u32>;\n";
  if (uniform) wgsl += "struct Params { k : u32, pad0 : u32, pad1 : u32, pad2 : u32 }\n@group(0) @binding(" +
                       std::to_string(inputs) + ") var<uniform> params : Params;\n";
  wgsl += "@group(0) @binding(" + std::to_string(bindings - 1) + ") var<storage, read_write> y : array<u32>;\n"
          "@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) gid : vec3<u32>) {\n"
          "  let i = gid.x;\n  if (i >= arrayLength(&y)) { return; }\n  var v = 0u;\n";
  for (int i = 0; i < inputs; ++i) wgsl += "  v += in" + std::to_string(i) + "[i];\n";
  if (uniform) wgsl += "  v += params.k;\n";
  wgsl += "  y[i] = v;\n}\n";
  constexpr std::uint64_t kBytes = 4096 * 4;
  struct Objects {
    wgk::gpu::ComputePipeline pipeline;
    std::vector<wgk::gpu::Buffer> shared, outputs, params;
    std::vector<wgk::gpu::BindGroup> groups;
  };
  auto objects = std::make_unique<Objects>();  // created and destroyed under the device mutex
  std::vector<wgk::gpu::Dispatch> dispatches;
  {
    std::lock_guard lock(dev.mutex);
    Objects& o = *objects;
    o.pipeline = dev.gpu.create_compute_pipeline(wgsl, "host_bench/flush_copy");
    for (int i = 0; i < inputs; ++i)
      o.shared.push_back(dev.gpu.create_buffer(kBytes, wgk::gpu::BufferUsage::kStorage, "in"));
    for (std::int64_t c = 0; c < kCallsPerSubmit; ++c) {
      o.outputs.push_back(dev.gpu.create_buffer(kBytes, wgk::gpu::BufferUsage::kStorage, "y"));
      if (uniform) o.params.push_back(dev.gpu.create_buffer(16, wgk::gpu::BufferUsage::kUniform, "params"));
    }
    for (std::int64_t c = 0; c < kCallsPerSubmit; ++c) {
      std::vector<wgk::gpu::BindGroupEntry> entries;
      for (int i = 0; i < inputs; ++i) entries.push_back({static_cast<std::uint32_t>(i), &o.shared[i]});
      if (uniform) entries.push_back({static_cast<std::uint32_t>(inputs), &o.params[c]});
      entries.push_back({static_cast<std::uint32_t>(bindings - 1), &o.outputs[c]});
      o.groups.push_back(dev.gpu.create_bind_group(o.pipeline, entries));
    }
    for (std::size_t c = 0; c < o.groups.size(); ++c)
      dispatches.push_back({&o.pipeline, &o.groups[group_count == 1 ? 0 : c], 16, 1, 1});
  }
  time_submits(st, dev, dispatches);
  std::lock_guard lock(dev.mutex);
  objects.reset();
}
BENCHMARK(BM_FlushCopy)
    ->Args({2, 64})
    ->Args({6, 64})
    ->Args({6, 1})
    ->ArgNames({"bindings", "groups"})
    ->Unit(benchmark::kMicrosecond);

// What fusing decode calls would save on the host (a measurement for the batch's design, no runtime change):
// 64 RoPE-like calls (x and y per call; cos, sin and position_ids shared, read-only; a uniform per dispatch)
// submitted as ceil(64 / K) dispatches of a trivial kernel that serves K calls, one per row of workgroups
// (workgroup_id.y selects the call's x and y). calls:1 is today's layout (one dispatch and bind group per
// call); calls:3 needs 9 storage buffers a stage (the H200 offers 10). Counter per_call: CPU time of the
// submit over 64.
void BM_FlushFused(benchmark::State& st) {
  const auto k_calls = static_cast<int>(st.range(0));
  auto& dev = wgk::introspect::state(*wgk::Device::default_device());
  std::string wgsl;
  const char* shared[] = {"cos", "sin", "pos"};
  for (int i = 0; i < 3; ++i)
    wgsl += "@group(0) @binding(" + std::to_string(i) + ") var<storage, read> " + shared[i] + " : array<u32>;\n";
  wgsl += "struct Params { k : u32, pad0 : u32, pad1 : u32, pad2 : u32 }\n"
          "@group(0) @binding(3) var<uniform> params : Params;\n";
  for (int c = 0; c < k_calls; ++c)
    wgsl += "@group(0) @binding(" + std::to_string(4 + 2 * c) + ") var<storage, read> x" + std::to_string(c) +
            " : array<u32>;\n@group(0) @binding(" + std::to_string(5 + 2 * c) +
            ") var<storage, read_write> y" + std::to_string(c) + " : array<u32>;\n";
  wgsl += "@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) gid : vec3<u32>) {\n"
          "  let i = gid.x;\n  if (i >= arrayLength(&y0)) { return; }\n"
          "  let v = cos[i] + sin[i] + pos[0] + params.k;\n";
  for (int c = 0; c < k_calls; ++c)
    wgsl += "  if (gid.y == " + std::to_string(c) + "u) { y" + std::to_string(c) + "[i] = x" + std::to_string(c) +
            "[i] + v; }\n";
  wgsl += "}\n";
  constexpr std::uint64_t kBytes = 4096 * 4;  // x [1, 32, 1, 128] f32
  const std::int64_t dispatch_count = (kCallsPerSubmit + k_calls - 1) / k_calls;
  struct Objects {
    wgk::gpu::ComputePipeline pipeline;
    std::vector<wgk::gpu::Buffer> shared, xs, ys, params;
    std::vector<wgk::gpu::BindGroup> groups;
  };
  auto objects = std::make_unique<Objects>();  // created and destroyed under the device mutex
  std::vector<wgk::gpu::Dispatch> dispatches;
  {
    std::lock_guard lock(dev.mutex);
    Objects& o = *objects;
    o.pipeline = dev.gpu.create_compute_pipeline(wgsl, "host_bench/flush_fused");
    for (int i = 0; i < 3; ++i) o.shared.push_back(dev.gpu.create_buffer(kBytes, wgk::gpu::BufferUsage::kStorage, "in"));
    for (std::int64_t c = 0; c < dispatch_count * k_calls; ++c) {
      o.xs.push_back(dev.gpu.create_buffer(kBytes, wgk::gpu::BufferUsage::kStorage, "x"));
      o.ys.push_back(dev.gpu.create_buffer(kBytes, wgk::gpu::BufferUsage::kStorage, "y"));
    }
    for (std::int64_t d = 0; d < dispatch_count; ++d) {
      o.params.push_back(dev.gpu.create_buffer(16, wgk::gpu::BufferUsage::kUniform, "params"));
      std::vector<wgk::gpu::BindGroupEntry> entries;
      for (int i = 0; i < 3; ++i) entries.push_back({static_cast<std::uint32_t>(i), &o.shared[i]});
      entries.push_back({3, &o.params.back()});
      for (int c = 0; c < k_calls; ++c) {
        entries.push_back({static_cast<std::uint32_t>(4 + 2 * c), &o.xs[d * k_calls + c]});
        entries.push_back({static_cast<std::uint32_t>(5 + 2 * c), &o.ys[d * k_calls + c]});
      }
      o.groups.push_back(dev.gpu.create_bind_group(o.pipeline, entries));
    }
    for (std::size_t d = 0; d < o.groups.size(); ++d)
      dispatches.push_back({&o.pipeline, &o.groups[d], 16, static_cast<std::uint32_t>(k_calls), 1});
  }
  time_submits(st, dev, dispatches);
  st.counters["per_call"] = benchmark::Counter(static_cast<double>(kCallsPerSubmit),
                                               benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  std::lock_guard lock(dev.mutex);
  objects.reset();
}
BENCHMARK(BM_FlushFused)->Arg(1)->Arg(2)->Arg(3)->ArgNames({"calls"})->Unit(benchmark::kMicrosecond);

void BM_Plan(benchmark::State& st) {
  Decode& d = decode(kOnnxRope, wgk::DType::kFloat32);
  d.kernel.call(d.inputs, d.attrs, {}, nullptr);
  for (auto _ : st) {
    wgk::plan::CallSignature sig;
    for (const auto& [name, arg] : d.inputs) sig.inputs.emplace(name, wgk::plan::TensorSignature{arg.dtype(), arg.shape()});
    benchmark::DoNotOptimize(wgk::introspect::state(d.kernel).planner->plan(sig));
  }
}
BENCHMARK(BM_Plan)->Unit(benchmark::kMicrosecond);

void BM_OutputBuffer(benchmark::State& st) {
  auto& dev = wgk::introspect::state(*wgk::Device::default_device());
  std::int64_t n = 0;
  for (auto _ : st) {
    std::lock_guard lock(dev.mutex);
    benchmark::DoNotOptimize(dev.gpu.create_buffer(32 * 128 * 4, wgk::gpu::BufferUsage::kStorage, "y"));
    if (++n % 1024 == 0) dev.gpu.wait();
  }
}
BENCHMARK(BM_OutputBuffer)->Unit(benchmark::kMicrosecond);

struct Prepared {
  std::shared_ptr<wgk::gpu::ComputePipeline> pipeline;
  wgk::gpu::Buffer a, b;
};

Prepared& copy_kernel() {
  static Prepared p = [] {
    auto& dev = wgk::introspect::state(*wgk::Device::default_device());
    std::lock_guard lock(dev.mutex);
    Prepared p;
    p.pipeline = std::make_shared<wgk::gpu::ComputePipeline>(dev.gpu.create_compute_pipeline(R"(
@group(0) @binding(0) var<storage, read> src : array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst : array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  if (gid.x < arrayLength(&dst)) { dst[gid.x] = src[gid.x]; }
}
)", "host_bench/copy"));
    p.a = dev.gpu.create_buffer(32 * 128 * 4, wgk::gpu::BufferUsage::kStorage, "a");
    p.b = dev.gpu.create_buffer(32 * 128 * 4, wgk::gpu::BufferUsage::kStorage, "b");
    return p;
  }();
  return p;
}

void BM_BindGroup(benchmark::State& st) {
  auto& dev = wgk::introspect::state(*wgk::Device::default_device());
  Prepared& p = copy_kernel();
  const wgk::gpu::BindGroupEntry entries[] = {{0, &p.a, 0, wgk::gpu::kWholeSize}, {1, &p.b, 0, wgk::gpu::kWholeSize}};
  for (auto _ : st) {
    std::lock_guard lock(dev.mutex);
    benchmark::DoNotOptimize(dev.gpu.create_bind_group(*p.pipeline, entries));
  }
}
BENCHMARK(BM_BindGroup)->Unit(benchmark::kMicrosecond);

void BM_Submit(benchmark::State& st) {
  auto& dev = wgk::introspect::state(*wgk::Device::default_device());
  Prepared& p = copy_kernel();
  const wgk::gpu::BindGroupEntry entries[] = {{0, &p.a, 0, wgk::gpu::kWholeSize}, {1, &p.b, 0, wgk::gpu::kWholeSize}};
  wgk::gpu::BindGroup group;
  {
    std::lock_guard lock(dev.mutex);
    group = dev.gpu.create_bind_group(*p.pipeline, entries);
  }
  const wgk::gpu::Dispatch d{p.pipeline.get(), &group, 4, 1, 1};
  std::int64_t n = 0;
  for (auto _ : st) {
    std::lock_guard lock(dev.mutex);
    dev.gpu.submit(std::span(&d, 1));
    if (++n % 1024 == 0) {
      st.PauseTiming();
      dev.gpu.wait();
      st.ResumeTiming();
    }
  }
  std::lock_guard lock(dev.mutex);
  dev.gpu.wait();
}
BENCHMARK(BM_Submit)->Unit(benchmark::kMicrosecond);

}  // namespace

// The header names the adapter and the Dawn toggles enabled on it (WGK_DAWN_ENABLE_TOGGLES shows there). A
// wgk::Error (no adapter, a refused device or toggle list, a failed call) ends the run with its message, exit 1.
int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  try {
    const auto& gpu = wgk::introspect::state(*wgk::Device::default_device()).gpu;
    benchmark::AddCustomContext("adapter", gpu.adapter_info().device);
    benchmark::AddCustomContext("dawn_toggles", gpu.enabled_toggle_list());
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& e) {  // wgk::Error, a std::runtime_error
    std::fprintf(stderr, "bench_host: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
