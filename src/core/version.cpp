// wgk::version(): WGK_VERSION is defined by src/CMakeLists.txt from PROJECT_VERSION.
#include "wgk/version.h"

namespace wgk {

std::string_view version() { return WGK_VERSION; }

}  // namespace wgk
