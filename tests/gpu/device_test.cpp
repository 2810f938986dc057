// Device behaviour on the adapter Dawn finds (lavapipe here): compute results, errors as wgk::Error, waits.
#include "gpu/device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <vector>

#include "slow_dispatch.h"
#include "wgk/error.h"

namespace wgk::gpu {
namespace {

using ::testing::HasSubstr;

// One device for the tests of this file (the library's default device is wgk::Device::default_device()).
// Never destroyed, as that one: releasing a Dawn device at exit may crash the driver.
Device& device() {
  static Device* shared = new Device();
  return *shared;
}

template <typename T>
std::span<const std::byte> bytes_of(const std::vector<T>& v) {
  return std::as_bytes(std::span(v));
}

// y[i] = x[i] * 2 + i, checked element-wise against the same formula evaluated on the host in double
// (exact for these small integers in f32).
TEST(Device, ComputeKnownResult) {
  constexpr uint32_t n = 1000;  // not a multiple of the workgroup size: the shader bounds-checks
  ComputePipeline pipeline = device().create_compute_pipeline(R"(
@group(0) @binding(0) var<storage, read> x : array<f32>;
@group(0) @binding(1) var<storage, read_write> y : array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id : vec3<u32>) {
  let i = id.x;
  if (i >= arrayLength(&y)) { return; }
  y[i] = x[i] * 2.0 + f32(i);
})",
                                                              "affine");
  std::vector<float> x(n);
  for (uint32_t i = 0; i < n; ++i) x[i] = 0.5f * static_cast<float>(i) - 100.0f;
  Buffer xb = device().create_buffer(4 * n, BufferUsage::kStorage, "x");
  Buffer yb = device().create_buffer(4 * n, BufferUsage::kStorage, "y");
  device().write(xb, 0, bytes_of(x));
  const BindGroupEntry entries[] = {{0, &xb}, {1, &yb}};
  BindGroup group = device().create_bind_group(pipeline, entries);
  const Dispatch dispatch{&pipeline, &group, (n + 63) / 64, 1, 1};
  device().submit(std::span(&dispatch, 1));
  std::vector<float> y(n);
  device().read(yb, 0, std::as_writable_bytes(std::span(y)));
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], static_cast<float>(static_cast<double>(x[i]) * 2 + i)) << "at " << i;
}

// A 2-D dispatch: y[gid.y * 8 + gid.x] = gid.y * 100 + gid.x over 8 x 3 workgroups of size 1.
TEST(Device, DispatchXYZ) {
  ComputePipeline pipeline = device().create_compute_pipeline(R"(
@group(0) @binding(0) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g : vec3<u32>) {
  y[(g.z * 3u + g.y) * 8u + g.x] = g.z * 10000u + g.y * 100u + g.x;
})",
                                                              "xyz");
  Buffer yb = device().create_buffer(4 * 8 * 3 * 2, BufferUsage::kStorage);
  const BindGroupEntry entries[] = {{0, &yb}};
  BindGroup group = device().create_bind_group(pipeline, entries);
  const Dispatch dispatch{&pipeline, &group, 8, 3, 2};
  device().submit(std::span(&dispatch, 1));
  std::vector<uint32_t> y(8 * 3 * 2);
  device().read(yb, 0, std::as_writable_bytes(std::span(y)));
  for (uint32_t z = 0; z < 2; ++z)
    for (uint32_t r = 0; r < 3; ++r)
      for (uint32_t c = 0; c < 8; ++c) EXPECT_EQ(y[(z * 3 + r) * 8 + c], z * 10000 + r * 100 + c);
}

// Dawn's (Tint's) message for an undeclared identifier is "unresolved value 'undefined_name'"; it sits on
// line 3, column 12 (1-based) of this source.
TEST(Device, BrokenShaderNamesLineColumnAndMessage) {
  const char* wgsl = "@group(0) @binding(0) var<storage, read_write> y : array<f32>;\n"
                     "@compute @workgroup_size(1) fn main() {\n"
                     "  y[0] = 1.0 + undefined_name;\n"
                     "}\n";
  try {
    device().create_compute_pipeline(wgsl, "broken");
    FAIL() << "expected a wgk::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kGpu);
    EXPECT_THAT(e.what(), HasSubstr("broken:3:16: error:"));
    EXPECT_THAT(e.what(), HasSubstr("undefined_name"));
    EXPECT_THAT(e.what(), HasSubstr("y[0] = 1.0 + undefined_name;"));  // the quoted source line
  }
}

