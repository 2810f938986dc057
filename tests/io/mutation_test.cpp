// Bad input never crashes: valid .npy and .safetensors files with random bytes overwritten either decode or
// throw wgk::Error (kIo). Run under WGK_SANITIZE=ON to check that no read goes out of bounds.
#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "io/npy.h"
#include "io/safetensors.h"
#include "wgk/error.h"

namespace wgk::io {
namespace {

template <typename Decode>
void mutate_and_decode(const std::vector<std::byte>& valid, std::size_t header_bytes, Decode decode) {
  std::mt19937 rng(12345);  // fixed seed: the same mutations every run
  const char* printable = "{}[]():,'\\\" 0123456789-eE.FITLUabcdefhilnoprstuy<>|";
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::byte> bytes = valid;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % std::min(bytes.size(), header_bytes);  // mostly the preamble and header
      bytes[at] = rng() % 2 ? static_cast<std::byte>(printable[rng() % std::strlen(printable)]) : static_cast<std::byte>(rng() & 0xff);
    }
    if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    try {
      decode(bytes);
    } catch (const Error& e) {
      ASSERT_EQ(e.kind(), ErrorKind::kIo) << e.what();
    }
  }
}

TEST(Mutation, NpyDecodeNeverCrashes) {
  const auto valid = encode_npy(HostTensor::from<std::int64_t>(DType::kInt64, {2, 3}, {1, 2, 3, 4, 5, 6}));
  mutate_and_decode(valid, valid.size() - 48, [](const std::vector<std::byte>& b) { decode_npy(b, "m.npy"); });
}

TEST(Mutation, SafetensorsDecodeNeverCrashes) {
  std::map<std::string, HostTensor> m;
  m.emplace("a", HostTensor::from<float>(DType::kFloat32, {2, 2}, {1, 2, 3, 4}));
  m.emplace("b", HostTensor::from<std::uint16_t>(DType::kFloat16, {3}, {1, 2, 3}));
  const auto valid = encode_safetensors(m, {{"k", "v"}});
  mutate_and_decode(valid, valid.size() - 22, [](const std::vector<std::byte>& b) { decode_safetensors(b, "m.safetensors"); });
}

}  // namespace
}  // namespace wgk::io
