#pragma once
// The expression AST (internal to src/expr and src/template): one Node per syntax element, each with
// its source span so that errors and Expression::explain can quote the text they are about.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "expr/value.h"

namespace wgk::expr {

enum class NodeKind : std::uint8_t {
  kLiteral,  // literal
  kName,     // name: a top-level scope name
  kMember,   // kids[0].name
  kIndex,    // kids[0][kids[1]]
  kCall,     // builtin(kids...)
  kFilter,   // kids[0] | filter(kids[1..])
  kTest,     // kids[0] is [not] test(kids[1..])
  kUnary,    // op kids[0] (kNeg, kPos)
  kBinary,   // kids[0] op kids[1] (arithmetic, ~)
  kCompare,  // kids[0] ops[0] kids[1] ops[1] kids[2] ... (Python's chained comparison)
  kAnd,      // kids[0] and kids[1]
  kOr,       // kids[0] or kids[1]
  kNot,      // not kids[0]
  kCond,     // kids[0] if kids[1] else kids[2] (kids.size() == 2 without else)
  kList,     // [kids...] and (kids,...)
  kDict,     // {kids[0]: kids[1], ...}
};

enum class Op : std::uint8_t {
  kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow, kConcat, kNeg, kPos,
  kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn,
};

/// Functions callable as `name(...)`, resolved at parse time (docs/design.md lists them; `range`
/// is Jinja's global, for templates' `{% for %}`).
enum class Builtin : std::uint8_t { kCeilDiv, kNumel, kDim, kSameShape, kBroadcastable, kF16Ok, kMin, kMax, kRange };

/// Jinja filters (`x | name`) and tests (`x is name`) this engine knows, resolved at parse time.
enum class FilterFn : std::uint8_t { kAbs, kInt, kFloat, kString, kLength };
enum class TestFn : std::uint8_t { kDefined, kUndefined, kNone, kNumber, kInteger, kFloat, kString, kEven, kOdd };

struct Node {
  NodeKind kind = NodeKind::kLiteral;
  Op op = Op::kAdd;                 // kUnary, kBinary
  Builtin builtin = Builtin::kMin;  // kCall
  FilterFn filter = FilterFn::kAbs;  // kFilter
  TestFn test = TestFn::kDefined;    // kTest
  bool negated = false;              // kTest: `is not`
  std::uint32_t begin = 0, end = 0;  // source span [begin, end) in the expression text
  std::uint32_t op_pos = 0;          // where the operator / call / member dot is
  std::uint32_t depth = 1;           // 1 + the deepest kid (the parser bounds it)
  Value literal;                     // kLiteral
  std::string name;                  // kName, kMember (the member name)
  std::vector<Op> ops;               // kCompare
  std::vector<std::unique_ptr<Node>> kids;
};

}  // namespace wgk::expr
