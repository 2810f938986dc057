// The WGSL unit (src/plan/wgsl.h): uniform struct layout and bytes by the WGSL spec's rules, the
// generated binding declarations and the order of `enable` directives. Every expected offset, size and
// byte is derived by hand in the comment beside it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "plan/wgsl.h"
#include "wgk/error.h"

namespace wgk::plan {
namespace {

using contract::Binding;
using contract::BindingKind;
using contract::StructField;
using expr::Value;
using ::testing::HasSubstr;

StructField field(std::string name, std::string type, std::string expression = "0") {
  return StructField{std::move(name), std::move(type), expr::Expression::parse(expression, "fields")};
}

Binding uniform(std::vector<StructField> fields) {
  Binding b;
  b.id = "params";
  b.name = "params";
  b.kind = BindingKind::kUniform;
  b.fields = std::move(fields);
  return b;
}

std::uint32_t word_at(const std::vector<std::byte>& bytes, std::size_t offset) {
  std::uint32_t w;
  std::memcpy(&w, bytes.data() + offset, 4);
  return w;
}

std::string where() { return "op: variant v, pass p"; }

TEST(WgslScalar, NamesOfEachDType) {
  EXPECT_EQ(wgsl_scalar(DType::kFloat32), "f32");
  EXPECT_EQ(wgsl_scalar(DType::kFloat16), "f16");
  EXPECT_EQ(wgsl_scalar(DType::kUInt32), "u32");
  EXPECT_EQ(wgsl_scalar(DType::kInt64), "i64");
}

TEST(UniformLayout, ScalarMembersByTheWgslRules) {
  // WGSL "Alignment and Size": u32, i32, f32 have AlignOf 4 and SizeOf 4. Offsets: 0; roundUp(4, 4) = 4;
  // roundUp(4, 8) = 8. End of the last member 12; AlignOf(S) = 4, so SizeOf(S) = roundUp(4, 12) = 12; the
  // uniform buffer rounds to 16 (RequiredAlignOf(S, uniform) = roundUp(16, 4) = 16).
  const std::vector<StructField> fields = {field("a", "u32"), field("b", "i32"), field("c", "f32")};
  const UniformLayout l = uniform_layout(fields);
  EXPECT_EQ(l.offsets, (std::vector<std::uint32_t>{0, 4, 8}));
  EXPECT_EQ(l.struct_size, 12u);
  EXPECT_EQ(l.buffer_size, 16u);
}

TEST(UniformLayout, FiveMembersTakeTwoRowsOf16) {
  // Offsets 0, 4, 8, 12, 16; SizeOf(S) = 20; buffer roundUp(16, 20) = 32.
  const std::vector<StructField> fields = {field("a", "u32"), field("b", "u32"), field("c", "u32"), field("d", "f32"),
                                           field("e", "i32")};
  const UniformLayout l = uniform_layout(fields);
  EXPECT_EQ(l.offsets, (std::vector<std::uint32_t>{0, 4, 8, 12, 16}));
  EXPECT_EQ(l.struct_size, 20u);
  EXPECT_EQ(l.buffer_size, 32u);
  // Four members end exactly at 16: no padding row.
  EXPECT_EQ(uniform_layout(std::span(fields).first(4)).buffer_size, 16u);
}

TEST(UniformLayout, NoMembersStillGetA16ByteBuffer) {
  const UniformLayout l = uniform_layout({});
  EXPECT_TRUE(l.offsets.empty());
  EXPECT_EQ(l.struct_size, 0u);
  EXPECT_EQ(l.buffer_size, 16u);
}

TEST(UniformLayout, RefusesATypeUniformStructsMayNotHold) {
  const std::vector<StructField> fields = {field("a", "u32"), field("v", "vec2<f32>")};
  try {
    uniform_layout(fields);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kContract);
    EXPECT_THAT(e.what(), HasSubstr("v (vec2<f32>): unsupported uniform field type (supported: u32, i32, f32)"));
  }
}

TEST(PackUniform, BytesAtTheLayoutsOffsets) {
  const Binding b = uniform({field("a", "u32"), field("b", "i32"), field("c", "f32"), field("d", "u32"), field("e", "f32")});
  const std::vector<Value> values = {Value(std::int64_t{7}), Value(std::int64_t{-2}), Value(0.1),
                                     Value(std::int64_t{4294967295}), Value(1.5)};
  const auto bytes = pack_uniform(b, [&](std::size_t i) { return values[i]; }, where);
  ASSERT_EQ(bytes.size(), 32u);  // five 4-byte members end at 20; the uniform buffer rounds to 32
  EXPECT_EQ(word_at(bytes, 0), 7u);
  EXPECT_EQ(word_at(bytes, 4), 0xFFFFFFFEu);   // -2 in two's complement
  EXPECT_EQ(word_at(bytes, 8), 0x3DCCCCCDu);   // 0.1 rounded to float: 1.6 * 2^-4, mantissa 0x4CCCCD (round up)
  EXPECT_EQ(word_at(bytes, 12), 0xFFFFFFFFu);  // 2^32 - 1, the largest u32
  EXPECT_EQ(word_at(bytes, 16), 0x3FC00000u);  // 1.5 = 1.1b * 2^0: exponent 127, mantissa 0x400000
  for (std::size_t k = 20; k < 32; ++k) EXPECT_EQ(bytes[k], std::byte{0}) << k;  // zero padding
}

TEST(PackUniform, IntegralFloatsAndBoolsAreIntegers) {
  // Jinja's `/` gives floats: 6 / 2 = 3.0 is the integer 3; True is 1 (Python: bool is an int).
  const Binding b = uniform({field("a", "u32"), field("b", "i32")});
  const std::vector<Value> values = {Value(3.0), Value(true)};
  const auto bytes = pack_uniform(b, [&](std::size_t i) { return values[i]; }, where);
  EXPECT_EQ(word_at(bytes, 0), 3u);
  EXPECT_EQ(word_at(bytes, 4), 1u);
}

TEST(PackUniform, OutOfRangeValuesNameTheField) {
  struct Row {
    const char* type;
    Value value;
    const char* message;
  };
  const std::vector<Row> rows = {
      {"u32", Value(std::int64_t{-1}), "params.a (u32, n - 1) = -1 is not a non-negative integer below 2^32"},
      {"u32", Value(std::int64_t{4294967296}), "= 4294967296 is not a non-negative integer below 2^32"},
      {"u32", Value(2.5), "= 2.5 is not a non-negative integer below 2^32"},
      {"i32", Value(std::int64_t{2147483648}), "params.a (i32, n - 1) = 2147483648 is not an integer in [-2^31, 2^31)"},
      {"i32", Value(std::int64_t{-2147483649}), "= -2147483649 is not an integer in [-2^31, 2^31)"},
      {"f32", Value(std::string("x")), "params.a (f32, n - 1) = 'x' is not a number"},
  };
  for (const Row& row : rows) {
    const Binding b = uniform({field("a", row.type, "n - 1")});
    try {
      pack_uniform(b, [&](std::size_t) { return row.value; }, where);
      ADD_FAILURE() << row.message << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
      EXPECT_THAT(e.what(), HasSubstr("op: variant v, pass p: ")) << row.message;
      EXPECT_THAT(e.what(), HasSubstr(row.message));
    }
  }
  // The range ends themselves pack: -2^31 and 2^31 - 1 for i32.
  const Binding b = uniform({field("a", "i32"), field("b", "i32")});
  const std::vector<Value> ends = {Value(std::int64_t{-2147483648}), Value(std::int64_t{2147483647})};
  const auto bytes = pack_uniform(b, [&](std::size_t i) { return ends[i]; }, where);
  EXPECT_EQ(word_at(bytes, 0), 0x80000000u);
  EXPECT_EQ(word_at(bytes, 4), 0x7FFFFFFFu);
}

TEST(PackUniform, TheFirstFaultyFieldIsNamedAndLaterOnesAreNotEvaluated) {
  const Binding b = uniform({field("a", "u32"), field("b", "vec2<f32>"), field("c", "u32")});
  std::vector<std::size_t> asked;
  try {
    pack_uniform(b, [&](std::size_t i) { asked.push_back(i); return Value(std::int64_t{1}); }, where);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kContract);
    EXPECT_THAT(e.what(), HasSubstr("params.b (vec2<f32>, 0): unsupported uniform field type"));
  }
  EXPECT_EQ(asked, (std::vector<std::size_t>{0, 1}));
}

