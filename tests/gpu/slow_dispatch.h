#pragma once
// A dispatch that takes tens of milliseconds on lavapipe: 16 workgroups of 64 invocations, each spinning
// 200,000 steps of the LCG acc = acc * 1664525 + 1013904223 (uint32) from acc = its invocation index, so
// ~2e8 steps in all; y[i] holds invocation i's result (device_test.cpp recomputes element 0 on the host).
// Submitted on construction; a read of `y` right after cannot finish within a nanosecond.
#include <span>

#include "gpu/device.h"

namespace wgk::gpu::testing {

struct SlowDispatch {
  ComputePipeline pipeline;
  Buffer y;
  BindGroup group;

  explicit SlowDispatch(Device& device)
      : pipeline(device.create_compute_pipeline(R"(
@group(0) @binding(0) var<storage, read_write> y : array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id : vec3<u32>) {
  var acc = id.x;
  for (var i = 0u; i < 200000u; i++) { acc = acc * 1664525u + 1013904223u; }
  y[id.x] = acc;
})",
                                                "slow")),
        y(device.create_buffer(4 * 64 * 16, BufferUsage::kStorage)) {
    const BindGroupEntry entries[] = {{0, &y}};
    group = device.create_bind_group(pipeline, entries);
    const Dispatch dispatch{&pipeline, &group, 16, 1, 1};
    device.submit(std::span(&dispatch, 1));
  }
};

}  // namespace wgk::gpu::testing
