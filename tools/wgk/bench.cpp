// wgk bench [id ...] [--package DIR] [--filter S] [--json FILE] [--csv FILE] [--plot FILE.svg]
//           [--warmup N] [--iterations N] [--rounds N] [--spin-up-ms N] [--tunable NAME=VALUE ...] [--batch N]
//           [--one-pass N]:
// runs the packages' bench.json cases with device-resident
// inputs and reports GPU time (timestamp queries, median), bytes moved, effective bandwidth, and its
// ratio to a same-run WGSL vec4 copy of the same bytes; plus an empty dispatch's GPU time. With --batch N,
// decode cases also time N calls back to back: in one submit (wgk::Batch) and in N submits, GPU time of
// the whole (timestamps at the first pass's begin and the last pass's end) and host time per call. With
// --one-pass N, every case and its copy are also timed as N calls in one compute pass (per call).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <sstream>
#include <unistd.h>

#include "bench_baselines.h"
#include "bench_cases.h"
#include "bench_report.h"
#include "cases.h"
#include "reference/op.h"
#include "command.h"
#include "option_values.h"
#include "progress.h"
#include "resolve.h"
#include "store/store.h"
#include "plan/boundary.h"
#include "store/store.h"
#include "wgk/error.h"
#include "wgk/introspect.h"

namespace wgk::cli {
namespace {

struct Options {
  std::vector<std::string> ids;
  std::string filter, json, csv, plot;
  PackageSelector pin;
  int warmup = 5, iterations = 50;
  int rounds = 3;  ///< each case and its copy baseline timed this many times, interleaved; minimum kept
  int spin_up_ms = 1000;  ///< GPU load before each case, so it is timed at sustained-load clocks
  int batch = 0;  ///< --batch N: decode cases also timed N calls per submit (0: not)
  int one_pass = 0;  ///< --one-pass N: every case and its copy also timed as N calls in one compute pass (0: not)
  std::vector<std::string> tunables;  ///< NAME=VALUE overrides for every case, as given
  Attributes overrides;               ///< the same parsed
  double gpu_timeout_s = 10;          ///< --gpu-timeout-s
};

// Device-resident inputs: int64 position ids are stored as the u32 the kernels read (checked narrowing,
// as the runtime's host path does), so the timed calls upload nothing.
Inputs upload_inputs(const std::map<std::string, HostTensor, std::less<>>& host, const std::shared_ptr<Device>& device) {
  Inputs inputs;
  for (const auto& [name, t] : host) {
    if (t.dtype != DType::kInt64) {
      inputs.emplace(name, DeviceTensor::upload(t, device));
      continue;
    }
    HostTensor words{DType::kUInt32, t.shape, plan::narrow_to_u32(name, t, nullptr)};
    inputs.emplace(name, DeviceTensor::upload(words, device));
  }
  return inputs;
}

// Host time per call of `calls` calls made back to back, each its own submit (`batched` false) or recorded
// into one Batch and flushed: the fastest of `repeats` runs, the GPU drained before each (not timed).
double host_ns_per_call(const Kernel& kernel, const Inputs& inputs, const BenchCase& c, int calls, bool batched,
                        int repeats) {
  using Clock = std::chrono::steady_clock;
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    wait_idle(kernel.device());
    const auto start = Clock::now();
    if (batched) {
      Batch batch(kernel.device());
      for (int i = 0; i < calls; ++i) batch.record(kernel, inputs, c.attrs, c.tunables);
      batch.flush();
    } else {
      for (int i = 0; i < calls; ++i) kernel.call(inputs, c.attrs, c.tunables, nullptr);
    }
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() / calls;
    if (r == 0 || ns < best) best = ns;
  }
  wait_idle(kernel.device());
  return best;
}

// --batch N of a decode case: GPU spans of N calls in one submit and in N submits, host time per call of
// each; the fastest of `rounds`.
void bench_batch(const Kernel& kernel, const Inputs& inputs, const BenchCase& c, const Options& o, BenchRow& row) {
  row.batch = o.batch;
  introspect::time_submits(kernel, inputs, c.attrs, o.batch, true, c.tunables);  // warm-up: untimed
  for (int r = 0; r < o.rounds; ++r) {
    const double one = static_cast<double>(introspect::time_submits(kernel, inputs, c.attrs, o.batch, true, c.tunables));
    const double many = static_cast<double>(introspect::time_submits(kernel, inputs, c.attrs, o.batch, false, c.tunables));
    if (r == 0 || one < row.batch_gpu_ns) row.batch_gpu_ns = one;
    if (r == 0 || many < row.submits_gpu_ns) row.submits_gpu_ns = many;
  }
  const int repeats = std::max(3, o.iterations / 5);
  row.host_call_ns = host_ns_per_call(kernel, inputs, c, o.batch, false, repeats);
  row.host_batched_ns = host_ns_per_call(kernel, inputs, c, o.batch, true, repeats);
}

// The package's bench.json, parsed; a malformed one is the package's error.
nlohmann::json bench_json(const Kernel& kernel) {
  try {
    return nlohmann::json::parse(introspect::package_file(kernel, "bench.json"));
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::kContract, kernel.id() + ": bench.json: " + e.what());
  }
}