// A bind group whose range (8 bytes) is smaller than the shader's minimum binding size (a 16-byte
// struct) is rejected by Dawn: a wgk::Error, not a crash, and the device stays usable afterwards.
TEST(Device, BadBindGroupIsAnError) {
  ComputePipeline pipeline = device().create_compute_pipeline(R"(
struct Params { a : vec4<u32> }
@group(0) @binding(0) var<uniform> p : Params;
@group(0) @binding(1) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(1) fn main() { y[0] = p.a.x; })",
                                                              "params");
  Buffer uniform = device().create_buffer(8, BufferUsage::kUniform, "params");
  Buffer y = device().create_buffer(16, BufferUsage::kStorage, "y");
  const BindGroupEntry entries[] = {{0, &uniform}, {1, &y}};
  try {
    device().create_bind_group(pipeline, entries);
    FAIL() << "expected a wgk::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kGpu);
    EXPECT_THAT(e.what(), HasSubstr("params"));
  }
  // Missing binding 1 is an error too.
  const BindGroupEntry only_first[] = {{0, &uniform}};
  EXPECT_THROW(device().create_bind_group(pipeline, only_first), Error);
  // Still usable: a correct group works.
  Buffer good = device().create_buffer(16, BufferUsage::kUniform);
  const BindGroupEntry ok[] = {{0, &good}, {1, &y}};
  EXPECT_NO_THROW(device().create_bind_group(pipeline, ok));
}

// Storage buffer as uniform: a usage error caught by the error scope around the bind group.
TEST(Device, WrongUsageIsAnError) {
  ComputePipeline pipeline = device().create_compute_pipeline(R"(
@group(0) @binding(0) var<uniform> p : vec4<u32>;
@group(0) @binding(1) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(1) fn main() { y[0] = p.x; })",
                                                              "usage");
  // A uniform buffer (UNIFORM | COPY_DST) bound to the storage binding: no STORAGE usage. (Tensor buffers have
  // UNIFORM usage too, so a storage buffer at binding 0 is valid.)
  Buffer uniform = device().create_buffer(16, BufferUsage::kUniform);
  Buffer storage = device().create_buffer(16, BufferUsage::kStorage);
  const BindGroupEntry wrong[] = {{0, &uniform}, {1, &uniform}};
  EXPECT_THROW(device().create_bind_group(pipeline, wrong), Error);
  const BindGroupEntry right[] = {{0, &storage}, {1, &storage}};
  EXPECT_NO_THROW(device().create_bind_group(pipeline, right));
}

// Odd sizes round-trip byte-exactly (the pattern is i * 37 + 11 mod 256, not zero anywhere by chance).
TEST(Device, BufferRoundTripOddSizes) {
  for (uint64_t size : {1u, 3u, 5u, 7u, 13u, 4099u}) {
    std::vector<std::byte> in(size);
    for (uint64_t i = 0; i < size; ++i) in[i] = static_cast<std::byte>((i * 37 + 11) & 0xFF);
    Buffer buffer = device().create_buffer(size, BufferUsage::kStorage);
    device().write(buffer, 0, in);
    EXPECT_EQ(device().read(buffer), in) << "size " << size;
  }
}

// Partial read at an offset, and a copy between buffers.
TEST(Device, OffsetReadAndCopy) {
  std::vector<uint32_t> in(64);
  std::iota(in.begin(), in.end(), 1000u);
  Buffer a = device().create_buffer(4 * 64, BufferUsage::kStorage);
  Buffer b = device().create_buffer(4 * 64, BufferUsage::kStorage);
  device().write(a, 0, bytes_of(in));
  device().copy(a, 16, b, 0, 4 * 8);  // elements 4..11 of a -> 0..7 of b
  std::vector<uint32_t> out(8);
  device().read(b, 0, std::as_writable_bytes(std::span(out)));
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], 1004u + i);
  std::vector<uint32_t> part(3);
  device().read(a, 40, std::as_writable_bytes(std::span(part)));
  EXPECT_EQ(part, (std::vector<uint32_t>{1010, 1011, 1012}));
}

TEST(Device, BadArgumentsAreErrors) {
  Buffer buffer = device().create_buffer(16, BufferUsage::kStorage);
  std::vector<std::byte> too_big(20);
  EXPECT_THROW(device().write(buffer, 0, too_big), Error);
  std::vector<std::byte> odd(3);
  EXPECT_THROW(device().write(buffer, 0, odd), Error);  // odd size not at the end
  EXPECT_THROW(device().write(buffer, 2, std::span(odd).first(2)), Error);  // misaligned offset
  std::vector<std::byte> out(8);
  EXPECT_THROW(device().read(buffer, 12, out), Error);
  EXPECT_THROW(device().create_buffer(0, BufferUsage::kStorage), Error);
  Buffer a = device().create_buffer(16, BufferUsage::kStorage);
  EXPECT_THROW(device().copy(a, 0, buffer, 8, 16), Error);  // out of range: Dawn validation, via error scope
}

