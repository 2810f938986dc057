#pragma once
// CPU reference of RotaryEmbedding in double precision, written from the operator specs, not from any WGSL:
// ai.onnx::RotaryEmbedding opset 23 (ONNX Operators.md; semantics of onnx/reference/ops/op_rotary_embedding.py)
// and com.microsoft::RotaryEmbedding (ORT ContribOperators.md; seed card 001).
//
// Per head vector v of head_size elements and cache rows c, s of rotary_dim / 2 elements, for i < rotary_dim / 2:
//   non-interleaved: (a, b) = (v[i], v[i + rotary_dim/2]);  interleaved: (a, b) = (v[2i], v[2i + 1])
//   a' = c[i] * a - s[i] * b,   b' = s[i] * a + c[i] * b   (written back to the same two slots)
// and v[rotary_dim ..] is copied unchanged. Inputs are read exactly (float16 widened), arithmetic is double.
//
// Inputs are validated before any element is read: a violation throws wgk::Error (kInvalidArgument) naming the
// input, the rule and the values. The reference never reads out of bounds.
#include <cstdint>
#include <vector>

#include <optional>
#include <random>
#include <string>

#include "reference/op.h"
#include "wgk/kernel.h"
#include "wgk/tensor.h"

namespace wgk::reference {

/// Attributes of both ops, with their ONNX/ORT names and defaults.
struct RotaryAttributes {
  bool interleaved = false;               ///< pair (2i, 2i+1) instead of (i, i + rotary_dim/2)
  std::int64_t num_heads = 0;             ///< heads of a rank-3 input; 0 = unset
  std::int64_t rotary_embedding_dim = 0;  ///< rotated prefix of each head; 0 = the whole head
  double scale = 1.0;                     ///< com.microsoft only; only 1.0 is accepted (no ORT provider applies it)
};

/// ai.onnx::RotaryEmbedding-23. x: float32/float16, rank 3 (batch, seq, hidden) with num_heads > 0 dividing
/// hidden, or rank 4 (batch, num_heads, seq, head_size) (num_heads attribute not consulted). With position_ids
/// (int64, (batch, seq), each in [0, max_pos)): cos/sin (max_pos, rotary_dim/2). Without: cos/sin
/// (batch, seq, rotary_dim/2). cos/sin have x's dtype. rotary_dim even, <= head_size.
/// Returns the output in double, row-major with x's shape.
std::vector<double> rotary_embedding_onnx(const HostTensor& x, const HostTensor& cos, const HostTensor& sin,
                                          const HostTensor* position_ids, const RotaryAttributes& attributes);

/// com.microsoft::RotaryEmbedding (ORT contrib, since_version 1), inputs in the op's order. x: float32/float16,
/// rank 3 (batch, seq, hidden) or rank 4 (batch, num_heads, seq, head_size). At rank 3 head_size =
/// hidden / num_heads when num_heads > 0, else 2 * cos.shape[1] (then rotary_embedding_dim must be 0).
/// position_ids int64: rank 0 or a one-element rank 1 base offset (token s reads row position_ids[0] + s), or
/// (batch, seq); every row read must be in [0, max_seq). cos/sin (max_seq, rotary_dim/2) of x's dtype;
/// scale must be 1.0 as a float32 (an ONNX FLOAT; ORT reads a float). Returns the output in double, row-major
/// with x's shape.
std::vector<double> rotary_embedding_ms(const HostTensor& x, const HostTensor& position_ids, const HostTensor& cos,
                                        const HostTensor& sin, const RotaryAttributes& attributes);


// ---- shared by the two ops' plug-ins (src/reference/ops/) ----

/// The attributes of either op from ONNX attribute values (absent: the ONNX default). Throws wgk::Error
/// (kInvalidArgument) naming an attribute of the wrong kind.
RotaryAttributes rotary_attributes(const Attributes& attrs);
/// position_ids as int64: a uint32 tensor (what a caller narrowed for the device) widened, int64 as is.
HostTensor positions_as_int64(const HostTensor& position_ids);

/// Dimensions of one random case of `wgk diff`: small tensors (<= 3 * 8 * 5 * 32 elements) so thousands run
/// in seconds on a software adapter; head sizes every even number 2..32 (so 2, 6, 10, ... not divisible by 4,
/// and 4, 12, 20, 28 not by 8), and odd ones where random_rotary_dims is asked for them; head counts 1..5 (odd
/// ones included); rotary 0 (whole head) half the time, else an even prefix 2..head.
struct RotaryDims {
  std::int64_t batch, seq, heads, head, rotary;
};
/// With odd_heads (com.microsoft's seed card allows them; ONNX RotaryEmbedding-23 does not), a quarter of the cases
/// take an odd head 3..31 with an even rotary 2..head-1 instead.
RotaryDims random_rotary_dims(std::mt19937_64& rng, bool odd_heads);
/// "<op>_<index>_<f16|f32>_r<rank>_<pos>[_inter][_rot<r>]_h<heads>x<head>".
std::string rotary_case_name(const char* op, int index, DType dtype, int rank, const std::string& pos, bool interleaved,
                             const RotaryDims& d);

/// Bytes one call must move, by both ops' definitions: x read once, y (x's shape and dtype) written once,
/// each distinct cos and sin row gathered once (a row is cos.shape[-1] elements; distinct rows = distinct
/// position ids, or the sequence length when position_ids is a single offset), position ids read once as the
/// u32 the device stores. The copy baseline copies x.
MovedBytes rotary_moved_bytes(const Tensors& inputs);

/// Sets the tolerance of a `wgk diff` case of `dtype` and its derivation (docs/testing.md "Tolerances").
void set_rotary_tolerance(RandomCase& c);

}  // namespace wgk::reference
