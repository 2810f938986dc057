// Plug-in of com.microsoft::RotaryEmbedding (ORT ContribOperators.md, seed card 001): the CPU reference
// (rotary_embedding_ms) and the random cases of `wgk diff`.
#include "reference/op.h"
#include "reference/random.h"
#include "reference/rotary_embedding.h"

namespace wgk::reference {
namespace {

constexpr const char* kOp = "com.microsoft::RotaryEmbedding";

Results reference(const Tensors& inputs, const Attributes& attrs, const std::vector<std::string>&) {
  const HostTensor& x = required_input(inputs, "x", kOp);
  const HostTensor pos = positions_as_int64(required_input(inputs, "positionIds", kOp));
  return {{"y", {x.shape, rotary_embedding_ms(x, pos, required_input(inputs, "cos", kOp), required_input(inputs, "sin", kOp),
                                              rotary_attributes(attrs))}}};
}

// Rank 3 with num_heads > 0, or num_heads = 0 (head = 2 * cos width, whole-head rotation); rank 4 (batch,
// heads, seq, head); position_ids a (batch, seq) table, a base offset of shape [1], or a scalar base offset;
// cos/sin (max_seq, rotary/2).
RandomCase generate(std::mt19937_64& rng, int index) {
  RandomCase c;
  c.dtype = coin(rng) ? DType::kFloat16 : DType::kFloat32;
  RotaryDims d = random_rotary_dims(rng, /*odd_heads=*/true);
  const int rank = coin(rng) ? 4 : 3;
  const std::int64_t interleaved = coin(rng);
  c.attrs["interleaved"] = interleaved;
  std::int64_t num_heads = d.heads;
  if (rank == 3 && d.head % 2 == 0 && pick(rng, 0, 2) == 0) {
    num_heads = 0;  // head size from the cache width (even): only whole-head rotation is defined then
    d.rotary = 0;
  } else if (rank == 4) {
    // Not consulted at rank 4 (heads are dimension 1): 0, the head count, or another count. ORT's kernel
    // constructor requires num_heads > 0 with rotary_embedding_dim > 0 at any rank (ours only at rank 3):
    // docs/testing.md.
    const auto form = pick(rng, d.rotary ? 1 : 0, 2);
    num_heads = form == 0 ? 0 : form == 1 ? d.heads : pick(rng, 1, 5);
  }
  c.attrs["num_heads"] = num_heads;
  c.attrs["rotary_embedding_dim"] = d.rotary;
  const Shape x = rank == 4 ? Shape{d.batch, d.heads, d.seq, d.head} : Shape{d.batch, d.seq, d.heads * d.head};
  const std::int64_t half = (d.rotary ? d.rotary : d.head) / 2;
  c.inputs["x"] = random_float(c.dtype, x, rng);
  // max_seq >= seq: ORT's CPU kernel rejects a cache shorter than the sequence (docs/testing.md).
  const std::int64_t max_seq = pick(rng, d.seq, 2 * d.seq + 2);
  c.inputs["cos"] = random_float(c.dtype, {max_seq, half}, rng);
  c.inputs["sin"] = random_float(c.dtype, {max_seq, half}, rng);
  const int form = static_cast<int>(pick(rng, 0, 2));
  std::string pos;
  if (form == 0) {
    c.inputs["positionIds"] = random_int64({d.batch, d.seq}, 0, max_seq - 1, rng);
    pos = "table";
  } else {
    c.inputs["positionIds"] = random_int64(form == 1 ? Shape{1} : Shape{}, 0, max_seq - d.seq, rng);
    pos = form == 1 ? "offset" : "scalar";
  }
  c.name = rotary_case_name("ms", index, c.dtype, rank, pos, interleaved != 0, d);
  set_rotary_tolerance(c);
  return c;
}

OpPlugin plugin() {
  return {"com.microsoft", "RotaryEmbedding", reference,
          {"RotaryEmbedding", "com.microsoft", 1, {"x", "positionIds", "cos", "sin"}, {"y"}}, generate, set_rotary_tolerance,
          rotary_moved_bytes};
}

}  // namespace

WGK_REGISTER_OP(plugin());

}  // namespace wgk::reference