// A read-back that cannot finish in 1 ns times out with a kGpu error instead of hanging; the device keeps
// working (the later read waits properly). The shader spins ~2e8 LCG steps in total on lavapipe.
TEST(Device, ReadBackTimeout) {
  wgk::gpu::testing::SlowDispatch slow(device());
  const Buffer& y = slow.y;
  std::vector<std::byte> out(16);
  try {
    device().read(y, 0, out, std::chrono::nanoseconds(1));
    GTEST_SKIP() << "the GPU finished within 1 ns of host time; timeout path not exercised";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kGpu);
    EXPECT_THAT(e.what(), HasSubstr("timed out"));
  }
  EXPECT_NO_THROW(device().wait());
  // Element 0: acc starts at 0; the host recomputes the same 200000 LCG steps in uint32 arithmetic.
  uint32_t acc = 0;
  for (uint32_t i = 0; i < 200000u; ++i) acc = acc * 1664525u + 1013904223u;
  std::vector<uint32_t> first(1);
  device().read(y, 0, std::as_writable_bytes(std::span(first)));
  EXPECT_EQ(first[0], acc);
}

TEST(Device, LimitsByWebGpuName) {
  // Names the runtime asks for; values must agree with WebGPU minimums (see abi_test LimitsSizeAndValues).
  EXPECT_GE(device().limit("maxComputeWorkgroupsPerDimension").value_or(0), 65535u);
  EXPECT_GE(device().limit("maxComputeInvocationsPerWorkgroup").value_or(0), 256u);
  EXPECT_GE(device().limit("maxComputeWorkgroupSizeX").value_or(0), 256u);
  EXPECT_GE(device().limit("maxStorageBufferBindingSize").value_or(0), 128u << 20);
  EXPECT_GE(device().limit("maxBufferSize").value_or(0), 256u << 20);
  EXPECT_FALSE(device().limit("noSuchLimit").has_value());
  // Required limits = the adapter's, not WebGPU defaults: compare with the adapter's own report.
  const auto adapters = list_adapters(Backend::kVulkan);
  ASSERT_FALSE(adapters.empty());
  for (const auto& [name, value] : adapters[0].limits) {
    if (name == "maxBufferSize" || name == "maxStorageBufferBindingSize") {
      EXPECT_EQ(device().limit(name), value) << name;
    }
  }
}

TEST(Device, AdapterInfoAndFeatures) {
  const AdapterInfo& info = device().adapter_info();
  EXPECT_FALSE(info.device.empty());
  EXPECT_FALSE(info.backend.empty());
  RecordProperty("adapter", info.device + " / " + info.backend + " / " + info.adapter_type);
  const Features& f = device().features();
  auto named = [&](const char* n) { return std::find(f.names.begin(), f.names.end(), n) != f.names.end(); };
  EXPECT_EQ(f.shader_f16, named("shader-f16"));
  EXPECT_EQ(f.timestamp_query, named("timestamp-query"));
  EXPECT_EQ(f.subgroups, named("subgroups"));
}

TEST(Device, AdapterChoice) {
  DeviceOptions by_name;
  by_name.use_environment = false;
  by_name.adapter = "no-such-adapter-xyz";
  try {
    Device d(by_name);
    FAIL() << "expected kNotFound";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_THAT(e.what(), HasSubstr("no-such-adapter-xyz"));
  }
  DeviceOptions by_index;
  by_index.use_environment = false;
  by_index.adapter = "0";
  by_index.backend = Backend::kVulkan;
  Device d(by_index);
  EXPECT_EQ(d.adapter_info().backend, "vulkan");
  // The environment fills what the options leave empty (device.h); both sources go through one parser,
  // and its errors name the source.
  setenv("WGK_ADAPTER", "999", 1);
  try {
    Device d{DeviceOptions{}};
    FAIL() << "expected kNotFound for WGK_ADAPTER=999";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_THAT(e.what(), HasSubstr("no adapter with index 999 (WGK_ADAPTER)"));
  }
  DeviceOptions explicit_choice;
  explicit_choice.adapter = "0";
  EXPECT_NO_THROW(Device{explicit_choice});  // the option wins over WGK_ADAPTER=999
  setenv("WGK_ADAPTER", "12345678901234567890", 1);
  try {
    Device d{DeviceOptions{}};
    FAIL() << "expected kNotFound for a 20-digit WGK_ADAPTER";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_THAT(e.what(), HasSubstr("WGK_ADAPTER = 12345678901234567890: no adapter has that index"));
  }
  unsetenv("WGK_ADAPTER");
  DeviceOptions too_long;
  too_long.adapter = "12345678901234567890";
  try {
    Device d{too_long};
    FAIL() << "expected kNotFound for a 20-digit DeviceOptions::adapter";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("DeviceOptions::adapter = 12345678901234567890: no adapter has that index"));
  }
  setenv("WGK_BACKEND", "metalish", 1);
  EXPECT_THROW(Device{DeviceOptions{}}, Error);  // a bad WGK_BACKEND is an error, not ignored
  unsetenv("WGK_BACKEND");
  EXPECT_THROW(parse_backend("metalish"), Error);
  EXPECT_EQ(parse_backend("Vulkan"), Backend::kVulkan);
}

