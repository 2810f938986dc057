// Copy sweep: the WGSL copy written several ways (vector width, elements per invocation, workgroup size, one
// invocation per element block or a grid-stride loop over a fixed grid), timed with timestamp queries at
// several sizes on one device, so that `wgk bench`'s copy baseline is the fastest copy WGSL can write here
// (issue 17; docs/PERF.md "The copy baseline"). Compare with CUDA's copy of the same bytes in the same device
// call: bench/peers/torch_copy.py. Not a test: run it by hand.
//
//   XDG_RUNTIME_DIR=/tmp build/bench/bench_copy_sweep [--mib 64,256,1024] [--iterations 50] [--spin-up-ms 1000]
//   XDG_RUNTIME_DIR=/tmp build/bench/bench_copy_sweep --mib 1024 --pad-mib 0,2,32.5 --gap-mib 0,2
//
// With --pad-mib or --gap-mib it times only the baseline copy, once per (size, pad, gap): a buffer of `pad` MiB
// allocated before src and one of `gap` MiB between src and dst, all kept alive while timed. That is where the
// driver places src and dst relative to each other and to what was allocated before (docs/PERF.md, fourth
// session, exp8: a linear sweep of RoPE's x and y slowed 17% with only the sizes of the buffers beside them changed).
//
// Prints one line per (size, variant): median GPU us of one pass between its timestamps, GB/s (read + write
// bytes / time), the ratio to the current baseline, and the mean time per pass of passes back to back (the
// span from the first pass's start to the last one's end, over the passes of a command buffer), and the time
// per dispatch of 20 dispatches back to back in ONE compute pass (runtime::time_one_pass: how CUDA events
// around back-to-back launches time torch's copy). The baseline is tools/wgk/bench_baselines.cpp's: vec4<u32>,
// 1 per invocation, workgroup 256.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/state.h"
#include "runtime/timing.h"
#include "wgk/introspect.h"
#include "wgk/kernel.h"

namespace {

struct Variant {
  int width = 4;       // u32 per element: 1 (u32), 2 (vec2<u32>), 4 (vec4<u32>)
  int per = 1;         // elements per invocation (per loop trip when strided)
  int workgroup = 256;
  int grid = 0;        // 0: one invocation per `per` elements; > 0: that many workgroups, grid-stride loop

  std::string name() const {
    std::string n = width == 1 ? "u32" : "vec" + std::to_string(width) + "<u32>";
    n += " x" + std::to_string(per) + " wg" + std::to_string(workgroup);
    n += grid ? " stride(" + std::to_string(grid) + " groups)" : " grid";
    return n;
  }

