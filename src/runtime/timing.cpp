// Timestamped repetitions of a kernel call's passes (see timing.h).
#include "runtime/timing.h"

#include <algorithm>
#include <bit>
#include <map>
#include <mutex>

#include "runtime/state.h"
#include "wgk/error.h"

std::uint64_t wgk::introspect::Timing::median_ns() const {
  if (call_ns.empty()) return 0;
  std::vector<std::uint64_t> sorted = call_ns;
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  return sorted[sorted.size() / 2];
}

namespace wgk::runtime {

Timing time_dispatches(gpu::Device& gpu, std::span<const gpu::Dispatch> call, int iterations) {
  constexpr std::size_t kMaxPasses = 2048;  // gpu::Device::create_timestamp_query's limit
  if (call.empty()) throw Error(ErrorKind::kInvalidArgument, "time_dispatches: a call with no passes");
  if (call.size() > kMaxPasses)
    throw Error(ErrorKind::kInvalidArgument,
                "time_dispatches: " + std::to_string(call.size()) + " passes per call exceed " + std::to_string(kMaxPasses));
  if (iterations < 1)
    throw Error(ErrorKind::kInvalidArgument, "time_dispatches: iterations " + std::to_string(iterations) + " < 1");

  const std::size_t calls_per_batch = std::min<std::size_t>(kMaxPasses / call.size(), static_cast<std::size_t>(iterations));
  gpu::TimestampQuery query = gpu.create_timestamp_query(static_cast<std::uint32_t>(calls_per_batch * call.size()));
  Timing timing;
  timing.call_ns.reserve(static_cast<std::size_t>(iterations));
  std::uint64_t all_bits = 0;  // OR of every timestamp: its trailing zeros give the resolution
  double span_sum = 0;
  int batches = 0;
  std::vector<gpu::Dispatch> batch;
  for (int done = 0; done < iterations;) {
    const std::size_t calls = std::min<std::size_t>(calls_per_batch, static_cast<std::size_t>(iterations - done));
    batch.clear();
    for (std::size_t c = 0; c < calls; ++c) batch.insert(batch.end(), call.begin(), call.end());
    gpu.submit(batch, &query);
    const std::vector<std::uint64_t> t = gpu.read_timestamps(query);
    for (std::size_t i = 0; i < 2 * batch.size() && i < t.size(); ++i) all_bits |= t[i];
    for (std::size_t c = 0; c < calls; ++c) {
      std::uint64_t ns = 0;
      for (std::size_t p = 0; p < call.size(); ++p) {
        const std::size_t q = 2 * (c * call.size() + p);
        ns += t[q + 1] >= t[q] ? t[q + 1] - t[q] : 0;
      }
      timing.call_ns.push_back(ns);
    }
    const std::uint64_t first = t[0], last = t[2 * batch.size() - 1];
    span_sum += last >= first ? static_cast<double>(last - first) / static_cast<double>(calls) : 0.0;
    ++batches;
    done += static_cast<int>(calls);
  }
  timing.span_mean_ns = span_sum / batches;
  timing.resolution_ns = all_bits == 0 ? 1 : std::uint64_t{1} << std::min(30, std::countr_zero(all_bits));
  return timing;
}

double time_one_pass(gpu::Device& gpu, std::span<const gpu::Dispatch> call, int repeats, int rounds) {
  constexpr std::size_t kMaxDispatches = 65536;
  if (call.empty()) throw Error(ErrorKind::kInvalidArgument, "time_one_pass: a call with no passes");
  if (repeats < 1 || rounds < 1)
    throw Error(ErrorKind::kInvalidArgument, "time_one_pass: repeats " + std::to_string(repeats) + " and rounds " +
                                                 std::to_string(rounds) + " must be >= 1");
  if (call.size() * static_cast<std::size_t>(repeats) > kMaxDispatches)
    throw Error(ErrorKind::kInvalidArgument, "time_one_pass: " + std::to_string(call.size()) + " passes x " +
                                                 std::to_string(repeats) + " repeats exceed " +
                                                 std::to_string(kMaxDispatches) + " dispatches per submit");
  std::vector<gpu::Dispatch> pass;
  pass.reserve(call.size() * static_cast<std::size_t>(repeats));
  for (int r = 0; r < repeats; ++r) pass.insert(pass.end(), call.begin(), call.end());
  gpu::TimestampQuery query = gpu.create_timestamp_query(1);
  std::vector<double> per_call;
  for (int r = 0; r < rounds; ++r) {
    gpu.submit(pass, &query, /*validate=*/false, gpu::Layout::kOnePass);
    const std::vector<std::uint64_t> t = gpu.read_timestamps(query);
    per_call.push_back(t[1] >= t[0] ? static_cast<double>(t[1] - t[0]) / repeats : 0.0);
  }
  std::nth_element(per_call.begin(), per_call.begin() + per_call.size() / 2, per_call.end());
  return per_call[per_call.size() / 2];
}

}  // namespace wgk::runtime

