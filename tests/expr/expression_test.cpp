// The expression language against hand-derived values (Python 3 / Jinja2 semantics; each expected
// value is what Python or Jinja2 gives, worked out by hand in the comment beside it).
#include "expr/expression.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "wgk/error.h"

namespace wgk::expr {
namespace {

using ::testing::HasSubstr;

// A scope with the names the table uses.
ObjectScope table_scope() {
  return ObjectScope(Object{
      {"shapes", Object{{"x", List{2, 4, 3, 8}}, {"cos", List{50, 4}}, {"e", List{}}}},
      {"ranks", Object{{"x", 4}, {"cos", 2}}},
      {"attrs", Object{{"num_heads", 4}, {"interleaved", 0}}},  // no rotary_embedding_dim
      {"dtypes", Object{{"T", "f32"}}},
      {"device", Object{{"features", Object{{"shader_f16", false}}}}},
      {"n", 7},
      {"f", 2.5},
      {"s", "ab"},
      {"nothing", None{}},
  });
}

struct Case {
  const char* text;
  Value expected;
};

class ValueTable : public ::testing::TestWithParam<Case> {};

TEST_P(ValueTable, EvaluatesAsPython) {
  const Case& c = GetParam();
  ObjectScope scope = table_scope();
  Value v = Expression::parse(c.text, "test").evaluate(scope);
  // Types must match too: Python's 3 and 3.0 print differently.
  EXPECT_EQ(v.type_name(), c.expected.type_name()) << c.text << " gave " << v.repr();
  EXPECT_EQ(v, c.expected) << c.text << " gave " << v.repr();
}

INSTANTIATE_TEST_SUITE_P(
    Arithmetic, ValueTable,
    ::testing::Values(
        Case{"1 + 2", 3}, Case{"7 - 10", -3}, Case{"6 * 7", 42},
        Case{"7 / 2", 3.5},            // true division
        Case{"8 / 2", 4.0},            // always a float, even when exact
        Case{"-7 // 2", -4},           // floor(-3.5) = -4 (C would give -3)
        Case{"7 // -2", -4},           // floor(-3.5)
        Case{"-7 % 2", 1},             // -7 - 2 * floor(-7 / 2) = -7 + 8 = 1 (C: -1)
        Case{"7 % -2", -1},            // 7 - (-2) * (-4) = -1: the divisor's sign
        Case{"-7.5 // 2", -4.0},       // floor(-3.75) as a float
        Case{"-5.5 % 2", 0.5},         // -5.5 - 2 * floor(-2.75) = -5.5 + 6 = 0.5
        Case{"7.0 % 2", 1.0},
        Case{"2 ** 10", 1024}, Case{"2 ** -1", 0.5},
        Case{"2 ** 3 ** 2", 64},       // Jinja2: left-associative, (2 ** 3) ** 2 (Python: 512)
        Case{"-2 ** 2", 4},            // Jinja2: (-2) ** 2 (Python: -4)
        Case{"1 + 2.5", 3.5}, Case{"3 * 0.5", 1.5},
        Case{"True + 1", 2},           // bool is an int
        Case{"-n", -7}, Case{"+f", 2.5},
        Case{"1 + 2 * 3", 7}, Case{"(1 + 2) * 3", 9}, Case{"10 - 4 - 3", 3},  // left-assoc: (10-4)-3
        Case{"2 * 3 % 4", 2},          // (2 * 3) % 4, same level, left to right
        Case{"1_000 + 1", 1001},       // Jinja allows digit separators
        Case{"1e3", 1000.0}, Case{"2.5e-1", 0.25}));

INSTANTIATE_TEST_SUITE_P(
    Comparison, ValueTable,
    ::testing::Values(
        Case{"16.0 == 16", true},      // Python: numeric equality across int and float
        Case{"True == 1", true}, Case{"'a' == 1", false},  // unequal types are unequal, no error
        Case{"1 != 2", true}, Case{"2 < 3", true}, Case{"3 <= 3", true}, Case{"3 > 3", false},
        Case{"3 >= 3.0", true},
        Case{"1 < 2 < 3", true},       // chained: 1 < 2 and 2 < 3
        Case{"3 > 2 > 2", false},      // 3 > 2 and 2 > 2
        Case{"'ab' < 'b'", true},      // lexicographic
        Case{"[1, 2] < [1, 3]", true}, Case{"[1, 2] == [1, 2.0]", true},
        Case{"2 in [1, 2]", true}, Case{"'b' in s", true}, Case{"3 not in [1, 2]", true},
        Case{"'x' in shapes", true}, Case{"'y' in shapes", false},
        Case{"not 1 == 1", false},     // not binds looser than ==
        Case{"1 + 1 == 2", true}));

INSTANTIATE_TEST_SUITE_P(
    BooleanAndConditional, ValueTable,
    ::testing::Values(
        Case{"1 and 2", 2},            // Python returns the deciding operand
        Case{"0 and 2", 0}, Case{"0 or 'x'", "x"}, Case{"'' or 0", 0},
        Case{"not 0", true}, Case{"not []", true}, Case{"not nothing", true},
        Case{"True or 1 / 0", true},   // short-circuit: the division never runs
        Case{"False and 1 / 0", false},
        Case{"1 if n > 3 else 2", 1}, Case{"1 if n > 9 else 2", 2},
        Case{"1 if 0 else 2 if 0 else 3", 3},  // else-branch nests to the right
        Case{"1 or 0 and 0", 1},       // and binds tighter: 1 or (0 and 0)
        Case{"not 1 or 1", 1},         // (not 1) or 1 = False or 1 = 1
        Case{"attrs.rotary_embedding_dim is defined", false},
        Case{"attrs.rotary_embedding_dim is not defined", true},
        Case{"attrs.num_heads is defined and attrs.num_heads > 0", true},
        Case{"attrs.nope is defined and attrs.nope > 0", false},  // short-circuit past the undefined
        Case{"not attrs.nope", true},  // truthiness of Undefined is false
        Case{"nothing is none", true}, Case{"n is number", true}, Case{"n is odd", true},
        Case{"f is integer", false}, Case{"s is string", true}));

INSTANTIATE_TEST_SUITE_P(
    StringsAndMembers, ValueTable,
    ::testing::Values(
        Case{"\"vec4<\" ~ dtypes.T ~ \">\"", "vec4<f32>"},
        Case{"'a' ~ 1", "a1"}, Case{"'a' ~ 16.0", "a16.0"},  // str(16.0) is '16.0'
        Case{"1 ~ 2", "12"}, Case{"'x' ~ True", "xTrue"}, Case{"'x' ~ nothing", "xNone"},
        Case{"'v' ~ [1, 2]", "v[1, 2]"},
        Case{"'a' ~ 1 + 2 ~ 'b'", "a12b"},  // ~ binds tighter than +: ('a' ~ 1) + (2 ~ 'b')
        Case{"s + 'c'", "abc"}, Case{"s * 2", "abab"},
        Case{"shapes.x", List{2, 4, 3, 8}}, Case{"shapes.x[0]", 2}, Case{"shapes.x[-1]", 8},
        Case{"ranks.x - 1", 3}, Case{"shapes['cos']", List{50, 4}},
        Case{"[1, 2] + [3]", List{1, 2, 3}}, Case{"(1, 2)", List{1, 2}},
        Case{"shapes.x | length", 4}, Case{"-3 | abs", 3}, Case{"2.7 | int", 2}, Case{"3 | float", 3.0},
        Case{"{'a': 1}.a", 1}, Case{"range(3)", List{0, 1, 2}}, Case{"range(4, 0, -2)", List{4, 2}}));

INSTANTIATE_TEST_SUITE_P(
    Builtins, ValueTable,
    ::testing::Values(
        Case{"ceilDiv(7, 2)", 4}, Case{"ceilDiv(8, 2)", 4}, Case{"ceilDiv(-7, 2)", -3},  // ceil(-3.5)
        Case{"ceilDiv(96 / 2, 256)", 1},   // float operand: ceil(48.0 / 256) = 1, an int
        Case{"ceilDiv(513.0, 256)", 3},    // ceil(2.0039) = 3
        Case{"numel(shapes.x)", 192},      // 2 * 4 * 3 * 8
        Case{"numel(shapes.e)", 1},        // empty product
        Case{"dim(shapes.x, 1)", 4}, Case{"dim(shapes.x, -1)", 8}, Case{"dim(shapes.x, -4)", 2},
        Case{"sameShape(shapes.x, [2, 4, 3, 8])", true}, Case{"sameShape(shapes.x, shapes.cos)", false},
        Case{"f16Ok('f32')", true}, Case{"f16Ok('f16')", false},  // device without shader_f16
        Case{"min(3, 1, 2)", 1}, Case{"max(3, 1, 2.5)", 3}, Case{"min(2, 1.5)", 1.5},
        Case{"max(1, min(256, 1024, 256))", 256}, Case{"min([4, 2, 9])", 2}));

struct ErrorCase {
  const char* text;
  const char* message;  // a substring of what() after the "test: " path prefix
};

class ErrorTable : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ErrorTable, ThrowsContractErrorNamingPathColumnAndOperands) {
  const ErrorCase& c = GetParam();
  ObjectScope scope = table_scope();
  try {
    Value v = Expression::parse(c.text, "manifest.json: derive.d").evaluate(scope);
    FAIL() << c.text << " gave " << v.repr() << " instead of an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kContract);
    EXPECT_THAT(e.what(), HasSubstr(std::string("manifest.json: derive.d: ") + c.message)) << c.text;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Evaluation, ErrorTable,
    ::testing::Values(
        ErrorCase{"32 / 0", "column 4: division by zero: 32 / 0"},
        ErrorCase{"n // 0", "column 3: division by zero: 7 // 0"},
        ErrorCase{"n % 0.0", "column 3: modulo by zero: 7 % 0.0"},
        ErrorCase{"ceilDiv(n, 0)", "column 1: division by zero: ceilDiv(7, 0)"},
        ErrorCase{"9223372036854775807 + 1", "column 21: integer overflow: 9223372036854775807 + 1"},
        ErrorCase{"-9223372036854775807 - 2", "column 22: integer overflow: -9223372036854775807 - 2"},
        ErrorCase{"4294967296 * 4294967296", "column 12: integer overflow: 4294967296 * 4294967296"},  // 2^64
        ErrorCase{"2 ** 63", "column 3: integer overflow: 2 ** 63"},
        ErrorCase{"1 < 'a'", "column 3: '<' not supported between 'int' and 'str': 1 < 'a'"},
        ErrorCase{"[1] < 2", "column 5: '<' not supported between 'list' and 'int': [1] < 2"},
        ErrorCase{"'a' + 1", "column 5: unsupported operand types for +: 'str' and 'int': 'a' + 1"},
        ErrorCase{"'a' ~ 1 + 2", "column 9: unsupported operand types for +: 'str' and 'int': 'a1' + 2"},
        ErrorCase{"attrs.rotary_embedding_dim == 0", "column 1: attrs.rotary_embedding_dim is undefined"},
        ErrorCase{"attrs.nope + 1", "column 1: attrs.nope is undefined"},
        ErrorCase{"1 + attrs.nope", "column 5: attrs.nope is undefined"},
        ErrorCase{"missing.x", "column 1: missing is undefined (reading .x)"},
        ErrorCase{"'t' ~ attrs.nope", "column 7: attrs.nope is undefined"},
        ErrorCase{"dim(shapes.x, 4)", "column 1: dim(shapes.x, 4): index 4 out of range for rank 4 shape [2, 4, 3, 8]"},
        ErrorCase{"dim(shapes.x, -5)", "column 1: dim(shapes.x, -5): index -5 out of range for rank 4 shape [2, 4, 3, 8]"},
        ErrorCase{"dim(n, 0)", "column 5: dim(): n is not a shape (list of ints): 7"},
        ErrorCase{"numel(s)", "column 7: numel(): s is not a shape (list of ints): 'ab'"},
        ErrorCase{"f16Ok(3)", "column 1: f16Ok() needs a dtype name string (dtypes.T), got 3"},
        ErrorCase{"'a' * 5000000", "column 5: value too large: 'a' * 5000000"},
        ErrorCase{"range(100000)", "column 1: range() longer than 65536 items"},
        ErrorCase{"2 in 3", "column 3: argument of 'in' is a 'int', not a list, string or dict: 3"}));

INSTANTIATE_TEST_SUITE_P(
    Syntax, ErrorTable,
    ::testing::Values(
        ErrorCase{"1 +", "column 4: syntax error: unexpected end of expression"},
        ErrorCase{"(1 + 2", "column 7: syntax error: expected ')' to close '('"},
        ErrorCase{"foo(1)", "column 1: syntax error: unknown function 'foo'"},
        ErrorCase{"dim(shapes.x)", "column 1: syntax error: dim() takes 2 arguments, got 1"},
        ErrorCase{"1 2", "column 3: syntax error: unexpected '2' after a complete expression"},
        ErrorCase{"'abc", "column 1: syntax error: unterminated string literal"},
        ErrorCase{"a $ b", "column 3: syntax error: unexpected character '$'"},
        ErrorCase{"99999999999999999999", "column 1: syntax error: integer literal"},
        ErrorCase{"x is frob", "column 6: syntax error: unknown test 'frob'"},
        ErrorCase{"x | frob", "column 5: syntax error: unknown filter 'frob'"},
        ErrorCase{"a.", "column 3: syntax error: expected a member name"},
        ErrorCase{"shapes.x(1)", "column 9: syntax error: only the builtin functions can be called"},
        ErrorCase{"and", "column 1: syntax error: unexpected keyword 'and'"}));

TEST(Expression, NamesAndMemberPathsInOrderOfAppearance) {
  auto e = Expression::parse(
      "f16Ok(dtypes.T) and dim(shapes.x, 2) % attrs.num_heads == 0 and rank3HeadSize % 2 == 0 and shapes.x", "t");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"dtypes", "device", "shapes", "attrs", "rank3HeadSize"}));
  EXPECT_EQ(e.member_paths(), (std::vector<std::vector<std::string>>{{"dtypes", "T"},
                                                                     {"device", "features", "shader_f16"},
                                                                     {"shapes", "x"},
                                                                     {"attrs", "num_heads"},
                                                                     {"rank3HeadSize"}}));
  auto limits = Expression::parse("min(device.limits.maxComputeWorkgroupsPerDimension, 65535)", "t");
  EXPECT_EQ(limits.names(), (std::vector<std::string>{"device"}));
  EXPECT_EQ(limits.member_paths()[0],
            (std::vector<std::string>{"device", "limits", "maxComputeWorkgroupsPerDimension"}));
}

