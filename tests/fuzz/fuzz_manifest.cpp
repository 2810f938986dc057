// libFuzzer target: arbitrary bytes as manifest.json text (a package is untrusted input). The
// loader may only answer with wgk::Error; any other exception, crash, hang or sanitizer report is
// a bug. What loads is also printed (describe.h), which walks every part of the model.
// Build: -DWGK_FUZZ=ON with clang-14; run: see tests/fuzz/fuzz_manifest.cmake
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "contract/contract.h"
#include "contract/describe.h"
#include "wgk/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > (1u << 16)) return 0;  // manifests are a few KiB; larger inputs only slow the search
  try {
    const wgk::contract::Contract contract =
        wgk::contract::load_contract(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    std::ostringstream out;
    wgk::contract::print_contract(contract, out);
  } catch (const wgk::Error&) {
    // A refused manifest: the expected outcome for almost every input.
  }
  return 0;
}