// detail::Object (handles.h) owns one reference: moving transfers the handle itself (same Dawn object) and
// leaves the source empty, so only one owner releases it (a second wgpuBufferRelease of the last reference
// is a use-after-free that the sanitizer build reports).
TEST(Device, ObjectReleasesItsReferenceOnce) {
  static_assert(!std::is_copy_constructible_v<detail::Object<WGPUBufferImpl>>);
  static_assert(std::is_nothrow_move_assignable_v<detail::Object<WGPUBufferImpl>>);
  detail::Object<WGPUBufferImpl> empty;
  EXPECT_FALSE(empty);
  empty.reset();  // no handle: nothing to release
  Buffer a = device().create_buffer(16, BufferUsage::kStorage, "moved");
  const void* id = a.id();
  Buffer b = std::move(a);
  EXPECT_EQ(b.id(), id);
  EXPECT_EQ(a.id(), nullptr);  // NOLINT(bugprone-use-after-move)
  b = Buffer();                // releases the one reference; a second release would crash Dawn
  EXPECT_FALSE(b);
}

TEST(Device, HandlesAreMoveOnly) {
  static_assert(!std::is_copy_constructible_v<Buffer> && std::is_nothrow_move_constructible_v<Buffer>);
  static_assert(!std::is_copy_constructible_v<ComputePipeline> && !std::is_copy_constructible_v<Device>);
  Buffer a = device().create_buffer(4, BufferUsage::kStorage);
  Buffer b = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_TRUE(b);
  EXPECT_EQ(b.size(), 4u);
}

// One compute pass of dispatches whose bind groups repeat (submit sets a bind group only when it differs
// from the one before): each dispatch adds 1 to every element of its group's buffer, so after the groups
// a, a, b, a, b, b, a the buffers hold 4 (a) and 3 (b): counted by hand from the sequence. A rebinding
// dropped after a change of group would leave a = 2 or b = 1; a repeat bound twice still gives these counts.
TEST(Device, OnePassRebinds) {
  const ComputePipeline pipeline = device().create_compute_pipeline(R"(
@group(0) @binding(0) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid : vec3<u32>) {
  if (gid.x < arrayLength(&y)) { y[gid.x] = y[gid.x] + 1u; }
}
)", "add_one");
  constexpr uint32_t n = 100;  // two workgroups, the second partly out of range
  const Buffer a = device().create_buffer(4 * n, BufferUsage::kStorage, "a");
  const Buffer b = device().create_buffer(4 * n, BufferUsage::kStorage, "b");
  const BindGroupEntry entries_a[] = {{0, &a}}, entries_b[] = {{0, &b}};
  const BindGroup group_a = device().create_bind_group(pipeline, entries_a);
  const BindGroup group_b = device().create_bind_group(pipeline, entries_b);
  const Dispatch da{&pipeline, &group_a, 2, 1, 1}, db{&pipeline, &group_b, 2, 1, 1};
  const std::vector<Dispatch> passes = {da, da, db, da, db, db, da};
  device().submit(passes, nullptr, /*validate=*/true, Layout::kOnePass);
  auto values = [](const Buffer& buffer) {
    const std::vector<std::byte> bytes = device().read(buffer);
    std::vector<uint32_t> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  };
  EXPECT_EQ(values(a), std::vector<uint32_t>(n, 4u));
  EXPECT_EQ(values(b), std::vector<uint32_t>(n, 3u));
}

}  // namespace
}  // namespace wgk::gpu