TEST(Expression, ExplainStatesAMembershipTestOnce) {
  // A tunable outside its allowed values: the operand's value and the values, not the chain restated
  // (the WORKGROUP_SIZE check of the normalization packages was 1,039 characters before).
  ObjectScope scope(Object{{"tunables", Object{{"WORKGROUP_SIZE", 3}, {"MODE", "x"}}}});
  auto chain = Expression::parse(
      "tunables.WORKGROUP_SIZE == 1 or tunables.WORKGROUP_SIZE == 2 or tunables.WORKGROUP_SIZE == 4", "t");
  EXPECT_EQ(chain.explain(scope), "tunables.WORKGROUP_SIZE = 3, not one of 1, 2, 4");
  auto in = Expression::parse("tunables.WORKGROUP_SIZE in [1, 2, 4, 8]", "t");
  EXPECT_EQ(in.explain(scope), "tunables.WORKGROUP_SIZE = 3, not one of 1, 2, 4, 8");
  auto strings = Expression::parse("tunables.MODE == \"a\" or tunables.MODE == \"b\"", "t");
  EXPECT_EQ(strings.explain(scope), "tunables.MODE = 'x', not one of 'a', 'b'");
  // Inside a conjunction, the failing membership test alone.
  auto both = Expression::parse("tunables.MODE == \"x\" and tunables.WORKGROUP_SIZE in [1, 2]", "t");
  EXPECT_EQ(both.explain(scope), "tunables.WORKGROUP_SIZE = 3, not one of 1, 2");
  // Not a membership test (two operands): the operands of every disjunct, once, not the disjuncts restated.
  auto mixed = Expression::parse("tunables.WORKGROUP_SIZE == 1 or tunables.MODE == \"a\" or tunables.MODE == \"b\"", "t");
  EXPECT_EQ(mixed.explain(scope),
            "tunables.WORKGROUP_SIZE == 1 or tunables.MODE == \"a\" or tunables.MODE == \"b\" is false: "
            "tunables.WORKGROUP_SIZE = 3, tunables.MODE = 'x'");
}

