#pragma once
// The library's version: project(webgpu_kernels VERSION x.y.z) of the CMakeLists.txt it was built from.
#include <string_view>

namespace wgk {

/// "major.minor.patch", e.g. "0.1.0"; the same string as `wgk --version` and the CMake package version
/// (find_package(wgk 0.1 CONFIG)) and pkg-config's `--modversion wgk`.
std::string_view version();

}  // namespace wgk
