#pragma once
// await_callback: the one way this library waits for a Dawn callback (request adapter/device, pop error
// scope, compilation info, map, queue work done). PRIVATE to src/gpu/: it includes <webgpu/webgpu.h>.
#include <webgpu/webgpu.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <tuple>
#include <utility>

#include "gpu/abi.h"

namespace wgk::gpu {

namespace detail {
/// The C callback for a WGPU*CallbackInfo whose callback type is `void (*)(Args..., void* userdata1, void*
/// userdata2)`: takes back the heap-held shared_ptr<Result> from userdata1 and hands the other arguments
/// to a default-constructed `Store` (a captureless lambda).
template <typename Callback>
struct Trampoline;
template <typename... Args>
struct Trampoline<void (*)(Args...)> {
  static_assert(sizeof...(Args) >= 2, "a Dawn callback ends with userdata1, userdata2");
  template <typename Result, typename Store>
  static void call(Args... args) {
    auto all = std::forward_as_tuple(args...);
    constexpr std::size_t n = sizeof...(Args) - 2;
    std::unique_ptr<std::shared_ptr<Result>> owner(static_cast<std::shared_ptr<Result>*>(std::get<n>(all)));
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      Store{}(**owner, std::get<I>(all)...);
    }(std::make_index_sequence<n>{});
  }
};
}  // namespace detail

/// Starts an asynchronous Dawn call with a WaitAnyOnly callback and waits for it. `start(info)` makes the
/// call with the callback info (type `Info`, e.g. WGPUBufferMapCallbackInfo) and returns its WGPUFuture;
/// the callback passes its arguments, less the two userdata, to `store(Result&, args...)` (a captureless
/// lambda). The Result lives on the heap, shared with the callback until it runs, so a callback that fires
/// after a timeout still writes to live memory. Returns the Result. When the wait times out or fails,
/// calls `before_throw()` (e.g. to report a lost device instead) and throws abi::wait_error (kGpu, naming
/// `what`).
template <typename Result, typename Info, typename Start, typename Store, typename BeforeThrow = void (*)()>
Result await_callback(WGPUInstance instance, std::uint64_t timeout_ns, std::string_view what, Start&& start,
                      Store, BeforeThrow before_throw = [] {}) {
  auto result = std::make_shared<Result>();
  Info info{};
  info.mode = WGPUCallbackMode_WaitAnyOnly;
  info.callback = &detail::Trampoline<decltype(info.callback)>::template call<Result, Store>;
  auto box = std::make_unique<std::shared_ptr<Result>>(result);
  info.userdata1 = box.get();
  const WGPUFuture future = std::forward<Start>(start)(info);
  box.release();  // the callback owns it now (Dawn calls every callback once, cancelled ones too)
  if (const WGPUWaitStatus status = abi::wait_any(instance, future, timeout_ns); status != WGPUWaitStatus_Success) {
    before_throw();
    throw abi::wait_error(status, timeout_ns, what);
  }
  return std::move(*result);
}

}  // namespace wgk::gpu
