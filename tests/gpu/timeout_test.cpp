// The timeout of waits for GPU work is a device option (wgk::DeviceOptions::gpu_timeout, carried into
// gpu::DeviceOptions::timeout): it reaches the device, it must be > 0, and a wait past it is a kGpu error
// naming the operation, the timeout and the option.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "gpu/device.h"
#include "slow_dispatch.h"
#include "wgk/error.h"
#include "wgk/kernel.h"

namespace wgk::gpu {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

wgk::DeviceOptions with_gpu_timeout(std::chrono::nanoseconds timeout) {
  wgk::DeviceOptions options;
  options.gpu_timeout = timeout;
  return options;
}

DeviceOptions with_timeout(Timeout timeout) {
  DeviceOptions options;
  options.timeout = timeout;
  return options;
}

TEST(DeviceTimeout, OptionReachesTheDevice) {
  EXPECT_EQ(wgk::DeviceOptions{}.gpu_timeout, 10s);  // the documented default
  EXPECT_EQ(wgk::Device::create(with_gpu_timeout(250ms))->gpu_timeout(), 250ms);
  EXPECT_EQ(Device(with_timeout(3s)).timeout(), 3s);
}

TEST(DeviceTimeout, MustBePositive) {
  for (const auto timeout : {0ns, -1ns}) {
    try {
      wgk::Device::create(with_gpu_timeout(timeout));
      ADD_FAILURE() << "a timeout of " << timeout.count() << " ns was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
      EXPECT_THAT(e.what(), HasSubstr("timeout must be > 0, got " + std::to_string(timeout.count()) +
                                      " ns (wgk::DeviceOptions::gpu_timeout; wgk --gpu-timeout-s)"));
    }
  }
}

// A device whose waits may take 1 ns: a read-back of a dispatch that spins ~2e8 LCG steps (tens of ms on
// lavapipe, far past 1 ns) times out through the device's timeout, with no timeout passed to read.
TEST(DeviceTimeout, ReadPastTheDeviceTimeoutIsAGpuError) {
  Device device(with_timeout(1ns));
  wgk::gpu::testing::SlowDispatch slow(device);
  const Buffer& y = slow.y;
  std::vector<std::byte> out(16);
  try {
    device.read(y, 0, out);
    ADD_FAILURE() << "a read of a ~2e8-step dispatch finished within 1 ns";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kGpu);
    EXPECT_THAT(e.what(), HasSubstr("gpu: timed out after 1 ns waiting for read back of 16 bytes "
                                    "(wgk::DeviceOptions::gpu_timeout; wgk --gpu-timeout-s)"));
  }
  EXPECT_NO_THROW(device.wait(30s));  // an explicit timeout overrides the device's
}

}  // namespace
}  // namespace wgk::gpu
