#include "reference/rotary_embedding.h"

#include <cstring>
#include <functional>
#include <string>

#include <cstring>
#include <iomanip>
#include <set>
#include <sstream>

#include "reference/op.h"
#include "reference/random.h"
#include "wgk/error.h"

namespace wgk::reference {
namespace {

[[noreturn]] void invalid(const std::string& op, const std::string& what) {
  throw Error(ErrorKind::kInvalidArgument, op + ": " + what);
}

std::string str(std::int64_t v) { return std::to_string(v); }

// The tensor's bytes match its shape and dtype, so element(i) for i < numel() stays in bounds.
void check_storage(const std::string& op, const char* name, const HostTensor& t) {
  const std::int64_t count = t.numel();
  if (t.data.size() != static_cast<std::size_t>(count) * dtype_size(t.dtype))
    invalid(op, std::string(name) + " of shape " + shape_string(t.shape) + " and dtype " + std::string(dtype_name(t.dtype)) +
                    " must hold " + str(count * static_cast<std::int64_t>(dtype_size(t.dtype))) + " bytes, holds " +
                    str(static_cast<std::int64_t>(t.data.size())));
}

void check_float_inputs(const std::string& op, const HostTensor& x, const HostTensor& cos, const HostTensor& sin) {
  check_storage(op, "x", x);
  check_storage(op, "cos_cache", cos);
  check_storage(op, "sin_cache", sin);
  if (x.dtype != DType::kFloat32 && x.dtype != DType::kFloat16)
    invalid(op, "x has dtype " + std::string(dtype_name(x.dtype)) + "; T must be float32 or float16");
  if (cos.dtype != x.dtype || sin.dtype != x.dtype)
    invalid(op, "cos_cache (" + std::string(dtype_name(cos.dtype)) + ") and sin_cache (" + std::string(dtype_name(sin.dtype)) +
                    ") must have x's dtype T = " + std::string(dtype_name(x.dtype)));
  if (cos.shape != sin.shape)
    invalid(op, "cos_cache shape " + shape_string(cos.shape) + " must equal sin_cache shape " + shape_string(sin.shape));
  if (x.shape.size() != 3 && x.shape.size() != 4)
    invalid(op, "x must be rank 3 (batch, seq, hidden) or rank 4 (batch, num_heads, seq, head_size), got shape " +
                    shape_string(x.shape));
}

// Everything the rotation loop needs, validated.
struct Geometry {
  std::int64_t batch = 0, seq = 0, heads = 0, head_size = 0, rotary_dim = 0;
  bool heads_before_seq = false;  // rank 4: (batch, num_heads, seq, head_size); rank 3: (batch, seq, num_heads * head_size)
  // Offset of the first element of the cache row (in cos/sin) used by token (b, s).
  std::function<std::int64_t(std::int64_t b, std::int64_t s)> row_offset;
};

// Head count and size from x; rank 3 needs `heads` (> 0) dividing the hidden size.
void shape_from_x(const std::string& op, const HostTensor& x, std::int64_t rank3_heads, Geometry& g) {
  g.batch = x.shape[0];
  if (x.shape.size() == 4) {
    g.heads = x.shape[1];
    g.seq = x.shape[2];
    g.head_size = x.shape[3];
    g.heads_before_seq = true;
    return;
  }
  g.seq = x.shape[1];
  const std::int64_t hidden = x.shape[2];
  if (rank3_heads <= 0) invalid(op, "num_heads must be positive for a rank-3 x of shape " + shape_string(x.shape) + ", got " + str(rank3_heads));
  if (hidden % rank3_heads != 0)
    invalid(op, "hidden size " + str(hidden) + " (x shape " + shape_string(x.shape) + ") must be a multiple of num_heads " + str(rank3_heads));
  g.heads = rank3_heads;
  g.head_size = hidden / rank3_heads;
}

void rotary_dim_from(const std::string& op, std::int64_t attribute, Geometry& g) {
  if (attribute < 0) invalid(op, "rotary_embedding_dim must be >= 0, got " + str(attribute));
  if (attribute > g.head_size)
    invalid(op, "rotary_embedding_dim " + str(attribute) + " must not exceed head_size " + str(g.head_size));
  g.rotary_dim = attribute > 0 ? attribute : g.head_size;
  if (g.rotary_dim % 2 != 0)
    invalid(op, (attribute > 0 ? "rotary_embedding_dim " : "head_size (rotary_embedding_dim = 0 rotates the whole head) ") +
                    str(g.rotary_dim) + " must be even");
}

void check_cache_width(const std::string& op, const HostTensor& cos, const Geometry& g) {
  if (cos.shape.back() != g.rotary_dim / 2)
    invalid(op, "cos_cache/sin_cache last dimension " + str(cos.shape.back()) + " (shape " + shape_string(cos.shape) +
                    ") must be rotary_dim / 2 = " + str(g.rotary_dim / 2));
}

// Reads an int64 position and checks it indexes one of `rows` cache rows.
std::int64_t checked_position(const std::string& op, const HostTensor& position_ids, std::int64_t index, std::int64_t offset,
                              std::int64_t rows) {
  std::int64_t p = 0;
  std::memcpy(&p, position_ids.data.data() + index * 8, 8);
  // p + offset < rows, written so that it cannot overflow.
  if (p < 0 || offset < 0 || p >= rows || offset >= rows - p)
    invalid(op, "position_ids[" + str(index) + "] = " + str(p) + (offset ? " + token " + str(offset) : "") +
                    " must index a cache row in [0, " + str(rows) + ")");
  return p + offset;
}

void check_positions_int64(const std::string& op, const HostTensor& position_ids) {
  check_storage(op, "position_ids", position_ids);
  if (position_ids.dtype != DType::kInt64)
    invalid(op, "position_ids has dtype " + std::string(dtype_name(position_ids.dtype)) + "; M must be int64");
}

// Gathers every (b, s) row up front (validating each) and returns a lookup.
std::function<std::int64_t(std::int64_t, std::int64_t)> table_rows(std::vector<std::int64_t> rows, std::int64_t seq,
                                                                   std::int64_t width) {
  return [rows = std::move(rows), seq, width](std::int64_t b, std::int64_t s) { return rows[b * seq + s] * width; };
}

std::vector<double> rotate(const HostTensor& x, const HostTensor& cos, const HostTensor& sin, const Geometry& g,
                           bool interleaved) {
  const std::int64_t count = x.numel();
  std::vector<double> y(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) y[i] = x.element(i);  // the tail past rotary_dim is a copy
  const std::int64_t half = g.rotary_dim / 2;
  for (std::int64_t b = 0; b < g.batch; ++b)
    for (std::int64_t s = 0; s < g.seq; ++s) {
      const std::int64_t row = g.row_offset(b, s);
      for (std::int64_t n = 0; n < g.heads; ++n) {
        const std::int64_t base = g.heads_before_seq ? ((b * g.heads + n) * g.seq + s) * g.head_size
                                                     : ((b * g.seq + s) * g.heads + n) * g.head_size;
        for (std::int64_t i = 0; i < half; ++i) {
          const std::int64_t ia = base + (interleaved ? 2 * i : i);
          const std::int64_t ib = base + (interleaved ? 2 * i + 1 : i + half);
          const double c = cos.element(row + i), sn = sin.element(row + i);
          const double a = x.element(ia), bb = x.element(ib);
          y[ia] = c * a - sn * bb;
          y[ib] = sn * a + c * bb;
        }
      }
    }
  return y;
}

}  // namespace

std::vector<double> rotary_embedding_onnx(const HostTensor& x, const HostTensor& cos, const HostTensor& sin,
                                          const HostTensor* position_ids, const RotaryAttributes& attributes) {
  const std::string op = "ai.onnx::RotaryEmbedding";
  check_float_inputs(op, x, cos, sin);
  Geometry g;
  shape_from_x(op, x, attributes.num_heads, g);
  rotary_dim_from(op, attributes.rotary_embedding_dim, g);
  const std::int64_t width = g.rotary_dim / 2;
  if (position_ids) {
    check_positions_int64(op, *position_ids);
    if (cos.shape.size() != 2)
      invalid(op, "with position_ids, cos_cache must be rank 2 (max_position_id_plus_1, rotary_dim / 2), got shape " + shape_string(cos.shape));
    check_cache_width(op, cos, g);
    if (position_ids->shape != Shape{g.batch, g.seq})
      invalid(op, "position_ids shape " + shape_string(position_ids->shape) + " must be (batch, seq) = " + shape_string({g.batch, g.seq}));
    std::vector<std::int64_t> rows(static_cast<std::size_t>(g.batch * g.seq));
    for (std::int64_t i = 0; i < g.batch * g.seq; ++i) rows[i] = checked_position(op, *position_ids, i, 0, cos.shape[0]);
    g.row_offset = table_rows(std::move(rows), g.seq, width);
  } else {
    if (cos.shape.size() != 3)
      invalid(op, "without position_ids, cos_cache must be rank 3 (batch, seq, rotary_dim / 2), got shape " + shape_string(cos.shape));
    check_cache_width(op, cos, g);
    if (cos.shape[0] != g.batch || cos.shape[1] != g.seq)
      invalid(op, "without position_ids, cos_cache shape " + shape_string(cos.shape) + " must start with (batch, seq) = " +
                      shape_string({g.batch, g.seq}));
    g.row_offset = [seq = g.seq, width](std::int64_t b, std::int64_t s) { return (b * seq + s) * width; };
  }
  return rotate(x, cos, sin, g, attributes.interleaved);
}

std::vector<double> rotary_embedding_ms(const HostTensor& x, const HostTensor& position_ids, const HostTensor& cos,
                                        const HostTensor& sin, const RotaryAttributes& attributes) {
  const std::string op = "com.microsoft::RotaryEmbedding";
  check_float_inputs(op, x, cos, sin);
  check_positions_int64(op, position_ids);
  // An ONNX FLOAT attribute is a float32 (ORT reads scale as a float): a double that rounds to 1.0f is 1.0.
  if (static_cast<float>(attributes.scale) != 1.0f)
    invalid(op, "scale must be 1.0 as a float32 (no ONNX Runtime provider applies it), got " + std::to_string(attributes.scale));
  if (cos.shape.size() != 2)
    invalid(op, "cos_cache must be rank 2 (max_sequence_length, rotary_dim / 2), got shape " + shape_string(cos.shape));
  if (attributes.num_heads < 0) invalid(op, "num_heads must be >= 0, got " + str(attributes.num_heads));
  // ORT 1.30's RotaryEmbedding constructor (contrib_ops/cpu/bert/rotary_embedding.cc) refuses partial rotation
  // without num_heads whatever the rank of x.
  if (attributes.num_heads == 0 && attributes.rotary_embedding_dim != 0)
    invalid(op, "num_heads must be provided (> 0) when rotary_embedding_dim is nonzero (" + str(attributes.rotary_embedding_dim) + ")");
  Geometry g;
  if (x.shape.size() == 3 && attributes.num_heads == 0) {
    // ORT contrib spec: num_heads = 0 takes the head size from the cache width.
    const std::int64_t head_size = 2 * cos.shape[1];
    if (head_size == 0 || x.shape[2] % head_size != 0)
      invalid(op, "with num_heads = 0 the head size is 2 * cos_cache.shape[1] = " + str(head_size) +
                      ", which must be positive and divide the hidden size " + str(x.shape[2]));
    // Set here rather than by shape_from_x: an empty hidden size gives 0 heads of head_size, an empty call.
    g.batch = x.shape[0];
    g.seq = x.shape[1];
    g.heads = x.shape[2] / head_size;
    g.head_size = head_size;
  } else {
    shape_from_x(op, x, attributes.num_heads, g);
  }
  rotary_dim_from(op, attributes.rotary_embedding_dim, g);
  check_cache_width(op, cos, g);
  const std::int64_t width = g.rotary_dim / 2;
  const std::int64_t rows = cos.shape[0];
  if (position_ids.shape.size() <= 1 && position_ids.numel() == 1) {
    // Rows read: base .. base + seq - 1, none when there is no token (an empty call, even on an empty cache,
    // is valid as the runtime accepts it; the offset must still be >= 0).
    std::int64_t base = 0;
    if (g.seq > 0 && g.batch > 0) {
      base = checked_position(op, position_ids, 0, 0, rows);
      checked_position(op, position_ids, 0, g.seq - 1, rows);  // the last row read
    } else if (position_ids.element(0) < 0) {
      invalid(op, "position_ids base offset " + str(static_cast<std::int64_t>(position_ids.element(0))) + " must be >= 0");
    }
    g.row_offset = [base, width](std::int64_t, std::int64_t s) { return (base + s) * width; };
  } else if (position_ids.shape == Shape{g.batch, g.seq}) {
    std::vector<std::int64_t> table(static_cast<std::size_t>(g.batch * g.seq));
    for (std::int64_t i = 0; i < g.batch * g.seq; ++i) table[i] = checked_position(op, position_ids, i, 0, rows);
    g.row_offset = table_rows(std::move(table), g.seq, width);
  } else {
    invalid(op, "position_ids shape " + shape_string(position_ids.shape) +
                    " must be a scalar or [1] (base offset) or (batch, seq) = " + shape_string({g.batch, g.seq}));
  }
  return rotate(x, cos, sin, g, attributes.interleaved);
}


RotaryAttributes rotary_attributes(const Attributes& attrs) {
  RotaryAttributes a;
  a.interleaved = int_attr(attrs, "interleaved", 0) != 0;
  a.num_heads = int_attr(attrs, "num_heads", 0);
  a.rotary_embedding_dim = int_attr(attrs, "rotary_embedding_dim", 0);
  a.scale = float_attr(attrs, "scale", 1.0);
  return a;
}

HostTensor positions_as_int64(const HostTensor& position_ids) {
  if (position_ids.dtype != DType::kUInt32) return position_ids;
  std::vector<std::int64_t> v(static_cast<std::size_t>(position_ids.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(position_ids.element(static_cast<std::int64_t>(i)));
  return HostTensor::from(DType::kInt64, position_ids.shape, v);
}

RotaryDims random_rotary_dims(std::mt19937_64& rng, bool odd_heads) {
  RotaryDims d{};
  d.batch = pick(rng, 1, 3);
  d.seq = pick(rng, 1, 8);
  d.heads = pick(rng, 1, 5);
  // With odd_heads, a quarter of the heads are odd (3 .. 31), each with an even rotary_embedding_dim below it.
  if (odd_heads && pick(rng, 0, 3) == 0) {
    d.head = 2 * pick(rng, 1, 15) + 1;
    d.rotary = 2 * pick(rng, 1, d.head / 2);
    return d;
  }
  d.head = 2 * pick(rng, 1, 16);
  d.rotary = coin(rng) ? 0 : 2 * pick(rng, 1, d.head / 2);
  return d;
}

std::string rotary_case_name(const char* op, int index, DType dtype, int rank, const std::string& pos, bool interleaved,
                             const RotaryDims& d) {
  std::ostringstream s;
  s << op << "_" << std::setw(5) << std::setfill('0') << index << "_" << (dtype == DType::kFloat16 ? "f16" : "f32")
    << "_r" << rank << "_" << pos;
  if (interleaved) s << "_inter";
  if (d.rotary) s << "_rot" << d.rotary;
  s << "_h" << d.heads << "x" << d.head;
  return s.str();
}


void set_rotary_tolerance(RandomCase& c) {
  // Outputs are |y| = |a*c -+ b*s| <= 2 (every input in [-1, 1)).
  if (c.dtype == DType::kFloat16) {
    // ORT's CPU kernel and ours both compute in f32 and round once to f16, so they differ by at most one f16
    // ulp of |y| < 2 (2^-10 = 9.8e-4) where the two f32 results straddle a rounding boundary; 2 ulps at
    // [1, 2) = 1.95e-3 bounds that with a margin, and each side is within half an ulp of the exact result.
    c.tolerance = {2e-3, 0};
    c.tolerance_why = "f16 vs f16: each rounds an f32 rotation once; <= 1 f16 ulp of |y| < 2 apart; 2e-3 abs";
  } else {
    // Each implementation computes the two products and the sum in f32 (<= 3 roundings of <= 2^-24 * 2
    // each), a few ulps of 2 (2^-22 = 2.4e-7); 1e-5 leaves a 40x margin and still fails on any index, sign or
    // cache-row mistake (errors of order 0.1 .. 1).
    c.tolerance = {1e-5, 0};
    c.tolerance_why = "f32 vs f32: a few f32 ulps of |y| <= 2 (2.4e-7 each); 1e-5 abs";
  }
}


MovedBytes rotary_moved_bytes(const Tensors& inputs) {
  auto find = [&](const char* name) -> const HostTensor* {
    auto it = inputs.find(name);
    return it == inputs.end() ? nullptr : &it->second;
  };
  const HostTensor* x = find("x");
  const HostTensor* cos = find("cos");
  const HostTensor* sin = find("sin");
  const HostTensor* pos = find("positionIds");
  MovedBytes m;
  if (!x) return m;
  std::uint64_t position_bytes = 0, cos_sin = 0;
  if (pos) position_bytes = static_cast<std::uint64_t>(pos->numel()) * 4;
  if (cos && sin && !cos->shape.empty()) {
    std::uint64_t rows = 0;
    if (pos && pos->numel() > 1 && pos->dtype == DType::kInt64) {
      std::set<std::int64_t> distinct;
      for (std::int64_t i = 0; i < pos->numel(); ++i) {
        std::int64_t v;
        std::memcpy(&v, pos->data.data() + 8 * i, 8);
        distinct.insert(v);
      }
      rows = distinct.size();
    } else {
      // One offset (com.microsoft) or no ids (ai.onnx: cos/sin already per token): one row per token.
      const std::int64_t seq = x->shape.size() == 4 ? x->shape[2] : x->shape.size() >= 2 ? x->shape[1] : 1;
      rows = static_cast<std::uint64_t>(seq);
      if (!pos) rows = static_cast<std::uint64_t>(cos->numel() / std::max<std::int64_t>(cos->shape.back(), 1));
    }
    cos_sin = 2 * rows * static_cast<std::uint64_t>(cos->shape.back()) * dtype_size(cos->dtype);
  }
  m.total = 2 * x->data.size() + cos_sin + position_bytes;
  m.copy = x->data.size();
  return m;
}
}  // namespace wgk::reference
