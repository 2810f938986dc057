// Table, JSON, CSV and gnuplot output of `wgk bench` (see bench_report.h).
#include "bench_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include "wgk/error.h"

namespace wgk::cli {
namespace {

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path);
  if (!f) throw Error(ErrorKind::kIo, "cannot write " + path + ": " + std::strerror(errno));
  return f;
}

std::string short_kernel(const std::string& id) {
  auto slash = id.rfind('/');
  return slash == std::string::npos ? id : id.substr(slash + 1);
}

}  // namespace

// Width of the kernel column: the longest short id plus two spaces, at least 32 (ids of 46 characters such as
// com.microsoft.SkipSimplifiedLayerNormalization ran into the case column).
int kernel_width(const BenchRun& run) {
  std::size_t w = 30;
  for (const auto& r : run.rows) w = std::max(w, short_kernel(r.kernel).size());
  return static_cast<int>(w + 2);
}

void print_table(std::ostream& out, const BenchRun& run) {
  const int kw = kernel_width(run);
  out << "adapter: " << run.adapter << "\nempty dispatch: " << std::fixed << std::setprecision(2)
      << run.empty_ns / 1e3 << " us\n";
  out << std::left << std::setw(kw) << "kernel" << std::setw(46) << "case" << std::setw(22) << "variant" << std::right
      << std::setw(11) << "gpu_us" << std::setw(12) << "MB" << std::setw(9) << "GB/s" << std::setw(10) << "copyGB/s"
      << std::setw(8) << "%copy" << std::setw(9) << "xEmpty" << "\n";
  for (const auto& r : run.rows) {
    out << std::left << std::setw(kw) << short_kernel(r.kernel) << std::setw(46) << r.name;
    if (!r.error.empty()) {
      out << "skipped: " << r.error << "\n";
      continue;
    }
    out << std::setw(22) << r.variant << std::right << std::setprecision(2) << std::setw(11) << r.gpu_ns / 1e3
        << std::setw(12) << r.bytes / 1e6 << std::setprecision(1) << std::setw(9) << r.gbps() << std::setw(10)
        << r.copy_gbps() << std::setw(8) << r.pct_of_copy() << std::setprecision(2) << std::setw(9) << r.x_empty()
        << "\n";
  }
  bool one_pass = false;
  for (const auto& r : run.rows) one_pass = one_pass || (r.error.empty() && r.one_pass > 0);
  if (one_pass) {
    out << "\none pass (N calls back to back in one compute pass, timestamps at its begin and end; per call):\n"
        << std::left << std::setw(kw) << "kernel" << std::setw(46) << "case" << std::right << std::setw(6) << "N"
        << std::setw(11) << "gpu_us" << std::setw(11) << "copy_us" << std::setw(8) << "%copy" << "\n";
    for (const auto& r : run.rows) {
      if (!r.error.empty() || r.one_pass == 0) continue;
      out << std::left << std::setw(kw) << short_kernel(r.kernel) << std::setw(46) << r.name << std::right
          << std::setw(6) << r.one_pass << std::setprecision(2) << std::setw(11) << r.one_pass_ns / 1e3 << std::setw(11)
          << r.copy_one_pass_ns / 1e3 << std::setprecision(1) << std::setw(8) << r.one_pass_pct_of_copy() << "\n";
    }
  }
  bool batched = false;
  for (const auto& r : run.rows) batched = batched || (r.error.empty() && r.batch > 0);
  if (!batched) return;
  out << "\nbatched calls (N calls back to back; kernel_us: one call's kernel-only time, as above):\n"
      << std::left << std::setw(kw) << "kernel" << std::setw(46) << "case" << std::right << std::setw(5) << "N"
      << std::setw(11) << "kernel_us" << std::setw(12) << "N*kernel" << std::setw(12) << "1submit_us" << std::setw(9)
      << "xKernels" << std::setw(13) << "Nsubmits_us" << std::setw(14) << "host_us/call" << std::setw(17)
      << "batched_us/call" << "\n";
  for (const auto& r : run.rows) {
    if (!r.error.empty() || r.batch == 0) continue;
    out << std::left << std::setw(kw) << short_kernel(r.kernel) << std::setw(46) << r.name << std::right << std::setw(5)
        << r.batch << std::setprecision(2) << std::setw(11) << r.gpu_ns / 1e3 << std::setw(12) << r.batch * r.gpu_ns / 1e3
        << std::setw(12) << r.batch_gpu_ns / 1e3 << std::setw(9) << r.batch_x_kernels() << std::setw(13)
        << r.submits_gpu_ns / 1e3 << std::setw(14) << r.host_call_ns / 1e3 << std::setw(17) << r.host_batched_ns / 1e3
        << "\n";
  }
}