// --filter S that no case name of the selected packages contains is the call's error, before any GPU work, naming
// S and every case name (a misspelled filter used to time the empty dispatch, walk every case and say only "no case
// ran").
void check_filter(const std::vector<Kernel>& kernels, const std::vector<nlohmann::json>& benches, const std::string& filter) {
  std::string names;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    names += (names.empty() ? "" : "; ") + kernels[k].id() + ":";
    for (const auto& c : benches[k].at("cases")) {
      const std::string name = c.value("name", "");
      if (name.find(filter) != std::string::npos) return;
      names += " " + name;
    }
  }
  throw Error(ErrorKind::kInvalidArgument, "--filter \"" + filter + "\": no bench.json case name contains it (cases: " + names + ")");
}

void bench_package(const Kernel& kernel, const nlohmann::json& bench, const Options& o, BenchRun& run) {
  const auto& cases = bench.at("cases");
  auto where = [&](std::size_t i) { return kernel.id() + ": bench.json: cases[" + std::to_string(i) + "]"; };
  // Every case's input dtypes by the contract's type constraints, as test.json's, before any case is timed.
  for (std::size_t i = 0; i < cases.size(); ++i) check_case_input_dtypes(*introspect::contract(kernel), cases[i], where(i));
  Progress progress("wgk bench: " + kernel.id(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    BenchCase c = bench_case_from_json(cases[i], where(i));
    progress.update(i, c.name);
    if (!o.filter.empty() && c.name.find(o.filter) == std::string::npos) continue;
    for (const auto& [name, value] : o.overrides) c.tunables.insert_or_assign(name, value);
    BenchRow row;
    row.kernel = kernel.id();
    row.name = c.name;
    row.dtype = std::string(dtype_name(c.dtype));
    row.tags = c.tags;
    row.empty_ns = run.empty_ns;
    try {
      Inputs inputs;
      {
        const auto host = make_inputs(c);
        const auto& contract = *introspect::contract(kernel);
        const reference::OpPlugin* op = reference::find_op(contract.domain, contract.name);
        inputs = upload_inputs(host, kernel.device());
        reference::MovedBytes moved;
        if (op && op->moved_bytes) {
          moved = op->moved_bytes(by_contract_names(contract, host));
        } else {  // every input read once, every output (of one untimed call) written once
          for (const auto& [name, t] : host) {
            moved.total += t.data.size();
            moved.copy = std::max<std::uint64_t>(moved.copy, t.data.size());
          }
          for (const auto& [name, t] : kernel.call(inputs, c.attrs, c.tunables, nullptr))
            moved.total += static_cast<std::uint64_t>(numel(t.shape())) * dtype_size(t.dtype());
        }
        row.bytes = moved.total;
        row.x_bytes = (moved.copy + 15) & ~std::uint64_t{15};
      }
      // GPU clocks vary between and within runs (seen on the H200: the same kernel at 43 or 103 us), and
      // noise only slows a kernel down: time the case and a same-size copy next to each other in
      // `rounds` rounds and keep the fastest of each.
      if (o.spin_up_ms > 0) spin_up(kernel.device(), o.spin_up_ms);
      if (o.warmup > 0) introspect::timed_call(kernel, inputs, c.attrs, o.warmup, c.tunables);
      double best = 0, best_copy = 0;
      for (int r = 0; r < o.rounds; ++r) {
        const double copy_ns = reported_ns(time_copy(kernel.device(), row.x_bytes, o.warmup, o.iterations));
        const introspect::TimedCall timed =
            introspect::timed_call(kernel, inputs, c.attrs, o.iterations, c.tunables, o.one_pass);
        const double ns = reported_ns(timed.timing);
        if (o.one_pass > 0) {
          const double copy_one = time_copy_one_pass(kernel.device(), row.x_bytes, o.warmup, o.one_pass);
          row.one_pass = o.one_pass;
          if (r == 0 || copy_one < row.copy_one_pass_ns) row.copy_one_pass_ns = copy_one;
          if (r == 0 || timed.one_pass_ns < row.one_pass_ns) row.one_pass_ns = timed.one_pass_ns;
        }
        if (r == 0 || copy_ns < best_copy) best_copy = copy_ns;
        if (r == 0 || ns < best) {
          best = ns;
          row.variant = timed.variant;
          row.median_ns = static_cast<double>(timed.timing.median_ns());
          row.span_mean_ns = timed.timing.span_mean_ns;
          row.resolution_ns = timed.timing.resolution_ns;
        }
      }
      row.gpu_ns = best;
      row.copy_ns = best_copy;
      row.iterations = o.iterations;
      if (o.batch > 0 && std::find(c.tags.begin(), c.tags.end(), "decode") != c.tags.end())
        bench_batch(kernel, inputs, c, o, row);
    } catch (const Error& e) {
      row.error = e.what();
    }
    run.rows.push_back(row);
    std::cerr << "  " << c.name << (row.error.empty() ? " [" + row.variant + "] " + std::to_string(row.gpu_ns / 1e3) + " us"
                                                      : " skipped: " + row.error)
              << (row.error.empty() && row.batch > 0
                      ? "; " + std::to_string(row.batch) + " calls: " + std::to_string(row.batch_gpu_ns / 1e3) +
                            " us in one submit, " + std::to_string(row.submits_gpu_ns / 1e3) + " us in " +
                            std::to_string(row.batch) + " submits"
                      : "")
              << "\n";
  }
}

}  // namespace

