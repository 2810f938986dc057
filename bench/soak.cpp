// Soak benchmark: one Kernel called with a new shape every time, as a server or a chat loop does, watching
// the process's memory and the device cache (Device::cache_stats()). Not a timed test: run it by hand
// (docs/PERF.md "Memory" has the numbers and the commands).
//
//   prefill  ai.onnx.RotaryEmbedding, x (1, heads, S, head) float32 from the host, S = 1, 2, ..., N, position
//            ids (1, S) int64 from the host, cos/sin caches (N, head / 2) uploaded once;
//   decode   com.microsoft.RotaryEmbedding, x (1, 1, heads * head) float32 from the host, position_ids a
//            scalar offset = step, and cos/sin caches of step + 1 rows from the host (growing every step).
//
// Every `--report` calls it prints RSS (/proc/self/statm), the cache's bytes and entries, buffers alive;
// then the host time per call (the fastest half of `--timed` calls, each timed alone with the GPU idle)
// of (a) a repeated call, (b) a call with a sequence length not seen before (same variant), (c) a call
// that needs a new program (a WORKGROUP_SIZE not used before: render + compile), all of the same size.
//
// run: XDG_RUNTIME_DIR=/tmp build/bench/bench_soak [--calls 20000] [--pattern prefill|decode|both]
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <malloc.h>
#include <unistd.h>
#include <vector>

#include "wgk/kernel.h"