void write_json(const std::string& path, const BenchRun& run) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : run.rows) {
    nlohmann::json j = {{"kernel", r.kernel}, {"case", r.name}, {"dtype", r.dtype}, {"tags", r.tags}};
    if (!r.error.empty()) {
      j["error"] = r.error;
    } else {
      j.update({{"variant", r.variant},
                {"gpu_ns", r.gpu_ns},
                {"median_ns", r.median_ns},
                {"span_mean_ns", r.span_mean_ns},
                {"timer_resolution_ns", r.resolution_ns},
                {"iterations", r.iterations},
                {"bytes", r.bytes},
                {"gbps", r.gbps()},
                {"copy_bytes", 2 * r.x_bytes},
                {"copy_ns", r.copy_ns},
                {"copy_gbps", r.copy_gbps()},
                {"pct_of_copy", r.pct_of_copy()},
                {"x_empty_dispatch", r.x_empty()}});
      if (r.batch > 0)
        j["batch"] = {{"calls", r.batch},
                      {"one_submit_gpu_ns", r.batch_gpu_ns},
                      {"submits_gpu_ns", r.submits_gpu_ns},
                      {"x_kernel_only", r.batch_x_kernels()},
                      {"host_ns_per_call", r.host_call_ns},
                      {"host_ns_per_batched_call", r.host_batched_ns}};
      if (r.one_pass > 0)
        j["one_pass"] = {{"calls", r.one_pass},
                         {"gpu_ns_per_call", r.one_pass_ns},
                         {"copy_ns_per_call", r.copy_one_pass_ns},
                         {"pct_of_copy", r.one_pass_pct_of_copy()}};
    }
    rows.push_back(std::move(j));
  }
  open_out(path) << nlohmann::json{{"adapter", run.adapter}, {"empty_dispatch_ns", run.empty_ns}, {"tunables", run.tunables}, {"cases", rows}}.dump(1)
                 << "\n";
}

void write_csv(const std::string& path, const BenchRun& run) {
  auto f = open_out(path);
  f << "kernel,case,dtype,variant,gpu_ns,bytes,gbps,copy_gbps,pct_of_copy,empty_ns,x_empty_dispatch,error\n";
  for (const auto& r : run.rows)
    f << r.kernel << "," << r.name << "," << r.dtype << "," << r.variant << "," << r.gpu_ns << "," << r.bytes << ","
      << r.gbps() << "," << r.copy_gbps() << "," << r.pct_of_copy() << "," << r.empty_ns << "," << r.x_empty() << ",\""
      << r.error << "\"\n";
}

bool write_plot(const std::string& svg_path, const BenchRun& run, std::string& why) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    why = "gnuplot is not installed (Debian package gnuplot-nox); no plot written";
    return false;
  }
  // One data block per series: "<kernel> <variant> <dtype>", and the copy baseline.
  std::map<std::string, std::vector<std::pair<double, double>>> series;
  for (const auto& r : run.rows) {
    if (!r.error.empty() || r.gpu_ns <= 0) continue;
    series[short_kernel(r.kernel) + " " + r.variant + " " + r.dtype].emplace_back(r.bytes / 1e6, r.gbps());
    series["vec4 copy (same run)"].emplace_back(2.0 * r.x_bytes / 1e6, r.copy_gbps());
  }
  if (series.empty()) {
    why = "no case ran; no plot written";
    return false;
  }
  const auto dir = std::filesystem::temp_directory_path() / ("wgk-bench-plot-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ostringstream script;
  script << "set terminal svg size 1000,620 dynamic font 'sans,11'\nset output '" << svg_path << "'\n"
         << "set title 'RotaryEmbedding: effective bandwidth on " << run.adapter.substr(0, run.adapter.find(" (")) << "'\n"
         << "set logscale x\nset xlabel 'bytes moved per call (MB)'\nset ylabel 'GB/s'\nset key outside right\n"
         << "set grid\nplot ";
  int i = 0;
  for (auto& [name, points] : series) {
    std::sort(points.begin(), points.end());
    const auto data = dir / ("s" + std::to_string(i) + ".dat");
    auto f = open_out(data.string());
    for (const auto& [mb, gbps] : points) f << mb << " " << gbps << "\n";
    std::string title = name;
    for (auto& c : title)
      if (c == '_') c = '-';  // gnuplot's enhanced text would subscript
    script << (i ? ", " : "") << "'" << data.string() << "' using 1:2 with linespoints title '" << title << "'"
           << (name.rfind("vec4 copy", 0) == 0 ? " dt 2 lc rgb 'black'" : "");
    ++i;
  }
  script << "\n";
  const auto gp = dir / "plot.gp";
  open_out(gp.string()) << script.str();
  const int rc = std::system(("gnuplot '" + gp.string() + "'").c_str());
  std::filesystem::remove_all(dir);
  if (rc != 0) {
    why = "gnuplot failed (exit " + std::to_string(rc) + ")";
    return false;
  }
  return true;
}

}  // namespace wgk::cli
