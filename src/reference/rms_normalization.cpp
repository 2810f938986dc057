#include "reference/rms_normalization.h"

#include <cmath>
#include <string>

#include "reference/rounding.h"
#include "wgk/error.h"

namespace wgk::reference {
namespace {

const std::string kOp = "ai.onnx::RMSNormalization";

[[noreturn]] void invalid(const std::string& what) { throw Error(ErrorKind::kInvalidArgument, kOp + ": " + what); }

void check_storage(const char* name, const HostTensor& t) {
  if (t.data.size() != static_cast<std::size_t>(t.numel()) * dtype_size(t.dtype))
    invalid(std::string(name) + " of shape " + shape_string(t.shape) + " and dtype " + std::string(dtype_name(t.dtype)) +
            " holds " + std::to_string(t.data.size()) + " bytes");
}

}  // namespace

RmsNormalizationOutputs rms_normalization(const HostTensor& x, const HostTensor& scale,
                                          const RmsNormalizationAttributes& a) {
  check_storage("X", x);
  check_storage("scale", scale);
  if (x.dtype != DType::kFloat32 && x.dtype != DType::kFloat16)
    invalid("X has dtype " + std::string(dtype_name(x.dtype)) + "; T must be float32 or float16");
  if (scale.dtype != x.dtype)
    invalid("scale has dtype " + std::string(dtype_name(scale.dtype)) + ", X " + std::string(dtype_name(x.dtype)) +
            ": they must be the same");
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  if (rank < 1) invalid("X must have rank >= 1, got shape " + shape_string(x.shape));
  if (a.axis < -rank || a.axis >= rank)
    invalid("axis " + std::to_string(a.axis) + " is out of range [" + std::to_string(-rank) + ", " +
            std::to_string(rank) + ") for X of shape " + shape_string(x.shape));
  const std::int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
  // Unidirectional broadcasting of scale to X.shape[axis:], aligned from the last dim.
  const auto norm_rank = rank - axis;
  const auto scale_rank = static_cast<std::int64_t>(scale.shape.size());
  bool broadcastable = scale_rank <= norm_rank;
  for (std::int64_t k = 1; broadcastable && k <= scale_rank; ++k) {
    const std::int64_t d = scale.shape[scale_rank - k];
    broadcastable = d == 1 || d == x.shape[rank - k];
  }
  if (!broadcastable)
    invalid("scale of shape " + shape_string(scale.shape) + " does not broadcast to X.shape[axis:] of X " +
            shape_string(x.shape) + " with axis " + std::to_string(a.axis));
  std::int64_t n = 1;
  for (std::int64_t d = axis; d < rank; ++d) n *= x.shape[d];
  const std::int64_t rows = n == 0 ? 0 : x.numel() / n;

  RmsNormalizationOutputs out;
  out.y.resize(static_cast<std::size_t>(x.numel()));
  // The scale element of normalized index j: its coordinates with broadcast dims taken as 0.
  std::vector<std::int64_t> scale_of(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t rest = j, index = 0, stride = 1;
    for (std::int64_t k = 1; k <= norm_rank; ++k) {
      const std::int64_t xd = x.shape[rank - k];
      const std::int64_t c = xd == 0 ? 0 : rest % xd;
      rest = xd == 0 ? 0 : rest / xd;
      if (k <= scale_rank) {
        const std::int64_t sd = scale.shape[scale_rank - k];
        if (sd != 1) index += c * stride;
        stride *= sd;
      }
    }
    scale_of[static_cast<std::size_t>(j)] = index;
  }
  if (a.stash_type != 1 && a.stash_type != 10 && a.stash_type != 11 && a.stash_type != 16)
    invalid("stash_type " + std::to_string(a.stash_type) +
            " is not 1 (float32), 10 (float16), 11 (double) or 16 (bfloat16), the types the function body admits");
  if (a.stash_type == 10 || a.stash_type == 16) {
    // Stage one in the stash type U, each step rounded to it (the function body: Cast, Mul, ReduceMean, Add,
    // Sqrt, Div), then Cast to T (exact: U is no wider than T here, or the caller's rounding to T) times scale.
    const auto u = [&](double v) { return round_to_onnx_type(v, a.stash_type); };
    const double epsilon = u(static_cast<float>(a.epsilon));  // the FLOAT attribute, cast to U
    for (std::int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const double v = u(x.element(r * n + j));
        sum += u(v * v);
      }
      const double rms = u(std::sqrt(u(u(sum / static_cast<double>(n)) + epsilon)));
      for (std::int64_t j = 0; j < n; ++j)
        out.y[static_cast<std::size_t>(r * n + j)] =
            u(u(x.element(r * n + j)) / rms) * scale.element(scale_of[static_cast<std::size_t>(j)]);
    }
    return out;
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double v = x.element(r * n + j);
      // stash_type 1: each square is float32 (the function body's Mul after Cast to float): tiny ones underflow
      // to 0 (|x| < 1e-23), huge ones overflow, as ORT and the kernels compute them.
      sum += a.stash_type == 1 ? round_to_onnx_type(v * v, 1) : v * v;
    }
    // stash_type 1 computes the mean of squares in float32: past FLT_MAX it is infinite (1 / rms = 0).
    if (a.stash_type == 1) sum = float32_range(sum);
    const double rms = std::sqrt(sum / static_cast<double>(n) + a.epsilon);
    for (std::int64_t j = 0; j < n; ++j)
      out.y[static_cast<std::size_t>(r * n + j)] = x.element(r * n + j) / rms * scale.element(scale_of[static_cast<std::size_t>(j)]);
  }
  return out;
}

}  // namespace wgk::reference
