#pragma once
// `wgk bench` results: one row per case, written as a table (stdout), JSON, CSV, and an SVG plot of
// effective bandwidth against bytes moved per (variant, dtype), drawn by gnuplot when it is installed.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace wgk::cli {

struct BenchRow {
  std::string kernel, name, dtype, variant;
  std::vector<std::string> tags;
  std::string error;                 ///< non-empty: the case did not run (e.g. above the adapter's limits)
  std::uint64_t bytes = 0;           ///< bytes the op moves (MovedBytes::total)
  std::uint64_t x_bytes = 0;         ///< x's bytes (the copy baseline copies these: 2 * x_bytes moved)
  double gpu_ns = 0;                 ///< reported GPU time of one call (bench_baselines.h reported_ns)
  double median_ns = 0, span_mean_ns = 0;
  std::uint64_t resolution_ns = 0;
  int iterations = 0;
  double copy_ns = 0;                ///< same-run copy of x_bytes
  /// `--batch N` (decode cases): N calls back to back, in one submit (a Batch) and in N submits.
  int batch = 0;                     ///< N; 0: not measured
  double batch_gpu_ns = 0;           ///< GPU time of the one submit: first pass's begin to last pass's end
  double submits_gpu_ns = 0;         ///< the same span over N submits (Kernel::call each)
  double host_call_ns = 0;           ///< host time per call, N calls each its own submit
  double host_batched_ns = 0;        ///< host time per call, N calls recorded + one flush
  /// GPU time of the one submit against N times the kernel-only time of one call (gpu_ns).
  double batch_x_kernels() const { return gpu_ns > 0 && batch > 0 ? batch_gpu_ns / (batch * gpu_ns) : 0; }
  /// `--one-pass N`: the case and its copy each timed as N calls back to back in one compute pass (timestamps
  /// at its begin and end only; per call), the method of CUDA events around back-to-back launches.
  int one_pass = 0;                  ///< N; 0: not measured
  double one_pass_ns = 0, copy_one_pass_ns = 0;
  double one_pass_pct_of_copy() const {
    return one_pass_ns > 0 && copy_one_pass_ns > 0 && bytes > 0
               ? 100.0 * (static_cast<double>(bytes) / one_pass_ns) / (2.0 * static_cast<double>(x_bytes) / copy_one_pass_ns)
               : 0;
  }
  double empty_ns = 0;               ///< same-run empty dispatch
  double gbps() const { return gpu_ns > 0 ? static_cast<double>(bytes) / gpu_ns : 0; }
  double copy_gbps() const { return copy_ns > 0 ? 2.0 * static_cast<double>(x_bytes) / copy_ns : 0; }
  double pct_of_copy() const { return copy_gbps() > 0 ? 100.0 * gbps() / copy_gbps() : 0; }
  double x_empty() const { return empty_ns > 0 ? gpu_ns / empty_ns : 0; }
};

struct BenchRun {
  std::string adapter;
  double empty_ns = 0;
  std::vector<std::string> tunables;  ///< `--tunable` overrides applied to every case (NAME=VALUE)
  std::vector<BenchRow> rows;
};

void print_table(std::ostream& out, const BenchRun& run);
void write_json(const std::string& path, const BenchRun& run);
void write_csv(const std::string& path, const BenchRun& run);
/// Writes `svg_path` with gnuplot (Debian gnuplot-nox). Returns false, with the reason in `why`, when
/// gnuplot is not on PATH or fails; the other outputs do not depend on it.
bool write_plot(const std::string& svg_path, const BenchRun& run, std::string& why);

}  // namespace wgk::cli
