#pragma once
// The one owner of buffer padding: every size in src/ that is rounded up or padded for WebGPU or for WGSL
// comes from these functions (the buffer pool's size classes on top of them are runtime::allocation_size).
// Sizes are in bytes. Header-only, WGPU-free (the Dawn binding, the runtime and the plan stage all use it).
#include <algorithm>
#include <cstdint>

namespace wgk {

/// WebGPU's COPY_BUFFER_ALIGNMENT (spec, "Buffer Copies"): GPUQueue.writeBuffer, copyBufferToBuffer and
/// a buffer's size under mapping move whole 4-byte words.
inline constexpr std::uint64_t kCopyBufferAlignment = 4;

/// `bytes` rounded up to a multiple of `alignment`, a power of two.
constexpr std::uint64_t round_up(std::uint64_t bytes, std::uint64_t alignment) {
  return (bytes + alignment - 1) & ~(alignment - 1);
}

/// `bytes` rounded down to a multiple of `alignment`, a power of two.
constexpr std::uint64_t round_down(std::uint64_t bytes, std::uint64_t alignment) { return bytes & ~(alignment - 1); }

/// The bytes a buffer of `bytes` is created, written and read back with: whole words (kCopyBufferAlignment).
constexpr std::uint64_t copy_size(std::uint64_t bytes) { return round_up(bytes, kCopyBufferAlignment); }

/// The smallest storage buffer that holds a tensor of `bytes`: a multiple of 16 and at least 16, so a
/// vec4 load (16 bytes) of the last elements stays inside and an empty tensor still has a buffer to bind.
constexpr std::uint64_t storage_buffer_size(std::uint64_t bytes) { return std::max<std::uint64_t>(16, round_up(bytes, 16)); }

/// The buffer of a uniform struct of SizeOf(S) = `struct_bytes`: a multiple of 16 and at least 16, the
/// size S takes in the uniform address space (WGSL spec "Address Space Layout Constraints":
/// RequiredAlignOf(S, uniform) = roundUp(16, AlignOf(S))).
constexpr std::uint64_t uniform_buffer_size(std::uint64_t struct_bytes) {
  return std::max<std::uint64_t>(16, round_up(struct_bytes, 16));
}

}  // namespace wgk
