#pragma once
// Comma-separated lists of names, as the environment and the command line give them (WGK_DAWN_ENABLE_TOGGLES,
// wgk run --output). Header-only; each caller applies its own rules to the pieces (empty names, spaces).
#include <string>
#include <string_view>
#include <vector>

namespace wgk {

/// The pieces of `text` between commas, in order, empty ones kept: "a,,b" -> {"a", "", "b"}, "a," ->
/// {"a", ""}, "" -> {""}. No trimming.
inline std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    pieces.emplace_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return pieces;
    start = comma + 1;
  }
}

}  // namespace wgk
