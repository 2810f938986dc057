#pragma once
// Progress of long subcommands (diff, bench, validate) on stderr: one live line, rewritten in place, when
// stderr is a terminal; otherwise a plain line at each tenth of the work (logs and CI stay readable).
#include <cstddef>
#include <string>

namespace wgk::cli {

class Progress {
 public:
  /// `what`: the stage ("wgk diff: running wgk"); `total`: the number of steps (0: unknown).
  Progress(std::string what, std::size_t total);
  ~Progress();  ///< ends a live line with a newline
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// `done` steps of `total` finished; `detail` (a case name) is shown on a live line only.
  void update(std::size_t done, const std::string& detail = "");

 private:
  std::string what_;
  std::size_t total_;
  bool live_;
  std::size_t next_plain_ = 0;  ///< the next step count that prints a plain line
  bool shown_ = false;
};

}  // namespace wgk::cli
