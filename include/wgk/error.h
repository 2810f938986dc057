#pragma once
// wgk::Error: the one exception type the library throws. Its message says what failed, on which
// input or manifest path, with the evaluated operands (docs/style.md: errors are values with context).
// As it travels up, callers add context frames ("loading package ...", "planning ..."), in the manner of
// Dawn's ErrorData::AppendContext; the leaf message stays as first thrown.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wgk {

/// What kind of rule an Error reports; tests and callers branch on it, people read what().
enum class ErrorKind {
  kInvalidArgument,  ///< the caller's inputs or attributes break the contract (host boundary)
  kContract,         ///< a manifest, template or expression is malformed (package author's error)
  kNotFound,         ///< package, version, revision, file or adapter not found
  kIntegrity,        ///< a digest does not match metadata.json or a pinned revision
  kGpu,              ///< Dawn reported an error: validation, device lost, shader compilation, timeout
  kIo,               ///< reading or writing a file failed (.npy, .safetensors, package files)
  kInternal,         ///< a broken invariant of this library
};

/// The exception thrown by every wgk function.
///
/// `what()` is the leaf message, then one line per context frame, innermost first:
///
///     <message>
///       while <frame 1>
///       while <frame 2>
///
/// e.g. "<the template engine's message>\n  while rendering wgk.test.Copy: variant copy, pass main\n  while
/// calling webgpu-kernels/wgk.test.Copy". Without frames, what() == message().
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind), message_(message), what_(message) {}
  ErrorKind kind() const noexcept { return kind_; }
  /// The leaf message: what failed, as it was first thrown.
  const std::string& message() const noexcept { return message_; }
  /// The context frames, innermost first, each without its "while " ("planning variant rotate of ...").
  const std::vector<std::string>& context() const noexcept { return context_; }
  /// Appends a frame (the outermost so far). For `catch (Error& e) { e.add_context(...); throw; }`, which
  /// rethrows the same object with its kind and leaf unchanged.
  Error& add_context(std::string frame) {
    what_ += "\n  while " + frame;
    context_.push_back(std::move(frame));
    return *this;
  }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  ErrorKind kind_;
  std::string message_;
  std::vector<std::string> context_;
  std::string what_;
};

/// Runs `f()`; a wgk::Error it throws gets the frame `frame()` (called only then) and travels on.
template <typename F, typename Frame>
decltype(auto) with_context(F&& f, Frame&& frame) {
  try {
    return std::forward<F>(f)();
  } catch (Error& e) {
    e.add_context(std::forward<Frame>(frame)());
    throw;
  }
}

}  // namespace wgk
