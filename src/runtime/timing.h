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

/// GPU time per call, in ns, of `repeats` copies of `call` encoded back to back in ONE compute pass
/// (gpu::Layout::kOnePass: WebGPU orders each dispatch after the writes of the one before it), with
/// timestamps at that pass's begin and end only: (end - begin) / repeats, the median of `rounds` submits.
/// This is how CUDA events around back-to-back launches time a kernel (bench/peers/torch_copy.py), so
/// a fixed cost per pass (pass begin and end, timestamp writes) is paid once per `repeats` calls rather
/// than once per call as in time_dispatches. Caller holds the device mutex. Throws wgk::Error kGpu without
/// timestamp-query, kInvalidArgument for an empty `call`, repeats or rounds < 1, or more than 65,536
/// dispatches per submit.
double time_one_pass(gpu::Device& gpu, std::span<const gpu::Dispatch> call, int repeats, int rounds = 5);

}  // namespace wgk::runtime
