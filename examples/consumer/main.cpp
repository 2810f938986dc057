// Loads both bundled packages through the public API and checks one output of each against values
// derived by hand below (exact in float32: every product is by 0 or +-1). Exit code 0 when both match.
//
// The caches (4 rows x 2 columns, rotary_dim / 2 = 2) hold exact rotations, angle by row and column:
//   row 0:  cos [ 1,  1]  sin [ 0, 0]    (0, 0)
//   row 1:  cos [ 0,  1]  sin [ 1, 0]    (+90 deg, 0)
//   row 2:  cos [-1, -1]  sin [ 0, 0]    (180 deg, 180 deg)
//   row 3:  cos [ 0,  0]  sin [-1, 1]    (-90 deg, +90 deg)
// Two tokens, x = [1, 2, 3, 4] and [5, 6, 7, 8], at positions [3, 1]. A pair (a, b) rotated by column i
// of a row becomes (a cos_i - b sin_i, b cos_i + a sin_i).
//
// ai.onnx.RotaryEmbedding (ONNX opset 23), x of shape (batch 1, heads 1, sequence 2, head 4), interleaved 0
// (default): the pairs are (x[i], x[i + 2]), results at the same places.
//   token 0, row 3: (1, 3) by -90 deg -> (1*0 - 3*(-1), 3*0 + 1*(-1)) = ( 3, -1)
//                   (2, 4) by +90 deg -> (2*0 - 4*1,    4*0 + 2*1)    = (-4,  2)   y = [ 3, -4, -1, 2]
//   token 1, row 1: (5, 7) by +90 deg -> (5*0 - 7*1, 7*0 + 5*1)       = (-7,  5)
//                   (6, 8) by 0       -> (6*1 - 8*0, 8*1 + 6*0)       = ( 6,  8)   y = [-7,  6,  5, 8]
// com.microsoft.RotaryEmbedding (ONNX Runtime contrib), x of shape (batch 1, sequence 2, hidden 4), heads 1,
// interleaved 1: the pairs are (x[2i], x[2i + 1]).
//   token 0, row 3: (1, 2) by -90 deg -> (1*0 - 2*(-1), 2*0 + 1*(-1)) = ( 2, -1)
//                   (3, 4) by +90 deg -> (3*0 - 4*1,    4*0 + 3*1)    = (-4,  3)   y = [ 2, -1, -4, 3]
//   token 1, row 1: (5, 6) by +90 deg -> (5*0 - 6*1, 6*0 + 5*1)       = (-6,  5)
//                   (7, 8) by 0       -> (7*1 - 8*0, 8*1 + 7*0)       = ( 7,  8)   y = [-6,  5,  7, 8]
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "wgk/error.h"
#include "wgk/kernel.h"
#include "wgk/version.h"

namespace {

// Compares `y` (float32) with `want` element by element, exactly; prints each mismatch.
bool check(const char* name, const wgk::HostTensor& y, const wgk::Shape& shape, const std::vector<float>& want) {
  bool ok = y.dtype == wgk::DType::kFloat32 && y.shape == shape;
  if (!ok) std::printf("%s: y is %s %s, expected float32 %s\n", name, std::string(wgk::dtype_name(y.dtype)).c_str(),
                       wgk::shape_string(y.shape).c_str(), wgk::shape_string(shape).c_str());
  for (std::size_t i = 0; ok && i < want.size(); ++i)
    if (y.element(static_cast<std::int64_t>(i)) != want[i]) {
      std::printf("%s: y[%zu] = %g, expected %g\n", name, i, y.element(static_cast<std::int64_t>(i)), want[i]);
      ok = false;
    }
  std::printf("%s: %s\n", name, ok ? "ok" : "FAILED");
  return ok;
}

}  // namespace

int main() {
  try {
    using wgk::DType;
    using wgk::HostTensor;
    const HostTensor cos = HostTensor::from(DType::kFloat32, {4, 2}, std::vector<float>{1, 1, 0, 1, -1, -1, 0, 0});
    const HostTensor sin = HostTensor::from(DType::kFloat32, {4, 2}, std::vector<float>{0, 0, 1, 0, 0, 0, -1, 1});
    const HostTensor positions = HostTensor::from(DType::kInt64, {1, 2}, std::vector<std::int64_t>{3, 1});
    const std::vector<float> tokens = {1, 2, 3, 4, 5, 6, 7, 8};

    wgk::Kernel onnx = wgk::get_kernel("webgpu-kernels/ai.onnx.RotaryEmbedding", {.version = 1});
    std::printf("wgk %s on %s\n", std::string(wgk::version()).c_str(), onnx.device()->description().c_str());
    const HostTensor x4 = HostTensor::from(DType::kFloat32, {1, 1, 2, 4}, tokens);
    wgk::Outputs a = onnx({{"x", x4}, {"cos", cos}, {"sin", sin}, {"positionIds", positions}});
    const bool onnx_ok = check("ai.onnx.RotaryEmbedding", a.at("y").read(), {1, 1, 2, 4}, {3, -4, -1, 2, -7, 6, 5, 8});

    wgk::Kernel ms = wgk::get_kernel("webgpu-kernels/com.microsoft.RotaryEmbedding", {.version = 1});
    const HostTensor x3 = HostTensor::from(DType::kFloat32, {1, 2, 4}, tokens);
    wgk::Outputs b = ms({{"x", x3}, {"positionIds", positions}, {"cos", cos}, {"sin", sin}},
                        {{"interleaved", std::int64_t{1}}, {"num_heads", std::int64_t{1}}});
    const bool ms_ok = check("com.microsoft.RotaryEmbedding", b.at("y").read(), {1, 2, 4}, {2, -1, -4, 3, -6, 5, 7, 8});
    return onnx_ok && ms_ok ? 0 : 1;
  } catch (const wgk::Error& e) {
    std::printf("error: %s\n", e.what());
    return 2;
  }
}
