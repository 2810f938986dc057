#pragma once
// Same-run baselines for `wgk bench`, on the same adapter as the kernels: a WGSL vec4<u32> copy
// (bytes -> bytes, the roofline a memory-bound elementwise op can reach with WebGPU) and an empty
// dispatch (one workgroup that writes nothing: the floor for decode-sized calls).
#include <cstdint>
#include <memory>

#include "wgk/introspect.h"
#include "wgk/kernel.h"

namespace wgk::cli {

/// Times a copy of `bytes` (a multiple of 16, > 0) from one storage buffer to another: warmup
/// repetitions untimed, then `iterations` timed. Bandwidth counts bytes read + bytes written
/// (2 * bytes). Throws wgk::Error (kGpu: no timestamp-query, allocation above the adapter's limits).
introspect::Timing time_copy(const std::shared_ptr<Device>& device, std::uint64_t bytes, int warmup, int iterations);

/// GPU time per copy of `bytes` (as time_copy) of `repeats` copies back to back in one compute pass
/// (runtime::time_one_pass: the method of CUDA events around back-to-back launches), after `warmup` untimed
/// repetitions. Errors: time_copy's.
double time_copy_one_pass(const std::shared_ptr<Device>& device, std::uint64_t bytes, int warmup, int repeats);

/// Times a dispatch of one workgroup of one invocation that writes nothing.
introspect::Timing time_empty_dispatch(const std::shared_ptr<Device>& device, int warmup, int iterations);

/// Keeps the GPU's queue full of 64 MiB copies for at least `ms` milliseconds of wall time, so that timing
/// starts at the clocks a sustained load gets: on the H200 under Vulkan, nvidia-smi reported the "GPU idle"
/// clock event and 345-540 MHz SM clock through whole `wgk bench` runs, against 1980 MHz under CUDA.
/// Throws wgk::Error (kGpu) from the device.
void spin_up(const std::shared_ptr<Device>& device, int ms);

/// Waits until the device has run everything submitted (not timed by the callers).
void wait_idle(const std::shared_ptr<Device>& device);

/// The duration to report: the median of per-call timestamps when the timer resolves it to 1% (resolution
/// at most a hundredth of the median), else the batch mean (first begin to last end over the calls).
double reported_ns(const introspect::Timing& timing);

}  // namespace wgk::cli