  std::string wgsl() const {
    const std::string type = width == 1 ? "u32" : "vec" + std::to_string(width) + "<u32>";
    const std::string wg = std::to_string(workgroup), per_s = std::to_string(per);
    std::string s = "@group(0) @binding(0) var<storage, read> src : array<" + type + ">;\n"
                    "@group(0) @binding(1) var<storage, read_write> dst : array<" + type + ">;\n"
                    "@compute @workgroup_size(" + wg + ")\n"
                    "fn main(@builtin(local_invocation_id) lid : vec3<u32>, @builtin(workgroup_id) wid : vec3<u32>,\n"
                    "        @builtin(num_workgroups) groups : vec3<u32>) {\n"
                    "  let n = arrayLength(&dst);\n"
                    "  let group = wid.x + wid.y * groups.x;\n";
    // Within a block of workgroup * per elements, trip k of invocation t copies element k * workgroup + t:
    // neighbouring invocations touch neighbouring elements on every trip (coalesced).
    if (grid == 0) {
      s += "  let base = group * " + std::to_string(workgroup * per) + "u + lid.x;\n"
           "  for (var k = 0u; k < " + per_s + "u; k++) {\n"
           "    let i = base + k * " + wg + "u;\n"
           "    if (i < n) { dst[i] = src[i]; }\n"
           "  }\n";
    } else {
      s += "  let step = groups.x * groups.y * " + std::to_string(workgroup * per) + "u;\n"
           "  for (var base = group * " + std::to_string(workgroup * per) + "u + lid.x; base < n; base += step) {\n"
           "    for (var k = 0u; k < " + per_s + "u; k++) {\n"
           "      let i = base + k * " + wg + "u;\n"
           "      if (i < n) { dst[i] = src[i]; }\n"
           "    }\n"
           "  }\n";
    }
    s += "}\n";
    return s;
  }
};

std::vector<Variant> variants(std::uint32_t max_workgroup) {
  std::vector<Variant> v;
  for (int width : {1, 2, 4})
    for (int per : {1, 2, 4, 8})
      for (int wg : {64, 128, 256, 512, 1024}) {
        if (static_cast<std::uint32_t>(wg) > max_workgroup) continue;
        if (width != 4 && (per > 2 || wg != 256)) continue;  // narrower loads: a few points only
        v.push_back({width, per, wg, 0});
      }
  for (int grid : {132 * 4, 132 * 8, 132 * 16, 132 * 32})  // the H200 has 132 SMs
    for (int per : {1, 4}) v.push_back({4, per, 256, grid});
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"WGSL copy variants timed at several sizes (docs/PERF.md \"The copy baseline\")"};
  std::vector<std::uint64_t> mib{64, 256, 1024};
  int iterations = 50, spin_up_ms = 1000;
  app.add_option("--mib", mib, "copy sizes in MiB")->delimiter(',');
  app.add_option("--iterations", iterations, "timed copies per variant")->check(CLI::Range(1, 10000));
  app.add_option("--spin-up-ms", spin_up_ms, "copies back to back before each size, to reach full clocks");
  std::vector<double> pad_mib, gap_mib;
  app.add_option("--pad-mib", pad_mib, "placement mode: MiB allocated before src (multiples of 1/16)")
      ->delimiter(',')->check(CLI::Range(0.0, 65536.0));
  app.add_option("--gap-mib", gap_mib, "placement mode: MiB allocated between src and dst")
      ->delimiter(',')->check(CLI::Range(0.0, 65536.0));
  CLI11_PARSE(app, argc, argv);
  const bool placement = !pad_mib.empty() || !gap_mib.empty();
  if (pad_mib.empty()) pad_mib = {0};
  if (gap_mib.empty()) gap_mib = {0};

  auto device = wgk::Device::create({});
  auto& state = wgk::introspect::state(*device);
  std::lock_guard lock(state.mutex);
  auto& gpu = state.gpu;
  const auto max_binding = static_cast<std::uint64_t>(state.caps.limit("maxStorageBufferBindingSize").value_or(128 << 20));
  const auto max_wg = static_cast<std::uint32_t>(state.caps.limit("maxComputeInvocationsPerWorkgroup").value_or(256));
  const auto max_groups = static_cast<std::uint64_t>(state.caps.limit("maxComputeWorkgroupsPerDimension").value_or(65535));
  std::printf("adapter: %s\n", device->description().c_str());

  struct Compiled {
    Variant v;
    std::shared_ptr<wgk::runtime::Program> program;
  };
  std::vector<Compiled> compiled;
  for (const Variant& v : placement ? std::vector<Variant>{Variant{}} : variants(max_wg)) {
    const std::string wgsl = v.wgsl();
    auto program = state.cache.program("bench/", "copy_sweep " + v.name(), "bench/copy " + v.name(), [&] { return wgsl; });
    state.cache.pipeline(gpu, *program);
    compiled.push_back({v, program});
  }

