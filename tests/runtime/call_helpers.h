#pragma once
// Shared helpers for the runtime tests: host tensors with deterministic data, the two bundled
// kernels on the default device, a RoPE decode step, and "this call throws wgk::Error of kind K whose message holds
// every one of these substrings".
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../error_helpers.h"
#include "wgk/error.h"
#include "reference/random.h"
#include "reference/rotary_embedding.h"
#include "wgk/kernel.h"

namespace wgk::testing {

inline constexpr const char* kOnnxId = "webgpu-kernels/ai.onnx.RotaryEmbedding";
inline constexpr const char* kMsId = "webgpu-kernels/com.microsoft.RotaryEmbedding";

/// float32 tensor of `shape` holding 0.25 * ((i % 13) - 6): small exact values, varied per element.
inline HostTensor f32(Shape shape) {
  std::vector<float> v(static_cast<std::size_t>(numel(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.25f * static_cast<float>(static_cast<int>(i % 13) - 6);
  return HostTensor::from(DType::kFloat32, std::move(shape), v);
}
inline HostTensor f32(Shape shape, const std::vector<float>& values) {
  return HostTensor::from(DType::kFloat32, std::move(shape), values);
}
/// float16 tensor of `shape`, all 0.5 (0x3800).
inline HostTensor f16(Shape shape) {
  std::vector<std::uint16_t> v(static_cast<std::size_t>(numel(shape)), 0x3800);
  return HostTensor::from(DType::kFloat16, std::move(shape), v);
}
inline HostTensor i64(Shape shape, const std::vector<std::int64_t>& values) {
  return HostTensor::from(DType::kInt64, std::move(shape), values);
}
/// int64 positions 0, 1, 2, ... wrapping at `rows`.
inline HostTensor positions(Shape shape, std::int64_t rows) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(numel(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i) % rows;
  return i64(std::move(shape), v);
}

/// Random float32 in [-1, 1): varied values, so an index mistake shows as an error of order 1.
inline HostTensor random_f32(Shape shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(numel(shape)));
  for (float& f : v) f = u(rng);
  return HostTensor::from(DType::kFloat32, std::move(shape), v);
}

/// Random values in [-1, 1) of `dtype` (float32 or float16), from `seed`.
inline HostTensor random_of(DType dtype, const Shape& shape, unsigned seed) {
  if (dtype == DType::kFloat32) return random_f32(shape, seed);
  std::mt19937_64 rng(seed);
  return reference::random_float(dtype, shape, rng);
}

/// A decode step of one layer (bench.json's decode_r4_b1_h32x128 at 8 heads): x [1, 8, 1, head] (batch, heads,
/// one token, head size; 128 unless given), caches of 256 rows of `pairs` (rotary_dim / 2; 64 unless given), one
/// position; the caches and the position live on `device`, as a model's do, so consecutive calls share the
/// caches' buffers (a Batch fuses them).
struct Decode {
  explicit Decode(const std::shared_ptr<Device>& device, std::int64_t position = 37, DType dtype = DType::kFloat32,
                  std::int64_t head = 128, std::int64_t pairs = 64)
      : dtype(dtype),
        head(head),
        cos_host(random_of(dtype, {256, pairs}, 21)),
        sin_host(random_of(dtype, {256, pairs}, 22)),
        pos_host(i64({1, 1}, {position})),
        cos(DeviceTensor::upload(cos_host, device)),
        sin(DeviceTensor::upload(sin_host, device)),
        // Device-resident positions are uint32 (the contract's storage: narrowing needs host data).
        pos(DeviceTensor::upload(HostTensor::from(DType::kUInt32, {1, 1}, std::vector<std::uint32_t>{
                                                      static_cast<std::uint32_t>(position)}),
                                 device)) {}
  HostTensor x(unsigned seed) const { return random_of(dtype, {1, 8, 1, head}, seed); }
  Inputs onnx(const TensorArg& x) const { return {{"x", x}, {"cos", cos}, {"sin", sin}, {"positionIds", pos}}; }
  std::vector<double> onnx_ref(const HostTensor& x, const reference::RotaryAttributes& attributes = {}) const {
    return reference::rotary_embedding_onnx(x, cos_host, sin_host, &pos_host, attributes);
  }
  DType dtype;
  std::int64_t head;
  HostTensor cos_host, sin_host, pos_host;
  DeviceTensor cos, sin, pos;
};

/// A new device (the default adapter) whose cache holds at most `bytes`.
inline std::shared_ptr<Device> device_with_budget(std::uint64_t bytes) {
  DeviceOptions options;
  options.cache_budget_bytes = bytes;
  return Device::create(options);
}

inline const Kernel& onnx_kernel() {
  static const Kernel k = get_kernel(kOnnxId, {.version = 1});
  return k;
}
inline const Kernel& ms_kernel() {
  static const Kernel k = get_kernel(kMsId, {.version = 1});
  return k;
}


/// Expects `f` to throw wgk::Error of `kind` whose message contains every string of `parts`
/// (the input or attribute, the rule, the values).
inline void expect_error(const std::function<void()>& f, std::initializer_list<std::string> parts,
                         ErrorKind kind = ErrorKind::kInvalidArgument) {
  const std::string message = error_of(f, kind);
  // WGK_PRINT_ERRORS=1 prints every message, to review their wording.
  if (std::getenv("WGK_PRINT_ERRORS"))
    std::fprintf(stderr, "[%s] %s\n", ::testing::UnitTest::GetInstance()->current_test_info()->name(), message.c_str());
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "message lacks \"" << part << "\": " << message;
}

}  // namespace wgk::testing
