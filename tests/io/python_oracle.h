#pragma once
// Runs a Python script with Debian's /usr/bin/python3 (which has numpy) as an outside oracle for file formats.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <string>

#include <gtest/gtest.h>

namespace wgk::test {

/// A fresh directory under gtest's temp dir, removed on destruction.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::path(::testing::TempDir()) / ("wgk_io_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::error_code ec; std::filesystem::remove_all(path_, ec); }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& file) const { return path_ / file; }

 private:
  std::filesystem::path path_;
};

/// True when /usr/bin/python3 can import numpy.
inline bool numpy_available() {
  static const bool ok = std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
  return ok;
}

/// Runs `script` (its first line may use `D` = the scratch dir as a string); returns the exit status.
inline int run_python(const ScratchDir& dir, const std::string& script) {
  const auto file = dir / "oracle.py";
  {
    std::ofstream out(file);
    out << "import numpy as np, json, struct, sys\nD = " << std::quoted(dir.path().string()) << "\n" << script << "\n";
  }
  const int status = std::system(("/usr/bin/python3 " + file.string()).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace wgk::test

#define WGK_REQUIRE_NUMPY() \
  if (!::wgk::test::numpy_available()) GTEST_SKIP() << "/usr/bin/python3 with numpy not available"
