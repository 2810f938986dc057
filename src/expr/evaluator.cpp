// Evaluation of the expression AST with Python semantics (docs/design.md: `/` true division, `//`
// floor, `%` with the divisor's sign, int64 overflow and division by zero are errors, comparisons of
// unrelated types are errors) and Jinja2's Undefined (only `is defined` and truthiness may use it).
#include "expr/evaluator.h"

#include <algorithm>

#include <charconv>
#include <cmath>
#include <limits>

#include "wgk/error.h"

namespace wgk::expr::detail {

std::string position(const SourceInfo& src, std::uint32_t offset) {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(src.text.size()));
  if (src.origin.line <= 0) return "column " + std::to_string(offset + 1);
  int line = src.origin.line;
  int column = src.origin.column;
  for (std::uint32_t i = 0; i < offset; ++i) {
    if (src.text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

std::string short_repr(const Value& v, std::size_t max_chars) {
  std::string r = v.repr();
  if (r.size() > max_chars) r = r.substr(0, max_chars) + "...";
  return r;
}

namespace {

using I64 = std::int64_t;

bool intlike(const Value& v) { return v.is_int() || v.is_bool(); }
I64 to_i(const Value& v) { return v.is_int() ? v.as_int() : (v.as_bool() ? 1 : 0); }
long double to_ld(const Value& v) { return v.is_float() ? v.as_float() : static_cast<long double>(to_i(v)); }

const char* op_text(Op op) {
  switch (op) {
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kFloorDiv: return "//";
    case Op::kMod: return "%";
    case Op::kPow: return "**";
    case Op::kConcat: return "~";
    case Op::kNeg: return "-";
    case Op::kPos: return "+";
    case Op::kEq: return "==";
    case Op::kNe: return "!=";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
    case Op::kIn: return "in";
    case Op::kNotIn: return "not in";
  }
  return "?";
}

// Python's float floor division and modulo (Objects/floatobject.c: float_divmod).
void float_divmod(double vx, double wx, double& floordiv, double& mod) {
  mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, vx / wx);
  }
}

// Elements plus string bytes of a value built by an operator, bounded (nested lists share storage,
// so an unbounded walk could be exponential).
bool within_limits(const Value& v, std::size_t& budget, int depth) {
  if (depth > 32) return false;
  if (v.is_string()) {
    if (v.as_string().size() > budget) return false;
    budget -= v.as_string().size();
    return true;
  }
  if (v.is_list()) {
    for (const auto& item : v.as_list()) {
      if (budget < 8) return false;
      budget -= 8;
      if (!within_limits(item, budget, depth + 1)) return false;
    }
  } else if (v.is_object()) {
    for (const auto& [key, item] : v.as_object()) {
      if (budget < 8 + key.size()) return false;
      budget -= 8 + key.size();
      if (!within_limits(item, budget, depth + 1)) return false;
    }
  }
  return true;
}

class Evaluator {
 public:
  Evaluator(const Scope& scope, const SourceInfo& src) : scope_(scope), src_(src) {}

  Value eval(const Node& n) {
    switch (n.kind) {
      case NodeKind::kLiteral: return n.literal;
      case NodeKind::kName: return scope_.lookup(n.name);
      case NodeKind::kMember: return member(n);
      case NodeKind::kIndex: return index(n);
      case NodeKind::kCall: return call(n);
      case NodeKind::kFilter: return filter(n);
      case NodeKind::kTest: return test(n);
      case NodeKind::kUnary: return unary(n);
      case NodeKind::kBinary: {
        Value a = defined(*n.kids[0]);
        Value b = defined(*n.kids[1]);
        return binary(n, n.op, a, b);
      }
      case NodeKind::kCompare: return compare_chain(n);
      case NodeKind::kAnd: {
        Value a = eval(*n.kids[0]);
        if (!a.truthy()) return a;
        return eval(*n.kids[1]);
      }
      case NodeKind::kOr: {
        Value a = eval(*n.kids[0]);
        if (a.truthy()) return a;
        return eval(*n.kids[1]);
      }
      case NodeKind::kNot: return Value(!eval(*n.kids[0]).truthy());
      case NodeKind::kCond: {
        if (eval(*n.kids[1]).truthy()) return eval(*n.kids[0]);
        if (n.kids.size() == 3) return eval(*n.kids[2]);
        return Value();
      }
      case NodeKind::kList: {
        List items;
        items.reserve(n.kids.size());
        for (const auto& k : n.kids) items.push_back(defined(*k));
        return checked(n, Value(std::move(items)));
      }
      case NodeKind::kDict: {
        Object items;
        for (std::size_t i = 0; i + 1 < n.kids.size(); i += 2) {
          Value key = defined(*n.kids[i]);
          if (!key.is_string()) fail(n.kids[i]->begin, "dict keys must be strings, got " + key.type_name() + " " + short_repr(key));
          items.insert_or_assign(key.as_string(), defined(*n.kids[i + 1]));
        }
        return checked(n, Value(std::move(items)));
      }
    }
    return Value();
  }

  [[noreturn]] void fail(std::uint32_t offset, const std::string& message) const {
    throw Error(ErrorKind::kContract, src_.path + ": " + position(src_, offset) + ": " + message);
  }

  std::string_view text(const Node& n) const {
    return std::string_view(src_.text).substr(n.begin, n.end - n.begin);
  }

 private:
  // The value of `n`, which must not be Undefined.
  Value defined(const Node& n) {
    Value v = eval(n);
    if (v.is_undefined()) undefined_error(n);
    return v;
  }
  [[noreturn]] void undefined_error(const Node& n) const {
    fail(n.begin, std::string(text(n)) + " is undefined");
  }

  Value checked(const Node& n, Value v) const {
    std::size_t budget = kMaxValueBytes;
    if (!within_limits(v, budget, 0)) fail(n.op_pos, "value too large (limit " + std::to_string(kMaxValueBytes) + " bytes or 32 levels)");
    return v;
  }

  // `n` (a name, or a member of one) without copying it, when the scope holds it; else nullptr.
  const Value* ref(const Node& n) {
    if (n.kind == NodeKind::kName) return scope_.lookup_ref(n.name);
    if (n.kind != NodeKind::kMember) return nullptr;
    const Value* base = ref(*n.kids[0]);
    if (!base || !base->is_object()) return nullptr;  // undefined or not an object: member() explains
    const Object& obj = base->as_object();
    auto it = obj.find(n.name);
    return it == obj.end() ? nullptr : &it->second;
  }

  Value member(const Node& n) {
    if (const Value* base = ref(*n.kids[0]); base && base->is_object()) {
      const Object& obj = base->as_object();
      auto it = obj.find(n.name);
      return it == obj.end() ? Value() : it->second;
    }
    Value base = eval(*n.kids[0]);
    if (base.is_undefined()) {
      fail(n.kids[0]->begin, std::string(text(*n.kids[0])) + " is undefined (reading ." + n.name + ")");
    }
    if (!base.is_object()) return Value();  // Jinja: a missing attribute is Undefined
    const Object& obj = base.as_object();
    auto it = obj.find(n.name);
    return it == obj.end() ? Value() : it->second;
  }

  Value index(const Node& n) {
    Value base = eval(*n.kids[0]);
    if (base.is_undefined()) fail(n.kids[0]->begin, std::string(text(*n.kids[0])) + " is undefined (subscripted)");
    Value key = defined(*n.kids[1]);
    if (base.is_object()) {
      if (!key.is_string()) return Value();
      const Object& obj = base.as_object();
      auto it = obj.find(key.as_string());
      return it == obj.end() ? Value() : it->second;
    }
    if (base.is_list() || base.is_string()) {
      if (!intlike(key)) fail(n.op_pos, "indices must be integers, not " + key.type_name() + ": " + std::string(text(n)));
      I64 size = base.is_list() ? static_cast<I64>(base.as_list().size()) : static_cast<I64>(base.as_string().size());
      I64 i = to_i(key);
      if (i < 0) i += size;
      if (i < 0 || i >= size) return Value();  // Jinja: an index out of range is Undefined
      if (base.is_list()) return base.as_list()[static_cast<std::size_t>(i)];
      return Value(std::string(1, base.as_string()[static_cast<std::size_t>(i)]));
    }
    return Value();
  }

  Value unary(const Node& n) {
    Value v = defined(*n.kids[0]);
    if (!v.is_number()) {
      fail(n.op_pos, std::string("bad operand type for unary ") + op_text(n.op) + ": '" + v.type_name() + "': " + short_repr(v));
    }
    if (n.op == Op::kPos) return v.is_bool() ? Value(to_i(v)) : v;
    if (v.is_float()) return Value(-v.as_float());
    I64 i = to_i(v);
    if (i == std::numeric_limits<I64>::min()) fail(n.op_pos, "integer overflow: -(" + std::to_string(i) + ")");
    return Value(-i);
  }

  [[noreturn]] void type_error(const Node& n, Op op, const Value& a, const Value& b) const {
    fail(n.op_pos, std::string("unsupported operand types for ") + op_text(op) + ": '" + a.type_name() + "' and '" +
                       b.type_name() + "': " + short_repr(a) + " " + op_text(op) + " " + short_repr(b));
  }
  [[noreturn]] void overflow(const Node& n, Op op, const Value& a, const Value& b) const {
    fail(n.op_pos, std::string("integer overflow: ") + short_repr(a) + " " + op_text(op) + " " + short_repr(b));
  }

  Value repeat(const Node& n, const Value& seq, I64 times) const {
    // An empty sequence repeated any number of times is empty: return at once (looping `times` times
    // over nothing would hang on "" * 2^63, found by fuzz_expr).
    const bool empty = seq.is_string() ? seq.as_string().empty() : seq.as_list().empty();
    if (times <= 0 || empty) return seq.is_string() ? Value(std::string()) : Value(List{});
    std::size_t unit = seq.is_string() ? seq.as_string().size() : seq.as_list().size() * 8;
    if (unit != 0 && static_cast<std::size_t>(times) > kMaxValueBytes / unit) {
      fail(n.op_pos, "value too large: " + short_repr(seq, 40) + " * " + std::to_string(times));
    }
    if (seq.is_string()) {
      std::string out;
      out.reserve(unit * static_cast<std::size_t>(times));
      for (I64 i = 0; i < times; ++i) out += seq.as_string();
      return Value(std::move(out));
    }
    List out;
    for (I64 i = 0; i < times; ++i) out.insert(out.end(), seq.as_list().begin(), seq.as_list().end());
    return checked(n, Value(std::move(out)));
  }

 public:
  Value binary(const Node& n, Op op, const Value& a, const Value& b) {
    bool numbers = a.is_number() && b.is_number();
    bool ints = intlike(a) && intlike(b);
    switch (op) {
      case Op::kAdd:
        if (ints) {
          I64 r;
          if (__builtin_add_overflow(to_i(a), to_i(b), &r)) overflow(n, op, a, b);
          return Value(r);
        }
        if (numbers) return Value(a.as_number() + b.as_number());
        if (a.is_string() && b.is_string()) {
          if (a.as_string().size() + b.as_string().size() > kMaxValueBytes) fail(n.op_pos, "value too large: string concatenation");
          return Value(a.as_string() + b.as_string());
        }
        if (a.is_list() && b.is_list()) {
          List out = a.as_list();
          out.insert(out.end(), b.as_list().begin(), b.as_list().end());
          return checked(n, Value(std::move(out)));
        }
        type_error(n, op, a, b);
      case Op::kSub:
        if (ints) {
          I64 r;
          if (__builtin_sub_overflow(to_i(a), to_i(b), &r)) overflow(n, op, a, b);
          return Value(r);
        }
        if (numbers) return Value(a.as_number() - b.as_number());
        type_error(n, op, a, b);
      case Op::kMul:
        if (ints) {
          I64 r;
          if (__builtin_mul_overflow(to_i(a), to_i(b), &r)) overflow(n, op, a, b);
          return Value(r);
        }
        if (numbers) return Value(a.as_number() * b.as_number());
        if ((a.is_string() || a.is_list()) && intlike(b)) return repeat(n, a, to_i(b));
        if (intlike(a) && (b.is_string() || b.is_list())) return repeat(n, b, to_i(a));
        type_error(n, op, a, b);
      case Op::kDiv:
        if (!numbers) type_error(n, op, a, b);
        if (b.as_number() == 0.0) fail(n.op_pos, "division by zero: " + short_repr(a) + " / " + short_repr(b));
        // int / int: (double)a / (double)b is Python's correctly rounded quotient while |a|, |b| < 2^53.
        return Value(a.as_number() / b.as_number());
      case Op::kFloorDiv:
      case Op::kMod: {
        if (!numbers) type_error(n, op, a, b);
        if (b.as_number() == 0.0) {
          fail(n.op_pos, std::string(op == Op::kMod ? "modulo by zero: " : "division by zero: ") + short_repr(a) + " " +
                             op_text(op) + " " + short_repr(b));
        }
        if (ints) {
          I64 x = to_i(a), y = to_i(b);
          if (y == -1) {
            if (op == Op::kMod) return Value(I64{0});
            if (x == std::numeric_limits<I64>::min()) overflow(n, op, a, b);
            return Value(-x);
          }
          I64 q = x / y, r = x % y;
          if (r != 0 && ((r < 0) != (y < 0))) {
            q -= 1;
            r += y;
          }
          return Value(op == Op::kMod ? r : q);
        }
        double fd, md;
        float_divmod(a.as_number(), b.as_number(), fd, md);
        return Value(op == Op::kMod ? md : fd);
      }
      case Op::kPow: {
        if (!numbers) type_error(n, op, a, b);
        if (ints && to_i(b) >= 0) {
          I64 base = to_i(a), e = to_i(b), r = 1;
          while (e > 0) {
            if (e & 1) {
              if (__builtin_mul_overflow(r, base, &r)) overflow(n, op, a, b);
            }
            e >>= 1;
            if (e > 0 && __builtin_mul_overflow(base, base, &base)) overflow(n, op, a, b);
          }
          return Value(r);
        }
        double x = a.as_number(), y = b.as_number();
        if (x == 0.0 && y < 0) fail(n.op_pos, "zero to a negative power: " + short_repr(a) + " ** " + short_repr(b));
        if (x < 0 && y != std::floor(y)) {
          fail(n.op_pos, "negative number to a fractional power: " + short_repr(a) + " ** " + short_repr(b));
        }
        double r = std::pow(x, y);
        if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) {
          fail(n.op_pos, "float overflow: " + short_repr(a) + " ** " + short_repr(b));
        }
        return Value(r);
      }
      case Op::kConcat: {
        if (a.is_undefined() || b.is_undefined()) type_error(n, op, a, b);
        std::string sa = a.str(), sb = b.str();
        if (sa.size() + sb.size() > kMaxValueBytes) fail(n.op_pos, "value too large: string concatenation");
        return Value(sa + sb);
      }
      default: break;
    }
    return compare(n, op, a, b);
  }

  // Python's a < b etc.: numbers with numbers, str with str, lists element-wise; else a TypeError.
  int order(const Node& n, Op op, const Value& a, const Value& b, int depth = 0) {
    if (a.is_number() && b.is_number()) {
      long double x = to_ld(a), y = to_ld(b);
      if (std::isnan(x) || std::isnan(y)) return 2;  // unordered: every comparison false
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (a.is_string() && b.is_string()) {
      int c = a.as_string().compare(b.as_string());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    if (a.is_list() && b.is_list() && depth < 32) {
      const List& x = a.as_list();
      const List& y = b.as_list();
      for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (x[i] == y[i]) continue;
        return order(n, op, x[i], y[i], depth + 1);
      }
      return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
    }
    fail(n.op_pos, std::string("'") + op_text(op) + "' not supported between '" + a.type_name() + "' and '" +
                       b.type_name() + "': " + short_repr(a) + " " + op_text(op) + " " + short_repr(b));
  }

  bool contains(const Node& n, Op op, const Value& item, const Value& container) {
    if (container.is_list()) {
      for (const auto& v : container.as_list()) {
        if (v == item) return true;
      }
      return false;
    }
    if (container.is_string()) {
      if (!item.is_string()) {
        fail(n.op_pos, "'in <string>' requires a string on the left, not '" + item.type_name() + "': " + short_repr(item));
      }
      return container.as_string().find(item.as_string()) != std::string::npos;
    }
    if (container.is_object()) {
      return item.is_string() && container.as_object().count(item.as_string()) > 0;
    }
    fail(n.op_pos, std::string("argument of '") + op_text(op) + "' is a '" + container.type_name() +
                       "', not a list, string or dict: " + short_repr(container));
  }

  Value compare(const Node& n, Op op, const Value& a, const Value& b) {
    switch (op) {
      case Op::kEq: return Value(a == b);
      case Op::kNe: return Value(!(a == b));
      case Op::kIn: return Value(contains(n, op, a, b));
      case Op::kNotIn: return Value(!contains(n, op, a, b));
      default: break;
    }
    int c = order(n, op, a, b);
    if (c == 2) return Value(false);
    switch (op) {
      case Op::kLt: return Value(c < 0);
      case Op::kLe: return Value(c <= 0);
      case Op::kGt: return Value(c > 0);
      case Op::kGe: return Value(c >= 0);
      default: return Value(false);
    }
  }

 private:
  Value compare_chain(const Node& n) {
    Value left = defined(*n.kids[0]);
    for (std::size_t i = 0; i < n.ops.size(); ++i) {
      Value right = defined(*n.kids[i + 1]);
      Value r = compare(n, n.ops[i], left, right);
      if (!r.as_bool() || i + 1 == n.ops.size()) return r;
      left = std::move(right);
    }
    return Value(true);
  }

  const List& shape_arg(const Node& call, std::size_t i, const Value& v) const {
    if (!v.is_list()) {
      fail(call.kids[i]->begin, call.name + "(): " + std::string(text(*call.kids[i])) + " is not a shape (list of ints): " +
                                    short_repr(v));
    }
    return v.as_list();
  }
  I64 int_arg(const Node& call, std::size_t i, const Value& v) const {
    if (!intlike(v)) {
      fail(call.kids[i]->begin, call.name + "(): " + std::string(text(*call.kids[i])) + " must be an int, got " + v.type_name() +
                                    " " + short_repr(v));
    }
    return to_i(v);
  }

  Value call(const Node& n) {
    switch (n.builtin) {
      case Builtin::kCeilDiv: {
        Value a = defined(*n.kids[0]);
        Value b = defined(*n.kids[1]);
        if (!a.is_number() || !b.is_number()) {
          fail(n.begin, "ceilDiv() needs numbers: ceilDiv(" + short_repr(a) + ", " + short_repr(b) + ")");
        }
        if (b.as_number() == 0.0) fail(n.begin, "division by zero: ceilDiv(" + short_repr(a) + ", " + short_repr(b) + ")");
        if (intlike(a) && intlike(b)) {
          I64 x = to_i(a), y = to_i(b);
          if (y == -1) {
            if (x == std::numeric_limits<I64>::min()) fail(n.begin, "integer overflow: ceilDiv(" + short_repr(a) + ", -1)");
            return Value(-x);
          }
          I64 q = x / y;
          if (x % y != 0 && ((x < 0) == (y < 0))) q += 1;
          return Value(q);
        }
        // A float operand (e.g. `numel(shapes.x) / 2`): ceil of the true quotient, as an int.
        double q = std::ceil(a.as_number() / b.as_number());
        if (!(q >= -9.2233720368547758e18 && q < 9.2233720368547758e18)) {
          fail(n.begin, "ceilDiv(" + short_repr(a) + ", " + short_repr(b) + ") is not a finite int64");
        }
        return Value(static_cast<I64>(q));
      }
      case Builtin::kNumel: {
        Value s = defined(*n.kids[0]);
        const List& shape = shape_arg(n, 0, s);
        // numel(shape, start): the product of dims start..rank-1 (a negative start counts from the end,
        // as dim() does; start == rank gives 1).
        std::size_t from = 0;
        if (n.kids.size() == 2) {
          Value i = defined(*n.kids[1]);
          const I64 k = int_arg(n, 1, i);
          const I64 rank = static_cast<I64>(shape.size());
          const I64 j = k < 0 ? k + rank : k;
          if (j < 0 || j > rank)
            fail(n.begin, "numel(" + std::string(text(*n.kids[0])) + ", " + std::to_string(k) + "): start " +
                              std::to_string(k) + " out of range for rank " + std::to_string(rank) + " shape " + short_repr(s));
          from = static_cast<std::size_t>(j);
        }
        I64 r = 1;
        for (std::size_t at = from; at < shape.size(); ++at) {
          const auto& d = shape[at];
          if (!intlike(d)) fail(n.begin, "numel(): shape element is not an int: " + short_repr(s));
          if (__builtin_mul_overflow(r, to_i(d), &r)) fail(n.begin, "integer overflow: numel(" + short_repr(s) + ")");
        }
        return Value(r);
      }
      case Builtin::kDim: {
        Value s = defined(*n.kids[0]);
        Value i = defined(*n.kids[1]);
        const List& shape = shape_arg(n, 0, s);
        I64 k = int_arg(n, 1, i);
        I64 rank = static_cast<I64>(shape.size());
        I64 j = k < 0 ? k + rank : k;
        if (j < 0 || j >= rank) {
          fail(n.begin, "dim(" + std::string(text(*n.kids[0])) + ", " + std::to_string(k) + "): index " + std::to_string(k) +
                            " out of range for rank " + std::to_string(rank) + " shape " + short_repr(s));
        }
        return shape[static_cast<std::size_t>(j)];
      }
      case Builtin::kSameShape: {
        Value a = defined(*n.kids[0]);
        Value b = defined(*n.kids[1]);
        shape_arg(n, 0, a);
        shape_arg(n, 1, b);
        return Value(a == b);
      }
      case Builtin::kBroadcastable: {
        // Unidirectional (numpy/ONNX) broadcasting: `a` broadcasts to `b` when rank(a) <= rank(b) and each
        // dim of `a`, aligned from the last, is 1 or equals b's.
        Value a = defined(*n.kids[0]);
        Value b = defined(*n.kids[1]);
        const List& from = shape_arg(n, 0, a);
        const List& to = shape_arg(n, 1, b);
        if (from.size() > to.size()) return Value(false);
        for (std::size_t k = 1; k <= from.size(); ++k) {
          const Value& d = from[from.size() - k];
          const Value& e = to[to.size() - k];
          if (!intlike(d) || !intlike(e)) fail(n.begin, "broadcastable(): shape element is not an int");
          if (to_i(d) != 1 && to_i(d) != to_i(e)) return Value(false);
        }
        return Value(true);
      }
      case Builtin::kF16Ok: {
        Value t = defined(*n.kids[0]);
        if (!t.is_string()) fail(n.begin, "f16Ok() needs a dtype name string (dtypes.T), got " + short_repr(t));
        if (t.as_string() != "f16") return Value(true);
        return Value(shader_f16());
      }
      case Builtin::kMin:
      case Builtin::kMax: {
        bool is_min = n.builtin == Builtin::kMin;
        std::vector<Value> args;
        args.reserve(n.kids.size());
        for (const auto& k : n.kids) args.push_back(defined(*k));
        if (args.size() == 1) {  // Python: min(iterable)
          if (!args[0].is_list()) fail(n.begin, n.name + "() of one argument needs a list, got " + short_repr(args[0]));
          List items = args[0].as_list();
          if (items.empty()) fail(n.begin, n.name + "() of an empty list");
          args.assign(items.begin(), items.end());
        }
        std::size_t best = 0;
        for (std::size_t i = 1; i < args.size(); ++i) {
          int c = order(n, is_min ? Op::kLt : Op::kGt, args[i], args[best]);
          if (c != 2 && (is_min ? c < 0 : c > 0)) best = i;
        }
        return args[best];
      }
      case Builtin::kRange: {
        I64 v[3] = {0, 0, 1};
        std::vector<Value> args;
        for (std::size_t i = 0; i < n.kids.size(); ++i) args.push_back(defined(*n.kids[i]));
        if (args.size() == 1) {
          v[1] = int_arg(n, 0, args[0]);
        } else {
          for (std::size_t i = 0; i < args.size(); ++i) v[i] = int_arg(n, i, args[i]);
        }
        if (v[2] == 0) fail(n.begin, "range() step must not be zero");
        long double count = (static_cast<long double>(v[1]) - v[0]) / v[2];
        if (count > 65536) fail(n.begin, "range() longer than 65536 items");
        List out;
        for (I64 x = v[0]; v[2] > 0 ? x < v[1] : x > v[1]; x += v[2]) out.push_back(Value(x));
        return Value(std::move(out));
      }
    }
    return Value();
  }

  bool shader_f16() const {
    Value device = scope_.lookup("device");
    if (!device.is_object()) return false;
    auto f = device.as_object().find("features");
    if (f == device.as_object().end() || !f->second.is_object()) return false;
    auto s = f->second.as_object().find("shader_f16");
    return s != f->second.as_object().end() && s->second.truthy();
  }

  Value filter(const Node& n) {
    Value v = defined(*n.kids[0]);
    switch (n.filter) {
      case FilterFn::kAbs:
        if (v.is_float()) return Value(std::fabs(v.as_float()));
        if (intlike(v)) {
          I64 i = to_i(v);
          if (i == std::numeric_limits<I64>::min()) fail(n.op_pos, "integer overflow: abs(" + std::to_string(i) + ")");
          return Value(i < 0 ? -i : i);
        }
        fail(n.op_pos, "abs needs a number, got " + v.type_name() + " " + short_repr(v));
      case FilterFn::kInt:
        if (intlike(v)) return Value(to_i(v));
        if (v.is_float()) {
          double d = std::trunc(v.as_float());
          if (!(d >= -9.2233720368547758e18 && d < 9.2233720368547758e18)) return Value(I64{0});
          return Value(static_cast<I64>(d));
        }
        if (v.is_string()) {
          I64 i = 0;
          const std::string& s = v.as_string();
          auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
          return Value(ec == std::errc() && p == s.data() + s.size() ? i : I64{0});
        }
        return Value(I64{0});  // Jinja's int filter: default 0
      case FilterFn::kFloat:
        if (v.is_number()) return Value(v.as_number());
        return Value(0.0);
      case FilterFn::kString: return Value(v.str());
      case FilterFn::kLength:
        if (v.is_list()) return Value(static_cast<I64>(v.as_list().size()));
        if (v.is_string()) return Value(static_cast<I64>(v.as_string().size()));
        if (v.is_object()) return Value(static_cast<I64>(v.as_object().size()));
        fail(n.op_pos, "length of a " + v.type_name() + ": " + short_repr(v));
    }
    return Value();
  }

  Value test(const Node& n) {
    Value v = eval(*n.kids[0]);
    bool r = false;
    switch (n.test) {
      case TestFn::kDefined: r = !v.is_undefined(); break;
      case TestFn::kUndefined: r = v.is_undefined(); break;
      default:
        if (v.is_undefined()) undefined_error(*n.kids[0]);
        switch (n.test) {
          case TestFn::kNone: r = v.is_none(); break;
          case TestFn::kNumber: r = v.is_number(); break;
          case TestFn::kInteger: r = v.is_int(); break;
          case TestFn::kFloat: r = v.is_float(); break;
          case TestFn::kString: r = v.is_string(); break;
          case TestFn::kEven:
          case TestFn::kOdd:
            if (!intlike(v)) fail(n.op_pos, "even/odd need an int, got " + v.type_name() + " " + short_repr(v));
            r = (to_i(v) % 2 == 0) == (n.test == TestFn::kEven);
            break;
          default: break;
        }
    }
    return Value(n.negated ? !r : r);
  }

  const Scope& scope_;
  const SourceInfo& src_;
};

// "text = value" for the operands worth showing in an explanation.
void operand(std::vector<std::string>& out, Evaluator& ev, const Node& n) {
  // A literal says nothing its text does not, a signed one (-7e-46, a unary minus of a literal) neither.
  if (n.kind == NodeKind::kLiteral) return;
  if (n.kind == NodeKind::kUnary && n.kids[0]->kind == NodeKind::kLiteral) return;
  std::string value;
  try {
    value = short_repr(ev.eval(n));
  } catch (const Error& e) {
    value = std::string("<error: ") + e.what() + ">";
  }
  std::string part = std::string(ev.text(n)) + " = " + value;
  // An arithmetic operand shows the derives and variables it reads, so "headElements % 2 = 1" also says what
  // headElements is.
  if (n.kind == NodeKind::kBinary) {
    std::string names;
    for (const auto& k : n.kids) {
      if (k->kind != NodeKind::kName) continue;
      try {
        names += (names.empty() ? "" : ", ") + k->name + " = " + short_repr(ev.eval(*k));
      } catch (const Error&) {
      }
    }
    if (!names.empty()) part += " (" + names + ")";
  }
  out.push_back(std::move(part));
}

void or_terms(const Node& n, std::vector<const Node*>& out) {
  if (n.kind == NodeKind::kOr) {
    for (const auto& k : n.kids) or_terms(*k, out);
  } else {
    out.push_back(&n);
  }
}

// A falsy membership test, `x == a or x == b or ...` (one operand against literals) or `x in [a, b, ...]`,
// explained without restating the chain: "x = 3, not one of 1, 2, 4". Empty when `n` is neither.
std::string explain_membership(const Node& n, Evaluator& ev) {
  const Node* operand_node = nullptr;
  std::vector<std::string> allowed;
  if (n.kind == NodeKind::kCompare && n.ops.size() == 1 && n.ops[0] == Op::kIn) {
    operand_node = n.kids[0].get();
    const Value list = ev.eval(*n.kids[1]);
    if (!list.is_list()) return "";
    for (const Value& v : list.as_list()) allowed.push_back(short_repr(v));
  } else if (n.kind == NodeKind::kOr) {
    std::vector<const Node*> terms;
    or_terms(n, terms);
    for (const Node* t : terms) {
      if (t->kind != NodeKind::kCompare || t->ops.size() != 1 || t->ops[0] != Op::kEq ||
          t->kids[1]->kind != NodeKind::kLiteral)
        return "";
      if (operand_node && ev.text(*operand_node) != ev.text(*t->kids[0])) return "";
      operand_node = t->kids[0].get();
      allowed.push_back(short_repr(t->kids[1]->literal));
    }
  }
  if (!operand_node || allowed.empty()) return "";
  std::string out = std::string(ev.text(*operand_node)) + " = " + short_repr(ev.eval(*operand_node)) + ", not one of ";
  for (std::size_t i = 0; i < allowed.size(); ++i) out += (i ? ", " : "") + allowed[i];
  return out;
}

std::string explain_node(const Node& n, Evaluator& ev, const Scope& scope, const Resolver& resolve, int depth) {
  std::string text(ev.text(n));
  try {
    if ((n.kind == NodeKind::kOr || n.kind == NodeKind::kCompare) && !ev.eval(n).truthy()) {
      if (std::string membership = explain_membership(n, ev); !membership.empty()) return membership;
    }
    if (n.kind == NodeKind::kOr && !ev.eval(n).truthy()) {
      // Every disjunct is false: the operands of each, once (a derive explained by its own expression), not
      // the nested `a or b` texts.
      std::vector<const Node*> terms;
      or_terms(n, terms);
      std::vector<std::string> parts;
      for (const Node* t : terms) {
        if (t->kind == NodeKind::kName && resolve && depth < 16) {
          if (const Expression* e = resolve(t->name)) {
            parts.push_back(t->name + ": " + e->explain(scope, [&](std::string_view name) { return resolve(name); }));
            continue;
          }
        }
        switch (t->kind) {
          case NodeKind::kCompare:
          case NodeKind::kCall:
          case NodeKind::kTest:
          case NodeKind::kNot:
          case NodeKind::kBinary:
          case NodeKind::kFilter:
            for (const auto& k : t->kids) operand(parts, ev, *k);
            break;
          default:
            operand(parts, ev, *t);
        }
      }
      std::string out = text + " is false";
      std::vector<std::string> seen;
      for (const auto& p : parts) {
        if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
        out += (seen.empty() ? ": " : ", ") + p;
        seen.push_back(p);
      }
      return out;
    }
    switch (n.kind) {
      case NodeKind::kAnd: {
        if (!ev.eval(*n.kids[0]).truthy()) return explain_node(*n.kids[0], ev, scope, resolve, depth);
        return explain_node(*n.kids[1], ev, scope, resolve, depth);
      }
      case NodeKind::kCond: {
        if (ev.eval(*n.kids[1]).truthy()) return explain_node(*n.kids[0], ev, scope, resolve, depth);
        if (n.kids.size() == 3) return explain_node(*n.kids[2], ev, scope, resolve, depth);
        return text + " is undefined: " + std::string(ev.text(*n.kids[1])) + " is false and there is no else";
      }
      case NodeKind::kName:
        if (resolve && depth < 16) {
          if (const Expression* e = resolve(n.name)) {
            return n.name + ": " + e->explain(scope, [&](std::string_view name) { return resolve(name); });
          }
        }
        break;
      default: break;
    }
    Value v = ev.eval(n);
    if (v.truthy()) return text + " is true";
    std::vector<std::string> parts;
    switch (n.kind) {
      case NodeKind::kNot:
      case NodeKind::kTest:
      case NodeKind::kCall:
      case NodeKind::kCompare:
      case NodeKind::kOr:
      case NodeKind::kBinary:
      case NodeKind::kFilter:
        for (const auto& k : n.kids) operand(parts, ev, *k);
        if (n.kind == NodeKind::kCall && n.builtin == Builtin::kF16Ok) {
          Value device = scope.lookup("device");
          bool f16 = false;
          if (device.is_object()) {
            auto f = device.as_object().find("features");
            if (f != device.as_object().end() && f->second.is_object()) {
              auto s = f->second.as_object().find("shader_f16");
              f16 = s != f->second.as_object().end() && s->second.truthy();
            }
          }
          parts.push_back(std::string("device.features.shader_f16 = ") + (f16 ? "True" : "False"));
        }
        break;
      default:
        if (!v.is_bool()) parts.push_back(text + " = " + short_repr(v));
    }
    std::string out = text + " is false";
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? ": " : ", ") + parts[i];
    return out;
  } catch (const Error& e) {
    return text + ": " + e.what();
  }
}

}  // namespace

Value evaluate(const Node& root, const Scope& scope, const SourceInfo& src) {
  Evaluator ev(scope, src);
  return ev.eval(root);
}

std::string explain(const Node& root, const Scope& scope, const SourceInfo& src, const Resolver& resolve, int depth) {
  Evaluator ev(scope, src);
  return explain_node(root, ev, scope, resolve, depth);
}

}  // namespace wgk::expr::detail
