// The generated WGSL declarations and the uniform structs' bytes (see wgsl.h).
#include "plan/wgsl.h"

#include <array>
#include <cstring>
#include <limits>

#include "core/buffer_sizes.h"
#include "wgk/error.h"

namespace wgk::plan {

namespace {

using contract::Binding;
using contract::BindingKind;
using contract::StructField;
using expr::integral;
using expr::Value;

/// WGSL spec "Alignment and Size": the scalar types a uniform struct of ours may hold.
constexpr std::array<UniformMemberType, 3> kUniformMemberTypes = {{{"u32", 4, 4}, {"i32", 4, 4}, {"f32", 4, 4}}};

/// The 4-byte word of `value` as a member of WGSL type `type` (u32, i32, f32); throws naming `what()`.
std::uint32_t member_word(std::string_view type, const Value& value, const std::function<std::string()>& what) {
  if (type == "u32") {
    auto iv = integral(value);
    if (!iv || *iv < 0 || *iv > std::int64_t{0xFFFFFFFF})
      throw Error(ErrorKind::kInvalidArgument,
                  what() + " = " + value.repr() + " is not a non-negative integer below 2^32");
    return static_cast<std::uint32_t>(*iv);
  }
  if (type == "i32") {
    auto iv = integral(value);
    if (!iv || *iv < std::numeric_limits<std::int32_t>::min() || *iv > std::numeric_limits<std::int32_t>::max())
      throw Error(ErrorKind::kInvalidArgument, what() + " = " + value.repr() + " is not an integer in [-2^31, 2^31)");
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(*iv));
  }
  if (!value.is_number()) throw Error(ErrorKind::kInvalidArgument, what() + " = " + value.repr() + " is not a number");
  const float f = static_cast<float>(value.as_number());
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

std::string unsupported(const std::string& what) {
  return what + ": unsupported uniform field type (supported: u32, i32, f32)";
}

}  // namespace

std::string_view wgsl_scalar(DType dtype) {
  switch (dtype) {
    case DType::kFloat32: return "f32";
    case DType::kFloat16: return "f16";
    case DType::kUInt32: return "u32";
    case DType::kInt64: return "i64";  // no WGSL type: a contract must give such an input a storage type
  }
  return "?";
}

std::optional<UniformMemberType> uniform_member_type(std::string_view type) {
  for (const UniformMemberType& t : kUniformMemberTypes)
    if (t.name == type) return t;
  return std::nullopt;
}

UniformLayout uniform_layout(std::span<const StructField> fields) {
  UniformLayout layout;
  std::uint64_t end = 0, align = 1;
  for (const StructField& f : fields) {
    auto t = uniform_member_type(f.type);
    if (!t) throw Error(ErrorKind::kContract, unsupported(f.name + " (" + f.type + ")"));
    const std::uint64_t offset = round_up(end, t->align);
    layout.offsets.push_back(static_cast<std::uint32_t>(offset));
    end = offset + t->size;
    align = std::max<std::uint64_t>(align, t->align);
  }
  layout.struct_size = static_cast<std::uint32_t>(round_up(end, align));
  layout.buffer_size = static_cast<std::uint32_t>(uniform_buffer_size(layout.struct_size));
  return layout;
}

std::vector<std::byte> pack_uniform(const Binding& binding, const std::function<Value(std::size_t)>& value,
                                    const std::function<std::string()>& where) {
  // The offsets of uniform_layout(), computed member by member: each value is evaluated and checked before
  // the next one is looked at, so the first faulty field is the one an error names.
  std::vector<std::byte> bytes;
  std::uint64_t end = 0, align = 1;
  for (std::size_t i = 0; i < binding.fields.size(); ++i) {
    const StructField& f = binding.fields[i];
    auto what = [&] { return where() + ": " + binding.name + "." + f.name + " (" + f.type + ", " + f.value.text() + ")"; };
    const Value v = value(i);
    auto t = uniform_member_type(f.type);
    if (!t) throw Error(ErrorKind::kContract, unsupported(what()));
    const std::uint32_t word = member_word(f.type, v, what);
    const std::uint64_t offset = round_up(end, t->align);
    bytes.resize(offset + t->size);
    std::memcpy(bytes.data() + offset, &word, 4);  // little-endian hosts only (WebGPU buffers are little-endian)
    end = offset + t->size;
    align = std::max<std::uint64_t>(align, t->align);
  }
  bytes.resize(uniform_buffer_size(round_up(end, align)));
  return bytes;
}

std::string binding_declarations(std::span<const PlannedBinding> bindings, bool enable_f16) {
  std::string decls = enable_f16 ? "enable f16;\n" : "";
  for (const PlannedBinding& pb : bindings) {
    const Binding& b = *pb.binding;
    const std::string at = "@group(0) @binding(" + std::to_string(pb.slot) + ") ";
    if (b.kind == BindingKind::kUniform) {
      std::string fields;
      for (const StructField& f : b.fields) fields += (fields.empty() ? "" : ", ") + f.name + ": " + f.type;
      decls += "struct " + b.struct_name + " { " + fields + " }\n";
      decls += at + "var<uniform> " + b.name + ": " + b.struct_name + ";\n";
    } else if (pb.as_uniform) {
      decls += at + "var<uniform> " + b.name + (pb.call ? "_" + std::to_string(*pb.call) : "") + ": array<" +
               pb.wgsl_type + ", " + std::to_string(pb.uniform_bytes / 16) + ">;\n";
    } else {
      decls += at + (b.kind == BindingKind::kStorage ? "var<storage, read_write> " : "var<storage, read> ") + b.name +
               (pb.call ? "_" + std::to_string(*pb.call) : "") + ": array<" + pb.wgsl_type + ">;\n";
    }
  }
  return decls;
}

std::string with_enables_first(const std::string& declarations, std::string body) {
  std::string enables;
  std::size_t at = 0;
  while (true) {
    const std::size_t start = body.find_first_not_of(" \t\r\n", at);
    if (start == std::string::npos || body.compare(start, 7, "enable ") != 0) break;
    const std::size_t end = body.find(';', start);
    if (end == std::string::npos) break;
    enables += body.substr(start, end + 1 - start) + "\n";
    at = end + 1;
  }
  return enables + declarations + body.substr(at);
}

}  // namespace wgk::plan
