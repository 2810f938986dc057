#pragma once
// wgk::Error: the one exception type the library throws. Its message says what failed, on which
// input or manifest path, with the evaluated operands (docs/style.md: errors are values with context).
#include <stdexcept>
#include <string>

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

/// The exception thrown by every wgk function. `what()` is the full, human-readable message.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace wgk