WGK_COMMAND("bench", "Time packages' bench.json cases on the GPU (timestamp queries) against a same-run vec4 copy") {
  auto o = std::make_shared<Options>();
  sub.add_option("package", o->ids, "package ids or folders (default: every bundled package)");
  add_package_options(sub, o->pin);
  add_device_options(sub, o->gpu_timeout_s);
  sub.add_option("--filter", o->filter, "only cases whose name contains this");
  non_empty(sub.add_option("--json", o->json, "write the results as JSON (its folder created when missing, before the run)"));
  non_empty(sub.add_option("--csv", o->csv, "write the results as CSV (its folder created when missing, before the run)"));
  non_empty(sub.add_option("--plot", o->plot,
                           "write an SVG plot of GB/s against bytes moved (needs gnuplot; its folder created when missing, before the run)"));
  integer_in(sub.add_option("--warmup", o->warmup, "untimed repetitions before timing"), 0, 100000);
  integer_in(sub.add_option("--iterations", o->iterations, "timed repetitions per round"), 1, 1000000);
  integer_in(sub.add_option("--rounds", o->rounds,
                            "rounds per case, each timing the case and a same-size copy; the fastest is reported (default 3)"),
             1, 100);
  integer_in(sub.add_option("--spin-up-ms", o->spin_up_ms,
                            "milliseconds of copies before each case, to time at sustained-load clocks (default 1000)"),
             0, 60000);
  integer_in(sub.add_option("--batch", o->batch,
                            "N: decode cases also time N calls back to back, in one submit (wgk::Batch) and in N submits "
                            "(GPU span and host time per call)"),
             1, static_cast<int>(Batch::kMaxCalls));
  integer_in(sub.add_option("--one-pass", o->one_pass,
                            "N: every case and its copy also timed as N calls back to back in one compute pass, timestamps "
                            "at its begin and end only (per call; as CUDA events around back-to-back launches time a kernel)"),
             1, 4096);
  sub.add_option("--tunable", o->tunables,
                 "NAME=VALUE: a tunable override for every case (repeatable or comma-separated, as in wgk run; e.g. "
                 "ROW_ORDER=token, F16_STORAGE=packed)")
      ->delimiter(',');
  return [o]() -> int {
    auto device = cli_device(o->gpu_timeout_s);
    if (!device->has_timestamp_query()) {
      std::cerr << "wgk bench: adapter " << device->description() << " has no timestamp-query feature\n";
      return 1;
    }
    BenchRun run;
    run.adapter = device->description();
    o->overrides = parse_name_values(o->tunables, "--tunable");
    for (const auto& [name, value] : o->overrides)
      run.tunables.push_back(name + "=" + std::visit([](const auto& v) {
                               std::ostringstream text;
                               if constexpr (requires { text << v; }) {
                                 text << v;  // "64", "64.5", "1e+20", "token"
                               } else {
                                 for (std::size_t i = 0; i < v.size(); ++i) text << (i ? "," : "[") << v[i];
                                 text << (v.empty() ? "[]" : "]");  // as --tunable reads it: [1,2]
                               }
                               return text.str();
                             }, value));
    const std::pair<const char*, const std::string*> outputs[] = {{"--json", &o->json}, {"--csv", &o->csv}, {"--plot", &o->plot}};
    for (const auto& [option, path] : outputs)
      if (!path->empty()) output_file(option, *path);  // before any GPU work: a bad path fails first
    // Two outputs to one file: the later would overwrite the earlier (before: the CSV replaced the JSON silently).
    for (std::size_t a = 0; a < std::size(outputs); ++a)
      for (std::size_t b = a + 1; b < std::size(outputs); ++b)
        if (!outputs[a].second->empty() && !outputs[b].second->empty() &&
            std::filesystem::weakly_canonical(*outputs[a].second) == std::filesystem::weakly_canonical(*outputs[b].second))
          throw Error(ErrorKind::kInvalidArgument, std::string(outputs[a].first) + " and " + outputs[b].first + " name the same file " +
                                                       *outputs[b].second + " (each writes its own file)");
    // Every id through the store (or --package, checked against any pin), printed as run.
    const std::vector<Kernel> kernels = selected_kernels(o->ids, o->pin, device);
    std::vector<nlohmann::json> benches;  // each package's bench.json, read once
    for (const Kernel& kernel : kernels) benches.push_back(bench_json(kernel));
    if (!o->filter.empty()) check_filter(kernels, benches, o->filter);
    run.empty_ns = reported_ns(time_empty_dispatch(device, o->warmup, std::max(o->iterations, 200)));
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      print_kernel(kernels[k]);
      bench_package(kernels[k], benches[k], *o, run);
    }
    print_table(std::cout, run);
    if (!o->json.empty()) write_json(o->json, run);
    if (!o->csv.empty()) write_csv(o->csv, run);
    if (!o->plot.empty()) {
      std::string why;
      if (!write_plot(o->plot, run, why)) std::cerr << "wgk bench: " << why << "\n";
    }
    int failed = 0;
    for (const auto& r : run.rows) failed += !r.error.empty();
    std::cout << run.rows.size() - failed << " ran, " << failed << " skipped\n";
    if (o->batch > 0 && std::none_of(run.rows.begin(), run.rows.end(), [](const BenchRow& r) { return r.batch > 0; })) {
      std::cerr << "wgk bench: --batch " << o->batch << ": no decode case ran (cases tagged \"decode\" are batched)\n";
      return 1;
    }
    if (run.rows.size() == static_cast<std::size_t>(failed)) {
      std::cerr << "wgk bench: no case ran" << (run.rows.empty() ? " (no bench.json case)" : "") << "\n";
      return 1;
    }
    return 0;
  };
}

}  // namespace wgk::cli
