#pragma once
// GPU time of kernel calls from WebGPU timestamp queries (feature "timestamp-query"), for `wgk bench`
// and the benchmarks: the call is encoded with timestamp writes around each compute pass, repeated in
// one command buffer per batch, so that uploads, planning and host encoding are not timed.
//
// Timer resolution: Dawn quantizes timestamps unless its "timestamp_quantization" toggle is off;
// `resolution_ns` reports the coarsest power of two dividing every timestamp read, and `span_mean_ns`
// (first begin to last end of a batch, over the calls in it) stays meaningful when single calls are
// shorter than that resolution.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "wgk/kernel.h"

namespace wgk::runtime {

/// Timestamps of repeated calls. Every duration is in nanoseconds of the GPU's clock.
struct Timing {
  std::vector<std::uint64_t> call_ns;  ///< per call: sum over its passes of (end - begin)
  double span_mean_ns = 0;             ///< per call: (last end - first begin) of each batch / calls in it, averaged
  std::uint64_t resolution_ns = 1;     ///< largest power of two (<= 2^30) dividing every timestamp read
  std::uint64_t median_ns() const;     ///< median of call_ns (0 when empty)
};

/// Encodes `call` (the passes of one call, in order) `iterations` times, each pass timestamped, in
/// batches of at most 2048 passes per command buffer (the query set limit of gpu::Device), waits,
/// and reads the timestamps. The caller must hold the device's mutex (DeviceState::mutex) when `gpu`
/// belongs to a wgk::Device. Throws wgk::Error kGpu without timestamp-query, kInvalidArgument for an
/// empty `call`, more than 2048 passes per call, or iterations < 1.
Timing time_dispatches(gpu::Device& gpu, std::span<const gpu::Dispatch> call, int iterations);

/// A timed kernel call.
struct TimedCall {
  std::string variant;  ///< the variant the planner chose
  Outputs outputs;      ///< the outputs (written by every timed repetition)
  Timing timing;
};

/// Encodes one call of `kernel` as Kernel::call does (boundary checks, plan, pipelines, bind groups:
/// not timed), then times `iterations` repetitions of its passes on the same buffers. Inputs must be
/// device tensors (DeviceTensor::upload; int64 position ids uploaded as uint32) so nothing is uploaded
/// per repetition. Errors: kInvalidArgument for a host input, those of Kernel::call, then those of
/// time_dispatches.
TimedCall timed_call(const Kernel& kernel, const Inputs& inputs, const Attributes& attrs, int iterations,
                     const Attributes& tunables = {});

}  // namespace wgk::runtime
