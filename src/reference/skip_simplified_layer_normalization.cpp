#include "reference/skip_simplified_layer_normalization.h"

#include <cmath>
#include <string>

#include "reference/rounding.h"
#include "wgk/error.h"

namespace wgk::reference {
namespace {

const std::string kOp = "com.microsoft::SkipSimplifiedLayerNormalization";

[[noreturn]] void invalid(const std::string& what) { throw Error(ErrorKind::kInvalidArgument, kOp + ": " + what); }

void check_input(const char* name, const HostTensor& t, const HostTensor& x) {
  if (t.data.size() != static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype))
    invalid(std::string(name) + " of shape " + shape_string(t.shape) + " holds " + std::to_string(t.data.size()) + " bytes");
  if (t.dtype != x.dtype)
    invalid(std::string(name) + " has dtype " + std::string(dtype_name(t.dtype)) + ", input " +
            std::string(dtype_name(x.dtype)) + ": T binds one dtype");
}

}  // namespace

SkipSimplifiedLayerNormalizationOutputs skip_simplified_layer_normalization(const HostTensor& x, const HostTensor& skip,
                                                                            const HostTensor& gamma,
                                                                            const HostTensor* bias, double epsilon) {
  check_input("input", x, x);
  check_input("skip", skip, x);
  check_input("gamma", gamma, x);
  if (bias) check_input("bias", *bias, x);
  if (x.dtype != DType::kFloat32 && x.dtype != DType::kFloat16)
    invalid("input has dtype " + std::string(dtype_name(x.dtype)) + "; T must be float32 or float16");
  // ORT's rules (skip_layer_norm_helper.h, as ORT 1.30 reports them).
  const std::size_t rank = x.shape.size();
  if (rank != 2 && rank != 3) invalid("input is expected to have 3 or 2 dimensions, got " + std::to_string(rank));
  const std::size_t skip_rank = skip.shape.size();
  if (skip_rank != 2 && skip_rank != 3) invalid("skip is expected to have 3 or 2 dimensions, got " + std::to_string(skip_rank));
  if (skip.shape[skip_rank - 1] != x.shape[rank - 1] || skip.shape[skip_rank - 2] != x.shape[rank - 2])
    invalid("last two dimensions of skip " + shape_string(skip.shape) + " must be those of input " + shape_string(x.shape));
  if (skip_rank == 3 && skip.shape[0] != 1 && (rank != 3 || skip.shape[0] != x.shape[0]))
    invalid("skip of shape " + shape_string(skip.shape) + ": dimension 0 must be 1 or input's batch size");
  const std::int64_t h = x.shape[rank - 1];
  if (gamma.shape.size() != 1 || gamma.shape[0] != h)
    invalid("gamma of shape " + shape_string(gamma.shape) + " must be (" + std::to_string(h) + ") (hidden_size)");
  if (bias && (bias->shape.size() != 1 || bias->shape[0] != h))
    invalid("bias of shape " + shape_string(bias->shape) + " must be (" + std::to_string(h) + ") (hidden_size)");

  const std::int64_t count = x.numel();
  const std::int64_t rows = h == 0 ? 0 : count / h;
  const std::int64_t skip_count = skip.numel();  // skip repeats every skip_count elements (broadcast over batch)
  SkipSimplifiedLayerNormalizationOutputs out;
  out.inv_std_var_shape = x.shape;
  out.inv_std_var_shape.back() = 1;
  out.y.resize(static_cast<std::size_t>(count));
  out.input_skip_bias_sum.resize(static_cast<std::size_t>(count));
  out.inv_std_var.resize(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (std::int64_t j = 0; j < h; ++j) {
      const std::int64_t i = r * h + j;
      // (input + skip) + bias, each add rounded to float32, as ORT's kernel and ours compute them: cancellation
      // (1 + 1e8 - 1e8 = 0) and an overflow that bias would undo (3e38 + 3e38 - 3e38 = Inf) come out as there.
      const double xs = round_to_onnx_type(x.element(i) + skip.element(i % skip_count), 1);
      const double s = bias ? round_to_onnx_type(xs + bias->element(j), 1) : xs;
      out.input_skip_bias_sum[static_cast<std::size_t>(i)] = s;
      sum += round_to_onnx_type(s * s, 1);  // each square in float32: underflow (|s| < 1e-23) to 0 as there
    }
    const double inv = 1.0 / std::sqrt(float32_range(sum) / static_cast<double>(h) + epsilon);
    out.inv_std_var[static_cast<std::size_t>(r)] = inv;
    for (std::int64_t j = 0; j < h; ++j) {
      const auto i = static_cast<std::size_t>(r * h + j);
      out.y[i] = out.input_skip_bias_sum[i] * inv * gamma.element(j);
    }
  }
  return out;
}

}  // namespace wgk::reference
