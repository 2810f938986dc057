#pragma once
// wgk::introspect: what this repository's tools (tools/wgk, bench/, tests/) read from the runtime beyond
// the public API of wgk/kernel.h. The one door from those tools into the state behind the handles.
//
// Not installed (cmake/install.cmake) and not a stable API: an application needs none of it, and it
// changes with the runtime. Cache statistics are public (Device::cache_stats()). Sections: package files;
// GPU timings; device-tensor views
// and their recorded value ranges (tests); the contract, device capabilities and WGSL compilation (for
// the planner's choices and rendered WGSL under other capabilities); the runtime state itself.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wgk/kernel.h"
#include "wgk/tensor.h"

namespace wgk::contract {
struct Contract;
}  // namespace wgk::contract
namespace wgk::plan {
struct DeviceCaps;
}  // namespace wgk::plan
namespace wgk::store {
struct Package;
}  // namespace wgk::store
namespace wgk::runtime {
struct DeviceState;
struct KernelState;
}  // namespace wgk::runtime

namespace wgk::introspect {

// ---- Package files ------------------------------------------------------------------------------

/// The verified package `kernel` was loaded from (files, origin: "embedded" or the folder it was read from).
const std::shared_ptr<const store::Package>& package(const Kernel& kernel);
/// The bytes of `name` under the kernel's package folder build/webgpu/ ("test.json", "bench.json",
/// "manifest.json"), as verified at load. Throws wgk::Error kNotFound when the package has no such file.
const std::string& package_file(const Kernel& kernel, std::string_view name);

// ---- GPU timings (timestamp queries; `wgk bench`, bench_host) -----------------------------------

/// Timestamps of repeated calls. Every duration is in nanoseconds of the GPU's clock.
/// Dawn quantizes timestamps unless its "timestamp_quantization" toggle is off: `resolution_ns` is the
/// coarsest power of two dividing every timestamp read, and `span_mean_ns` (first begin to last end of a
/// batch, over the calls in it) stays meaningful when single calls are shorter than that resolution.
struct Timing {
  std::vector<std::uint64_t> call_ns;  ///< per call: sum over its passes of (end - begin)
  double span_mean_ns = 0;             ///< per call: (last end - first begin) of each batch / calls in it, averaged
  std::uint64_t resolution_ns = 1;     ///< largest power of two (<= 2^30) dividing every timestamp read
  std::uint64_t median_ns() const;     ///< median of call_ns (0 when empty)
};

/// A timed kernel call.
struct TimedCall {
  std::string variant;  ///< the variant the planner chose
  Outputs outputs;      ///< the outputs (written by every timed repetition)
  Timing timing;
  /// With one_pass_repeats N > 0: GPU time per call of N repetitions encoded back to back in one compute
  /// pass, timestamps at its begin and end only (the method of CUDA events around back-to-back launches).
  double one_pass_ns = 0;
};

/// Encodes one call of `kernel` as Kernel::call does (boundary checks, plan, pipelines, bind groups:
/// not timed), then times `iterations` repetitions of its passes on the same buffers, each pass
/// timestamped, in batches of at most 2048 passes per command buffer. Inputs must be device tensors
/// (DeviceTensor::upload; int64 position ids uploaded as uint32) so nothing is uploaded per repetition.
/// With `one_pass_repeats` N > 0 it also fills TimedCall::one_pass_ns (N repetitions in one pass, median
/// of 5 submits). Errors: kInvalidArgument for a host input, more than 2048 passes per call, iterations < 1 or
/// more than 65,536 dispatches in the one pass; those of Kernel::call; kGpu without the adapter feature
/// "timestamp-query".
TimedCall timed_call(const Kernel& kernel, const Inputs& inputs, const Attributes& attrs, int iterations,
                     const Attributes& tunables = {}, int one_pass_repeats = 0);

/// Flushes `batch` (Batch::flush) with timestamps at the beginning and the end of its one compute pass, waits for the GPU and returns the nanoseconds between them: the GPU time of the whole submit.
/// Errors: kInvalidArgument when the batch has nothing to run; kGpu without "timestamp-query"; Batch::flush's.
std::uint64_t timed_flush(Batch& batch);

/// GPU time, first pass's beginning to last pass's end, of `calls` calls of `kernel` on `inputs` made back
/// to back: recorded in one Batch and flushed (one command buffer) when `batched`, else each submitted on
/// its own as Kernel::call does (timestamps in the first and the last submit only). Inputs must be device
/// tensors, as for timed_call. Waits for the GPU. Errors: timed_call's, and kInvalidArgument for calls < 1.
std::uint64_t time_submits(const Kernel& kernel, const Inputs& inputs, const Attributes& attrs, int calls, bool batched,
                           const Attributes& tunables = {});

// ---- Device-tensor views and value ranges (tests) -----------------------------------------------

/// `tensor`'s buffer seen as `dtype` x `shape` (a prefix of its bytes). Throws wgk::Error kInvalidArgument
/// when `tensor` has no buffer, the shape has a negative dimension, or it needs more bytes than the
/// buffer's tensor holds (a view past them would read padding or another tensor's stale bytes).
DeviceTensor view(const DeviceTensor& tensor, DType dtype, Shape shape);

/// [min, max] of an integer tensor's elements as recorded by its buffer (at upload, or by the first range
/// check that read it back); nullopt when none is recorded or `tensor` has no buffer.
std::optional<std::pair<std::int64_t, std::int64_t>> recorded_range(const DeviceTensor& tensor);
/// Forgets that range, as for ids a GPU kernel wrote: the next range check reads the buffer back.
void forget_range(const DeviceTensor& tensor);

// ---- Contract, capabilities and WGSL, for code built against src/ (contract/contract.h, plan.h) ----

/// The kernel's loaded contract (attribute defaults, variants): `wgk run`, `wgk test`, `wgk validate`.
std::shared_ptr<const contract::Contract> contract(const Kernel& kernel);
/// The device's limits and features as the planner sees them; with a capability changed, a
/// plan::Planner shows which variant another adapter would choose and the WGSL it would render.
const plan::DeviceCaps& caps(const Device& device);
/// Compiles `wgsl` as a compute pipeline on `device` (not cached). Throws wgk::Error kGpu with Dawn's
/// message when it does not compile; `label` names it in that message.
void compile_wgsl(const Device& device, const std::string& wgsl, const std::string& label);

// ---- The runtime state itself (include "runtime/state.h" to use it) -----------------------------

/// The package, contract and planner of `kernel` (bench_host: planning cost).
runtime::KernelState& state(const Kernel& kernel);
/// The gpu::Device, the device mutex and the device cache (the copy and empty-dispatch baselines of
/// `wgk bench`, bench_host).
runtime::DeviceState& state(const Device& device);

}  // namespace wgk::introspect
