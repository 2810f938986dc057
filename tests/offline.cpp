// Linked into every test binary: no test reaches the Hub (or any address but the loopback ones its own
// fixtures start). HF_HUB_OFFLINE=1 makes the store answer from caches and the embedded packages
// (docs/hub.md); the Hub tests that fetch from their loopback server clear it for themselves.
#include <cstdlib>

namespace {
const bool kOffline = [] { return ::setenv("HF_HUB_OFFLINE", "1", /*overwrite=*/0) == 0; }();
}  // namespace
