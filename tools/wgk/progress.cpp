#include "progress.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace wgk::cli {

Progress::Progress(std::string what, std::size_t total)
    : what_(std::move(what)), total_(total), live_(::isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (live_ && shown_) std::cerr << "\n" << std::flush;
}

void Progress::update(std::size_t done, const std::string& detail) {
  const std::string count = std::to_string(done) + (total_ ? "/" + std::to_string(total_) : std::string());
  if (live_) {
    std::string line = what_ + " " + count + (detail.empty() ? "" : " " + detail);
    if (line.size() > 100) line.resize(100);
    std::cerr << "\r\033[K" << line << std::flush;  // carriage return, erase to the end of the line
    shown_ = true;
    return;
  }
  if ((done < next_plain_ && done != total_) || (done == 0 && total_ != 0)) return;
  std::cerr << what_ << " " << count << "\n";
  next_plain_ = done + (total_ >= 10 ? total_ / 10 : 1);
}

}  // namespace wgk::cli
