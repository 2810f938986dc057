#pragma once
// "This call throws wgk::Error of kind K whose message holds these substrings", for every test binary.
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>

#include "wgk/error.h"

namespace wgk::testing {

/// The message of the wgk::Error that `f` throws, checked to be of `kind`; fails the test (and
/// returns "") when `f` returns normally or throws something else.
inline std::string error_of(const std::function<void()>& f, ErrorKind kind = ErrorKind::kInvalidArgument) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << "message: " << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-wgk exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no error was thrown";
  return "";
}

/// Expects every string of `parts` in `message`.
inline void expect_has(const std::string& message, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts)
    EXPECT_NE(message.find(part), std::string::npos) << "message lacks \"" << part << "\": " << message;
}

}  // namespace wgk::testing