  auto pad_buffer = [&](double m, const char* label) {
    const auto b = static_cast<std::uint64_t>(m * 1048576.0) & ~std::uint64_t{15};
    return b ? gpu.create_buffer(b, wgk::gpu::BufferUsage::kStorage, label) : wgk::gpu::Buffer{};
  };
  for (std::uint64_t m : mib)
  for (double pad_m : pad_mib)
  for (double gap_m : gap_mib) {
    const std::uint64_t bytes = m << 20;
    if (bytes > max_binding) {
      std::printf("%llu MiB: skipped (maxStorageBufferBindingSize %llu)\n", static_cast<unsigned long long>(m),
                  static_cast<unsigned long long>(max_binding));
      continue;
    }
    wgk::gpu::Buffer pad = pad_buffer(pad_m, "sweep pad");
    wgk::gpu::Buffer src = gpu.create_buffer(bytes, wgk::gpu::BufferUsage::kStorage, "sweep src");
    wgk::gpu::Buffer gap = pad_buffer(gap_m, "sweep gap");
    wgk::gpu::Buffer dst = gpu.create_buffer(bytes, wgk::gpu::BufferUsage::kStorage, "sweep dst");
    struct Ready {
      const Compiled* c;
      wgk::gpu::BindGroup group;
      wgk::gpu::Dispatch dispatch;
    };
    std::vector<Ready> ready;
    ready.reserve(compiled.size());  // dispatches point at their own bind groups: never reallocate
    for (const Compiled& c : compiled) {
      const auto& pipeline = state.cache.pipeline(gpu, *c.program);
      const wgk::gpu::BindGroupEntry entries[] = {{0, &src, 0, wgk::gpu::kWholeSize}, {1, &dst, 0, wgk::gpu::kWholeSize}};
      const std::uint64_t elements = bytes / (4 * static_cast<std::uint64_t>(c.v.width));
      const std::uint64_t per_group = static_cast<std::uint64_t>(c.v.workgroup) * static_cast<std::uint64_t>(c.v.per);
      const std::uint64_t groups = c.v.grid ? static_cast<std::uint64_t>(c.v.grid) : (elements + per_group - 1) / per_group;
      const std::uint64_t x = std::min<std::uint64_t>(groups, std::min<std::uint64_t>(max_groups, 32768));
      const std::uint64_t y = (groups + x - 1) / x;
      if (c.v.grid && groups % x != 0) continue;  // a stride grid must be exact (x * y == grid)
      Ready& r = ready.emplace_back(Ready{&c, gpu.create_bind_group(pipeline, entries), {}});
      r.dispatch = {&pipeline, &r.group, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 1};
    }
    // Spin-up: the first variant back to back until the clocks are up (the H200 idles at 345 MHz).
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(spin_up_ms);
    while (std::chrono::steady_clock::now() < until)
      wgk::runtime::time_dispatches(gpu, std::span(&ready.front().dispatch, 1), 20);
    double baseline_ns = 0;
    struct Row {
      std::string name;
      double ns, span_ns, one_pass_ns;
    };
    std::vector<Row> rows;
    for (int round = 0; round < 2; ++round)  // the first round only warms up; the second is reported
      for (const Ready& r : ready) {
        wgk::runtime::time_dispatches(gpu, std::span(&r.dispatch, 1), 3);
        const auto t = wgk::runtime::time_dispatches(gpu, std::span(&r.dispatch, 1), iterations);
        const double ns = static_cast<double>(t.median_ns());
        const Variant& v = r.c->v;
        if (round == 0) continue;
        if (v.width == 4 && v.per == 1 && v.workgroup == 256 && v.grid == 0) baseline_ns = ns;
        const double one_pass_ns = wgk::runtime::time_one_pass(gpu, std::span(&r.dispatch, 1), 20);
        rows.push_back({v.name(), ns, t.span_mean_ns, one_pass_ns});
      }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ns < b.ns; });
    if (placement) {
      for (const Row& row : rows)
        std::printf("%5llu MiB  pad %8.4f MiB  gap %8.4f MiB  %9.1f us  %7.1f GB/s  (%.1f us per dispatch in one pass)\n",
                    static_cast<unsigned long long>(m), pad_m, gap_m, row.ns / 1e3,
                    2.0 * static_cast<double>(bytes) / row.ns, row.one_pass_ns / 1e3);
      std::fflush(stdout);
      continue;
    }
    for (const Row& row : rows)
      std::printf("%5llu MiB  %-36s %9.1f us  %7.1f GB/s  %.3fx of baseline time  (back to back: %.1f us per pass,"
                  " %.1f us per dispatch in one pass)\n",
                  static_cast<unsigned long long>(m), row.name.c_str(), row.ns / 1e3, 2.0 * static_cast<double>(bytes) / row.ns,
                  row.ns / baseline_ns, row.span_ns / 1e3, row.one_pass_ns / 1e3);
    std::fflush(stdout);
  }
  return 0;
}
