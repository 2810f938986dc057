// Plug-in of ai.onnx::RotaryEmbedding-23 (ONNX Operators.md): the CPU reference (rotary_embedding_onnx) and
// the random cases of `wgk diff`.
#include "reference/op.h"
#include "reference/random.h"
#include "reference/rotary_embedding.h"

namespace wgk::reference {
namespace {

Results reference(const Tensors& inputs, const Attributes& attrs, const std::vector<std::string>&) {
  const HostTensor& x = required_input(inputs, "x", "ai.onnx::RotaryEmbedding");
  std::optional<HostTensor> pos;
  if (auto it = inputs.find("positionIds"); it != inputs.end()) pos = positions_as_int64(it->second);
  return {{"y", {x.shape, rotary_embedding_onnx(x, required_input(inputs, "cos", "ai.onnx::RotaryEmbedding"),
                                                required_input(inputs, "sin", "ai.onnx::RotaryEmbedding"),
                                                pos ? &*pos : nullptr, rotary_attributes(attrs))}}};
}

// Rank 3 (num_heads given) or rank 4 (num_heads absent, equal to dimension 1, or another count: not
// consulted at rank 4, and ORT accepts any); with position_ids (batch, seq) into a (max_pos, rotary/2)
// cache, or without, cos/sin of (batch, seq, rotary/2).
RandomCase generate(std::mt19937_64& rng, int index) {
  RandomCase c;
  c.dtype = coin(rng) ? DType::kFloat16 : DType::kFloat32;
  const RotaryDims d = random_rotary_dims(rng, /*odd_heads=*/false);
  const int rank = coin(rng) ? 4 : 3;
  const std::int64_t interleaved = coin(rng);
  c.attrs["interleaved"] = interleaved;
  c.attrs["rotary_embedding_dim"] = d.rotary;
  if (rank == 3) c.attrs["num_heads"] = d.heads;
  else if (const auto form = pick(rng, 0, 2); form > 0) c.attrs["num_heads"] = form == 1 ? d.heads : pick(rng, 1, 5);
  const Shape x = rank == 4 ? Shape{d.batch, d.heads, d.seq, d.head} : Shape{d.batch, d.seq, d.heads * d.head};
  const std::int64_t half = (d.rotary ? d.rotary : d.head) / 2;
  c.inputs["x"] = random_float(c.dtype, x, rng);
  const bool with_positions = coin(rng);
  if (with_positions) {
    // max_pos seq .. 2 * seq + 2. The spec admits any max_pos >= 1 (ids < max_pos), and so do we, but ORT's
    // CPU kernel rejects max_pos < seq ("Updating cos_cache and sin_cache ... is not currently supported"):
    // docs/testing.md lists this among the ORT-vs-spec differences.
    const std::int64_t max_pos = pick(rng, d.seq, 2 * d.seq + 2);
    c.inputs["cos"] = random_float(c.dtype, {max_pos, half}, rng);
    c.inputs["sin"] = random_float(c.dtype, {max_pos, half}, rng);
    c.inputs["positionIds"] = random_int64({d.batch, d.seq}, 0, max_pos - 1, rng);
  } else {
    c.inputs["cos"] = random_float(c.dtype, {d.batch, d.seq, half}, rng);
    c.inputs["sin"] = random_float(c.dtype, {d.batch, d.seq, half}, rng);
  }
  c.name = rotary_case_name("onnx", index, c.dtype, rank, with_positions ? "pos" : "nopos", interleaved != 0, d);
  set_rotary_tolerance(c);
  return c;
}

OpPlugin plugin() {
  return {"ai.onnx", "RotaryEmbedding", reference,
          {"RotaryEmbedding", "", 23, {"x", "cos", "sin", "positionIds"}, {"y"}}, generate, set_rotary_tolerance,
          rotary_moved_bytes};
}

}  // namespace

WGK_REGISTER_OP(plugin());

}  // namespace wgk::reference