TEST(Expression, ExplainNamesTheFirstFailingConjunctWithOperands) {
  // x = (2, 4, 3, 8) read as rank 3 hidden size 3 with num_heads 2: 3 % 2 = 1.
  ObjectScope scope(Object{{"shapes", Object{{"x", List{2, 4, 3}}}}, {"attrs", Object{{"num_heads", 2}}},
                           {"ranks", Object{{"cos", 3}}}});
  auto e = Expression::parse("attrs.num_heads >= 1 and dim(shapes.x, 2) % attrs.num_heads == 0", "t");
  EXPECT_EQ(e.explain(scope), "dim(shapes.x, 2) % attrs.num_heads == 0 is false: dim(shapes.x, 2) % attrs.num_heads = 1");

  auto derive = Expression::parse("ranks.cos == 2", "derive.rank3PosContract");
  auto when = Expression::parse("rank3PosContract", "when[0]");
  auto resolve = [&](std::string_view name) -> const Expression* {
    return name == "rank3PosContract" ? &derive : nullptr;
  };
  EXPECT_EQ(when.explain(scope, resolve), "rank3PosContract: ranks.cos == 2 is false: ranks.cos = 3");

  auto f16 = Expression::parse("f16Ok(dtypes.T)", "t");
  ObjectScope f16_scope(Object{{"dtypes", Object{{"T", "f16"}}}});  // no device: no shader-f16
  EXPECT_EQ(f16.explain(f16_scope), "f16Ok(dtypes.T) is false: dtypes.T = 'f16', device.features.shader_f16 = False");

  auto notp = Expression::parse("not present.positionIds", "t");
  ObjectScope present(Object{{"present", Object{{"positionIds", true}}}});
  EXPECT_EQ(notp.explain(present), "not present.positionIds is false: present.positionIds = True");

  auto bad = Expression::parse("1 / attrs.num_heads == 0 and n", "p");
  ObjectScope zero(Object{{"attrs", Object{{"num_heads", 0}}}});
  EXPECT_THAT(bad.explain(zero), HasSubstr("division by zero: 1 / 0"));  // reported, not thrown
}

