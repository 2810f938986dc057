// The padding rules of src/core/buffer_sizes.h, from the WebGPU and WGSL specs (values by hand).
#include <gtest/gtest.h>

#include "core/buffer_sizes.h"

namespace wgk {
namespace {

TEST(BufferSizes, PaddingRules) {
  // WebGPU COPY_BUFFER_ALIGNMENT = 4: whole words.
  EXPECT_EQ(copy_size(0), 0u);
  EXPECT_EQ(copy_size(1), 4u);
  EXPECT_EQ(copy_size(6), 8u);  // a float16 tensor of 3 elements
  EXPECT_EQ(copy_size(8), 8u);
  EXPECT_EQ(round_down(7, kCopyBufferAlignment), 4u);
  // Storage: a multiple of 16, at least 16.
  EXPECT_EQ(storage_buffer_size(0), 16u);
  EXPECT_EQ(storage_buffer_size(17), 32u);
  EXPECT_EQ(storage_buffer_size(48), 48u);
  // Uniform structs: SizeOf 12 -> 16, 20 -> 32, 0 -> 16.
  EXPECT_EQ(uniform_buffer_size(12), 16u);
  EXPECT_EQ(uniform_buffer_size(20), 32u);
  EXPECT_EQ(uniform_buffer_size(0), 16u);
}

}  // namespace
}  // namespace wgk
