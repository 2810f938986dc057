// Plug-in of ai.onnx::RMSNormalization-23 (ONNX Operators.md): the CPU reference (rms_normalization) and the
// random cases of `wgk diff`.
#include "reference/op.h"
#include "reference/random.h"
#include "reference/rms_normalization.h"

namespace wgk::reference {
namespace {

constexpr const char* kOp = "ai.onnx::RMSNormalization";

Results reference(const Tensors& inputs, const Attributes& attrs, const std::vector<std::string>&) {
  const HostTensor& x = required_input(inputs, "x", kOp);
  RmsNormalizationAttributes a;
  a.axis = int_attr(attrs, "axis", -1);
  a.epsilon = float_attr(attrs, "epsilon", 1e-5);
  a.stash_type = int_attr(attrs, "stash_type", 1);
  return {{"y", {x.shape, rms_normalization(x, required_input(inputs, "scale", kOp), a).y}}};
}

// f32: two float32 reductions in different orders (<= 1e-5 relative, test.json's derivation); f16: plus one
// rounding on each side, which may go either way: one f16 unit, 2^-10 relative.
void set_tolerance(RandomCase& c) {
  const bool f16 = c.dtype == DType::kFloat16;
  c.tolerance = f16 ? Tolerance{2e-5, 2e-3} : Tolerance{2e-6, 2e-5};
  c.tolerance_why = f16 ? "f32 arithmetic, one f16 rounding on each side (one f16 unit, 2^-10 relative)"
                        : "f32 reductions in different orders: <= 1e-5 relative each";
}

// Many short rows (the manifest's shortRows: at most 256 elements a row, at least 256 rows; the rows_vec4 and
// rows_packed_vec8 variants, several rows a workgroup): rows 256-640 in one or two leading dims, a row of 1-2
// trailing dims of 4-256 elements, a multiple of 8 (vec4 and packed vec8 both apply) or of 4 only (vec4).
Shape short_rows_shape(std::mt19937_64& rng, std::int64_t* axis_attr) {
  const std::int64_t rows = pick(rng, 256, 640);
  const std::int64_t row = coin(rng) ? 8 * pick(rng, 1, 32) : 4 * (2 * pick(rng, 0, 31) + 1);
  Shape x = coin(rng) ? Shape{rows} : Shape{pick(rng, 2, 4), 0};
  if (x.size() == 2) x[1] = (rows + x[0] - 1) / x[0];  // b * s >= rows >= 256
  const std::int64_t lead = static_cast<std::int64_t>(x.size());
  if (row % 8 == 0 && row > 8 && coin(rng)) {  // a row of two dims: (row / 8, 8), axis on the first of them
    x.push_back(row / 8);
    x.push_back(8);
  } else {
    x.push_back(row);
  }
  *axis_attr = coin(rng) ? lead : lead - static_cast<std::int64_t>(x.size());  // positive or negative, same axis
  return x;
}

// Ranks 1-4, dims 1-7 (now and then a last dim of 1,000-5,000), every axis, every scale broadcast: trailing
// dims of X.shape[axis:], one element, (1, ..., 1, X.shape[-1]), and each trailing dim kept or 1; one case in
// five has many short rows (short_rows_shape). stash_type stays 1: ORT 1.30 computes in float32 whatever it is
// (docs/normalization.md).
RandomCase generate(std::mt19937_64& rng, int index) {
  RandomCase c;
  c.dtype = coin(rng) ? DType::kFloat16 : DType::kFloat32;
  Shape x;
  std::int64_t axis_attr = 0;
  if (pick(rng, 0, 4) == 0) {
    x = short_rows_shape(rng, &axis_attr);
  } else {
    for (std::int64_t d = 0, r = pick(rng, 1, 4); d < r; ++d) x.push_back(pick(rng, 1, 7));
    if (pick(rng, 0, 9) == 0) x.back() = pick(rng, 1000, 5000);
    const auto r = static_cast<std::int64_t>(x.size());
    axis_attr = pick(rng, -r, r - 1);
  }
  const auto rank = static_cast<std::int64_t>(x.size());
  const std::int64_t axis = axis_attr < 0 ? axis_attr + rank : axis_attr;
  Shape scale;
  switch (pick(rng, 0, 3)) {
    case 0: for (std::int64_t d = axis + pick(rng, 0, rank - axis - 1); d < rank; ++d) scale.push_back(x[d]); break;
    case 1: scale = Shape(static_cast<std::size_t>(pick(rng, 0, rank - axis)), 1); break;
    case 2: scale = Shape(static_cast<std::size_t>(rank - axis), 1); scale.back() = x.back(); break;
    default:
      for (std::int64_t d = axis + pick(rng, 0, rank - axis - 1); d < rank; ++d) scale.push_back(coin(rng) ? x[d] : 1);
      break;
  }
  c.attrs["axis"] = axis_attr;
  c.attrs["epsilon"] = pick(rng, 0, 2) == 0 ? 0.1 : 1e-5;
  c.inputs["x"] = random_float(c.dtype, x, rng);
  c.inputs["scale"] = random_float(c.dtype, scale, rng);
  c.name = "rms_" + std::to_string(index) + (c.dtype == DType::kFloat16 ? "_f16_" : "_f32_") + shape_string(x) +
           "_axis" + std::to_string(axis_attr) + "_scale" + shape_string(scale);
  set_tolerance(c);
  return c;
}

OpPlugin plugin() {
  return {"ai.onnx", "RMSNormalization", reference, {"RMSNormalization", "", 23, {"x", "scale"}, {"y"}}, generate,
          set_tolerance, nullptr};
}

}  // namespace

WGK_REGISTER_OP(plugin());

}  // namespace wgk::reference
