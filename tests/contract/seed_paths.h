#pragma once
// Paths of the seed manifests (WGK_SHARED_DIR/seeds: the shared/ folder beside the checkout) and this folder's test data.
#include <fstream>
#include <sstream>
#include <string>

namespace wgk::contract::test {

inline const std::string kCurrentSeed = std::string(WGK_SHARED_DIR) + "/seeds/004_ded27aa6d1102877.manifest.json";
inline const std::string kLegacySeed = std::string(WGK_SHARED_DIR) + "/seeds/000_77f1e8aecd9ac6c6.manifest.json";
inline const std::string kDataDir = std::string(WGK_SOURCE_DIR) + "/tests/contract/data";

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace wgk::contract::test
