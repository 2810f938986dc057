#pragma once
// GPU time of dispatches from WebGPU timestamp queries (feature "timestamp-query"), for
// introspect::timed_call, `wgk bench` and the benchmarks: the passes are encoded with timestamp writes
// around each, repeated in one command buffer per batch, so that uploads, planning and host encoding are
// not timed.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "wgk/introspect.h"

namespace wgk::runtime {

/// The timings of wgk/introspect.h (the tools' view of them).
using introspect::Timing;

/// Encodes `call` (the passes of one call, in order) `iterations` times, each pass timestamped, in
/// batches of at most 2048 passes per command buffer (the query set limit of gpu::Device), waits,
/// and reads the timestamps. The caller must hold the device's mutex (DeviceState::mutex) when `gpu`
/// belongs to a wgk::Device. Throws wgk::Error kGpu without timestamp-query, kInvalidArgument for an
/// empty `call`, more than 2048 passes per call, or iterations < 1.
Timing time_dispatches(gpu::Device& gpu, std::span<const gpu::Dispatch> call, int iterations);

}  // namespace wgk::runtime