TEST(BindingDeclarations, OneLinePerBindingAndTheStructBeforeItsUniform) {
  Binding x;
  x.id = "x";
  x.name = "x";
  x.kind = BindingKind::kReadOnlyStorage;
  Binding y = x;
  y.id = y.name = "y";
  y.kind = BindingKind::kStorage;
  const Binding params = uniform({field("quadCount", "u32"), field("scale", "f32")});
  const std::vector<PlannedBinding> bindings = {
      {0, &x, "f32", {}}, {1, &y, "vec4<f16>", {}}, {2, &params, "Params", {}}};
  EXPECT_EQ(binding_declarations(bindings, true),
            "enable f16;\n"
            "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
            "@group(0) @binding(1) var<storage, read_write> y: array<vec4<f16>>;\n"
            "struct Params { quadCount: u32, scale: f32 }\n"
            "@group(0) @binding(2) var<uniform> params: Params;\n");
  EXPECT_EQ(binding_declarations(std::span(bindings).first(1), false),
            "@group(0) @binding(0) var<storage, read> x: array<f32>;\n");
}

TEST(WithEnablesFirst, DirectivesTheTemplateBeginsWithGoFirst) {
  // The two leading directives move before the declarations, one a line; the rest of the body follows
  // from just past the last one's ';'.
  EXPECT_EQ(with_enables_first("D\n", "enable subgroups;\n  enable f16;\nfn main() {}"),
            "enable subgroups;\nenable f16;\nD\n\nfn main() {}");
  // No directive: declarations, then the body as it is. A directive later in the body stays where it is.
  EXPECT_EQ(with_enables_first("D\n", "fn f() {}\nenable f16;"), "D\nfn f() {}\nenable f16;");
}

}  // namespace
}  // namespace wgk::plan