namespace {

using Clock = std::chrono::steady_clock;

double rss_mib() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return static_cast<double>(pages_resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

/// Resident MiB by kind of mapping (/proc/self/smaps): malloc's main heap ([heap]), anonymous mappings
/// (large mallocs, other threads' malloc arenas, Dawn and driver allocations), memfd files (lavapipe's
/// device memory), everything else (libraries, stacks).
struct RssByKind {
  double heap = 0, anon = 0, memfd = 0, other = 0;
};

RssByKind rss_by_kind() {
  std::ifstream smaps("/proc/self/smaps");
  RssByKind r;
  double* kind = &r.other;
  std::string line;
  while (std::getline(smaps, line)) {
    if (line.empty()) continue;
    if (std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < line.find(' ')) {
      // "start-end perms offset dev inode [path]": the path starts at the sixth field.
      std::size_t pos = 0;
      for (int field = 0; field < 5 && pos != std::string::npos; ++field) {
        pos = line.find(' ', pos);
        if (pos != std::string::npos) pos = line.find_first_not_of(' ', pos);
      }
      const std::string path = pos == std::string::npos ? "" : line.substr(pos);
      kind = path.empty() ? &r.anon : path == "[heap]" ? &r.heap : path.starts_with("/memfd:") ? &r.memfd : &r.other;
    } else if (line.starts_with("Rss:")) {
      *kind += std::stod(line.substr(4)) / 1024.0;
    }
  }
  return r;
}

wgk::HostTensor f32(wgk::Shape shape, float scale) {
  std::vector<float> v(static_cast<std::size_t>(wgk::numel(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(i % 97) / 97.0f;
  return wgk::HostTensor::from(wgk::DType::kFloat32, std::move(shape), v);
}

wgk::HostTensor positions(std::int64_t tokens) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(tokens));
  for (std::int64_t i = 0; i < tokens; ++i) v[static_cast<std::size_t>(i)] = i;
  return wgk::HostTensor::from(wgk::DType::kInt64, {1, tokens}, v);
}

void report(const char* pattern, int calls, double rss_start, const std::shared_ptr<wgk::Device>& device) {
  const wgk::CacheStats s = device->cache_stats();
  const struct mallinfo2 heap = mallinfo2();  // glibc: bytes in use in malloc's arenas, and their total
  std::printf("%-7s calls %6d  RSS %8.1f MiB (%+7.1f)  heap %7.1f of %7.1f MiB  cached %7.2f / %.0f MiB  plans %5zu  programs %3zu  "
              "bind groups %5zu  pooled %4zu (%6.2f MiB)  buffers alive %5zu (%7.2f MiB)  made: plans %6llu renders %3llu "
              "compilations %3llu  evictions %llu\n",
              pattern, calls, rss_mib(), rss_mib() - rss_start, static_cast<double>(heap.uordblks) / (1 << 20),
              static_cast<double>(heap.arena + heap.hblkhd) / (1 << 20), static_cast<double>(s.cached_bytes) / (1 << 20),
              static_cast<double>(s.budget_bytes) / (1 << 20), s.plans.entries, s.programs.entries, s.bind_groups.entries,
              s.pooled_buffers.entries, static_cast<double>(s.pooled_buffers.bytes) / (1 << 20), s.buffers_alive,
              static_cast<double>(s.buffer_bytes_alive) / (1 << 20), static_cast<unsigned long long>(s.plans_made),
              static_cast<unsigned long long>(s.renders), static_cast<unsigned long long>(s.compilations),
              static_cast<unsigned long long>(s.evictions));
  const RssByKind by = rss_by_kind();
  std::printf("        RSS by mapping: [heap] %.1f  anonymous %.1f  memfd %.1f  other %.1f MiB\n", by.heap, by.anon,
              by.memfd, by.other);
  std::fflush(stdout);
}

/// One call's arguments: inputs, attributes, tunables.
struct Args {
  wgk::Inputs inputs;
  wgk::Attributes attrs, tunables;
};

/// Host time per call (microseconds) of the calls one(1) .. one(n), the mean of the fastest half. Each
/// call is timed alone, with the GPU idle (its output is read back, untimed, before the next call): on
/// lavapipe the "GPU" is CPU threads that would otherwise share the cores with the call being timed.
template <class F>
double host_us(const wgk::Kernel& kernel, int n, F one) {
  std::vector<double> us;
  for (int i = 0; i <= n; ++i) {
    const Args a = one(i);
    const auto start = Clock::now();
    wgk::Outputs out = kernel.call(a.inputs, a.attrs, a.tunables, nullptr);
    const auto end = Clock::now();
    out.at("y").read();
    if (i > 0) us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (std::size_t i = 0; i < (us.size() + 1) / 2; ++i) sum += us[i];
  return sum / static_cast<double>((us.size() + 1) / 2);
}

constexpr int kRing = 16;  // copies of a repeated call's inputs: more bytes than the CPU's caches hold

struct Geometry {
  std::int64_t heads = 1, head = 16;
};

void prefill(const std::shared_ptr<wgk::Device>& device, int calls, int every, const Geometry& g, int timed) {
  auto kernel = wgk::get_kernel("webgpu-kernels/ai.onnx.RotaryEmbedding", {.version = 1}, device);
  const std::int64_t rows = calls + timed + 2;
  const auto cos = wgk::DeviceTensor::upload(f32({rows, g.head / 2}, 1.0f), device);
  const auto sin = wgk::DeviceTensor::upload(f32({rows, g.head / 2}, 0.5f), device);
  const wgk::HostTensor x_all = f32({1, g.heads, rows, g.head}, 1.0f);
  auto x_of = [&](std::int64_t s) {  // (1, heads, s, head): the first s tokens of each head's rows
    wgk::HostTensor x{wgk::DType::kFloat32, {1, g.heads, s, g.head}, {}};
    x.data.assign(x_all.data.begin(), x_all.data.begin() + static_cast<std::ptrdiff_t>(g.heads * s * g.head * 4));
    return x;
  };
  auto call = [&](std::int64_t s) {
    const wgk::HostTensor x = x_of(s), pos = positions(s);
    return kernel({{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}});
  };
  call(1).at("y").read();
  const double rss_start = rss_mib();
  report("prefill", 1, rss_start, device);
  for (int i = 2; i <= calls; ++i) {
    auto out = call(i);
    if (i % every == 0 || i == calls) {
      out.at("y").read();
      report("prefill", i, rss_start, device);
    }
  }
  // Host time at sequence lengths past the soak's: (a) S0 again and again, (b) S0 + 1, S0 + 2, ... (new
  // plans, the same program), (c) S0 with a WORKGROUP_SIZE not used before (a new program). Inputs are
  // prepared before the clock starts, each call's in memory of its own (a repeated call reads one of
  // kRing copies of the S0 inputs, so that it does not find them in the CPU's caches either).
  const std::int64_t s0 = calls + 1;
  std::vector<wgk::HostTensor> xs, ps;
  for (int i = 0; i <= timed; ++i) {
    xs.push_back(x_of(s0 + i));
    ps.push_back(positions(s0 + i));
  }
  std::vector<wgk::HostTensor> x_ring, p_ring;
  for (int i = 0; i < kRing; ++i) {
    x_ring.push_back(x_of(s0));
    p_ring.push_back(positions(s0));
  }
  auto args = [&](const wgk::HostTensor& x, const wgk::HostTensor& p, wgk::Attributes tunables) {
    return Args{{{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", p}}, {}, std::move(tunables)};
  };
  const double repeated = host_us(kernel, timed, [&](int i) { return args(x_ring[i % kRing], p_ring[i % kRing], {}); });
  const double new_length = host_us(kernel, timed, [&](int i) {
    return args(xs[static_cast<std::size_t>(i)], ps[static_cast<std::size_t>(i)], {});
  });
  const double new_program = host_us(kernel, std::min(timed, 20), [&](int i) {
    return args(x_ring[i % kRing], p_ring[i % kRing], {{"WORKGROUP_SIZE", std::int64_t{i == 0 ? 256 : 300 + i}}});
  });
  std::printf("prefill host time per call: (a) repeated %.1f us, (b) new sequence length %.1f us (%.2fx), "
              "(c) new program %.1f us (%.1fx)\n",
              repeated, new_length, new_length / repeated, new_program, new_program / repeated);
  report("prefill", calls, rss_start, device);
}

void decode(const std::shared_ptr<wgk::Device>& device, int calls, int every, const Geometry& g, int timed) {
  auto kernel = wgk::get_kernel("webgpu-kernels/com.microsoft.RotaryEmbedding", {.version = 1}, device);
  const std::int64_t rows = calls + timed + 2;
  const wgk::HostTensor cos_all = f32({rows, g.head / 2}, 1.0f), sin_all = f32({rows, g.head / 2}, 0.5f);
  auto cache_of = [&](const wgk::HostTensor& all, std::int64_t l) {  // the first l rows
    wgk::HostTensor t{wgk::DType::kFloat32, {l, g.head / 2}, {}};
    t.data.assign(all.data.begin(), all.data.begin() + static_cast<std::ptrdiff_t>(l * (g.head / 2) * 4));
    return t;
  };
  const wgk::HostTensor x = f32({1, 1, g.heads * g.head}, 1.0f);
  const wgk::Attributes attrs{{"num_heads", g.heads}};
  auto call = [&](std::int64_t step) {
    const wgk::HostTensor c = cache_of(cos_all, step + 1), s = cache_of(sin_all, step + 1);
    const auto offset = wgk::HostTensor::from(wgk::DType::kInt64, {1}, std::vector<std::int64_t>{step});
    return kernel({{"x", x}, {"cos", c}, {"sin", s}, {"positionIds", offset}}, attrs);
  };
  call(0).at("y").read();
  const double rss_start = rss_mib();
  report("decode", 1, rss_start, device);
  for (int i = 1; i < calls; ++i) {
    auto out = call(i);
    if ((i + 1) % every == 0 || i + 1 == calls) {
      out.at("y").read();
      report("decode", i + 1, rss_start, device);
    }
  }
  // Host time at cache lengths past the soak's, as for prefill: (a) L0 again and again, (b) L0 + 1, ...,
  // (c) L0 with a WORKGROUP_SIZE not used before.
  const std::int64_t l0 = calls + 1;
  std::vector<wgk::HostTensor> cs, ss, offsets;
  for (int i = 0; i <= timed; ++i) {
    cs.push_back(cache_of(cos_all, l0 + i));
    ss.push_back(cache_of(sin_all, l0 + i));
    offsets.push_back(wgk::HostTensor::from(wgk::DType::kInt64, {1}, std::vector<std::int64_t>{l0 + i - 1}));
  }
  std::vector<wgk::HostTensor> c_ring, s_ring;
  for (int i = 0; i < kRing; ++i) {
    c_ring.push_back(cache_of(cos_all, l0));
    s_ring.push_back(cache_of(sin_all, l0));
  }
  auto args = [&](const wgk::HostTensor& c, const wgk::HostTensor& s, const wgk::HostTensor& offset,
                  wgk::Attributes tunables) {
    return Args{{{"x", x}, {"cos", c}, {"sin", s}, {"positionIds", offset}}, attrs, std::move(tunables)};
  };
  const double repeated =
      host_us(kernel, timed, [&](int i) { return args(c_ring[i % kRing], s_ring[i % kRing], offsets[0], {}); });
  const double new_length = host_us(kernel, timed, [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    return args(cs[k], ss[k], offsets[k], {});
  });
  const double new_program = host_us(kernel, std::min(timed, 20), [&](int i) {
    return args(c_ring[i % kRing], s_ring[i % kRing], offsets[0], {{"WORKGROUP_SIZE", std::int64_t{i == 0 ? 256 : 300 + i}}});
  });
  std::printf("decode host time per call: (a) repeated %.1f us, (b) new cache length %.1f us (%.2fx), "
              "(c) new program %.1f us (%.1fx)\n",
              repeated, new_length, new_length / repeated, new_program, new_program / repeated);
  report("decode", calls, rss_start, device);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Memory and host time of one Kernel called with ever new shapes"};
  int calls = 20000, every = 0, timed = 500;
  std::string pattern = "both";
  Geometry g;
  std::uint64_t budget_mib = wgk::DeviceOptions{}.cache_budget_bytes >> 20;
  app.add_option("--calls", calls, "calls per pattern, each with a new shape")->check(CLI::Range(2, 10000000));
  app.add_option("--pattern", pattern, "prefill, decode or both")->check(CLI::IsMember({"prefill", "decode", "both"}));
  app.add_option("--report", every, "print a line every N calls (default: calls / 10)")->check(CLI::NonNegativeNumber);
  app.add_option("--heads", g.heads, "attention heads")->check(CLI::Range(1, 64));
  app.add_option("--head-size", g.head, "head size (a multiple of 8)")->check(CLI::Range(8, 256));
  app.add_option("--timed", timed, "calls per host-time measurement")->check(CLI::Range(10, 100000));
  app.add_option("--budget-mib", budget_mib, "DeviceOptions::cache_budget_bytes, in MiB");
  CLI11_PARSE(app, argc, argv);
  if (every <= 0) every = std::max(1, calls / 10);
  wgk::DeviceOptions options;
  options.cache_budget_bytes = budget_mib << 20;
  auto device = wgk::Device::create(options);
  std::printf("adapter: %s\nbudget %llu MiB, %d calls per pattern, heads %lld x %lld\n", device->description().c_str(),
              static_cast<unsigned long long>(budget_mib), calls, static_cast<long long>(g.heads),
              static_cast<long long>(g.head));
  try {
    if (pattern != "decode") prefill(device, calls, every, g, timed);
    if (pattern != "prefill") decode(device, calls, every, g, timed);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_soak: %s\n", e.what());
    return 1;
  }
  return 0;
}