TEST(Expression, ExplainShowsTheNamesAnArithmeticOperandReadsAndNoSignedLiteral) {
  // headElements % 2 = 1 alone left the head size to be worked out from the shapes (a breaker's finding); a
  // literal operand, signed or not, is its own text (before: "-7e-46 = -7e-46").
  ObjectScope scope(Object{{"headElements", 7}, {"attrs", Object{{"epsilon", -1.0}}}});
  auto odd = Expression::parse("headElements % 2 == 0", "t");
  EXPECT_EQ(odd.explain(scope), "headElements % 2 == 0 is false: headElements % 2 = 1 (headElements = 7)");
  auto sum = Expression::parse("headElements + attrs.epsilon > 10", "t");
  EXPECT_EQ(sum.explain(scope), "headElements + attrs.epsilon > 10 is false: headElements + attrs.epsilon = 6.0 (headElements = 7)");
  auto negative = Expression::parse("attrs.epsilon >= -7e-46", "t");
  EXPECT_EQ(negative.explain(scope), "attrs.epsilon >= -7e-46 is false: attrs.epsilon = -1.0");
}

TEST(Value, PrintsAsPython) {
  EXPECT_EQ(Value(16.0).str(), "16.0");
  EXPECT_EQ(Value(0.1).str(), "0.1");
  EXPECT_EQ(Value(1e16).str(), "1e+16");       // Python switches to exponent form at 1e16
  EXPECT_EQ(Value(1e15).str(), "1000000000000000.0");
  EXPECT_EQ(Value(0.0001).str(), "0.0001");
  EXPECT_EQ(Value(0.00001).str(), "1e-05");    // and below 1e-4
  EXPECT_EQ(Value(-2.5).str(), "-2.5");
  EXPECT_EQ(Value(1.0 / 3.0).str(), "0.3333333333333333");
  EXPECT_EQ(Value(true).str(), "True");
  EXPECT_EQ(Value(None{}).str(), "None");
  EXPECT_EQ(Value(List{1, "a", 2.0}).str(), "[1, 'a', 2.0]");
  EXPECT_EQ(Value("it's").repr(), "\"it's\"");
  EXPECT_THROW(Value(std::uint64_t{1} << 63), Error);
}

TEST(Expression, RejectsDeepNestingWithoutCrashing) {
  std::string deep(5000, '(');
  deep += "1" + std::string(5000, ')');
  EXPECT_THROW(Expression::parse(deep, "t"), Error);
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += " + 1";
  EXPECT_THROW(Expression::parse(chain, "t"), Error);
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "not ";
  EXPECT_THROW(Expression::parse(nots + "1", "t"), Error);
}

}  // namespace
}  // namespace wgk::expr
