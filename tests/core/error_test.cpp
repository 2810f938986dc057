// wgk::Error's context frames (include/wgk/error.h): the format of what(), the leaf kept as thrown, and
// with_context. The expected texts are written out here from the format the header documents.
#include "wgk/error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wgk {
namespace {

TEST(Error, WithoutFramesWhatIsTheMessage) {
  const Error e(ErrorKind::kNotFound, "no such package");
  EXPECT_STREQ(e.what(), "no such package");
  EXPECT_EQ(e.message(), "no such package");
  EXPECT_TRUE(e.context().empty());
}

TEST(Error, FramesFollowTheLeafInnermostFirst) {
  Error e(ErrorKind::kContract, "copy.wgsl.jinja:3: range() of 65536 items");
  e.add_context("rendering wgk.test.Copy: variant copy, pass main").add_context("calling webgpu-kernels/wgk.test.Copy");
  EXPECT_STREQ(e.what(),
               "copy.wgsl.jinja:3: range() of 65536 items\n"
               "  while rendering wgk.test.Copy: variant copy, pass main\n"
               "  while calling webgpu-kernels/wgk.test.Copy");
  EXPECT_EQ(e.message(), "copy.wgsl.jinja:3: range() of 65536 items");
  EXPECT_EQ(e.context(), (std::vector<std::string>{"rendering wgk.test.Copy: variant copy, pass main",
                                                   "calling webgpu-kernels/wgk.test.Copy"}));
  EXPECT_EQ(e.kind(), ErrorKind::kContract);
}

TEST(Error, WithContextAddsAFrameOnlyOnError) {
  int frames_made = 0;
  auto frame = [&] {
    ++frames_made;
    return std::string("loading package p");
  };
  EXPECT_EQ(with_context([] { return 7; }, frame), 7);
  EXPECT_EQ(frames_made, 0);  // the frame text is built only for an error
  try {
    with_context([]() -> int { throw Error(ErrorKind::kIntegrity, "sha256 mismatch"); }, frame);
    FAIL() << "expected the Error to travel on";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIntegrity);
    EXPECT_EQ(e.message(), "sha256 mismatch");
    EXPECT_EQ(e.context(), std::vector<std::string>{"loading package p"});
    EXPECT_STREQ(e.what(), "sha256 mismatch\n  while loading package p");
  }
  EXPECT_EQ(frames_made, 1);
}

TEST(Error, NestedWithContextStacksFrames) {
  try {
    with_context(
        [] {
          with_context([] { throw Error(ErrorKind::kInvalidArgument, "leaf"); }, [] { return std::string("inner"); });
        },
        [] { return std::string("outer"); });
    FAIL() << "expected an Error";
  } catch (const std::runtime_error& e) {  // still a std::runtime_error for callers that catch those
    EXPECT_STREQ(e.what(), "leaf\n  while inner\n  while outer");
  }
}

}  // namespace
}  // namespace wgk