namespace wgk::introspect {

TimedCall timed_call(const Kernel& kernel, const Inputs& inputs, const Attributes& attrs, int iterations,
                     const Attributes& tunables, int one_pass_repeats) {
  using namespace runtime;
  for (const auto& [name, arg] : inputs)
    if (!arg.device())
      throw Error(ErrorKind::kInvalidArgument, "timed_call: input " + name +
                                                   " is host data; upload it (DeviceTensor::upload) so it is not "
                                                   "re-uploaded per repetition");
  std::unique_lock<std::mutex> lock(state_of(*kernel.device()).mutex, std::defer_lock);
  EncodedCall call = encode_call(state_of(kernel), inputs, attrs, tunables, lock);
  TimedCall result;
  result.variant = call.plan->variant->id;
  result.outputs = call.outputs;
  if (call.dispatches.empty()) return result;  // an empty tensor: nothing runs
  result.timing = time_dispatches(state_of(*kernel.device()).gpu, call.dispatches, iterations);
  if (one_pass_repeats > 0)
    result.one_pass_ns = time_one_pass(state_of(*kernel.device()).gpu, call.dispatches, one_pass_repeats);
  return result;
}

}  // namespace wgk::introspect

namespace wgk::introspect {

std::uint64_t timed_flush(Batch& batch) {
  using namespace runtime;
  BatchState& b = state_of_batch(batch);
  DeviceState& device = state_of(*batch.device());
  std::lock_guard batch_lock(b.mutex);
  if (b.dispatches.empty())
    throw Error(ErrorKind::kInvalidArgument, "timed_flush: the batch has no pass to run (" +
                                                 std::to_string(b.calls.size()) + " calls recorded)");
  gpu::TimestampQuery query;
  {
    std::lock_guard lock(device.mutex);
    query = device.gpu.create_timestamp_query(1);
  }
  flush_batch(b, device, &query);
  std::lock_guard lock(device.mutex);
  const std::vector<std::uint64_t> t = device.gpu.read_timestamps(query);
  return t[1] >= t[0] ? t[1] - t[0] : 0;
}

std::uint64_t time_submits(const Kernel& kernel, const Inputs& inputs, const Attributes& attrs, int calls, bool batched,
                           const Attributes& tunables) {
  using namespace runtime;
  if (calls < 1) throw Error(ErrorKind::kInvalidArgument, "time_submits: calls " + std::to_string(calls) + " < 1");
  for (const auto& [name, arg] : inputs)
    if (!arg.device())
      throw Error(ErrorKind::kInvalidArgument, "time_submits: input " + name + " is host data; upload it (DeviceTensor::upload)");
  if (batched) {
    Batch batch(kernel.device());
    for (int c = 0; c < calls; ++c) batch.record(kernel, inputs, attrs, tunables);
    return timed_flush(batch);
  }
  DeviceState& device = state_of(*kernel.device());
  gpu::TimestampQuery first, last;
  {
    std::lock_guard lock(device.mutex);
    first = device.gpu.create_timestamp_query(1);
    last = device.gpu.create_timestamp_query(1);
  }
  for (int c = 0; c < calls; ++c) {
    std::unique_lock<std::mutex> lock(device.mutex, std::defer_lock);
    EncodedCall call = encode_call(state_of(kernel), inputs, attrs, tunables, lock);
    if (call.dispatches.empty()) throw Error(ErrorKind::kInvalidArgument, "time_submits: the call has no pass to run");
    gpu::TimestampQuery* query = c == 0 ? &first : c == calls - 1 ? &last : nullptr;
    device.gpu.submit(call.dispatches, query, /*validate=*/false, gpu::Layout::kPassEachSpan);
  }
  std::lock_guard lock(device.mutex);
  const std::vector<std::uint64_t> a = device.gpu.read_timestamps(first);
  const std::vector<std::uint64_t> b = device.gpu.read_timestamps(calls == 1 ? first : last);
  return b[1] >= a[0] ? b[1] - a[0] : 0;
}

}  // namespace wgk::introspect
