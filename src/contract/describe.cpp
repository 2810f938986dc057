#include "contract/describe.h"

namespace wgk::contract {
namespace {

std::string join_derive(const std::vector<Derive>& derive) {
  std::string s;
  for (const Derive& d : derive) s += (s.empty() ? "" : ", ") + d.name + " = " + d.expression.text();
  return s;
}

std::string ranks_text(const std::vector<int>& ranks) {
  if (ranks.empty()) return "any";
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : " or ") + std::to_string(r);
  return s;
}

}  // namespace

std::string_view format_name(ManifestFormat format) {
  return format == ManifestFormat::kLegacy ? "legacy" : "current";
}

std::string_view binding_kind_name(BindingKind kind) {
  switch (kind) {
    case BindingKind::kReadOnlyStorage:
      return "read-only-storage";
    case BindingKind::kStorage:
      return "storage";
    case BindingKind::kUniform:
      return "uniform";
  }
  return "?";
}

void print_contract(const Contract& c, std::ostream& out) {
  out << "format: " << format_name(c.format) << "\n";
  out << "op: " << c.domain << "::" << c.name << " (since opset " << c.since_version << ")\n";

  out << "inputs:\n";
  for (const Input& i : c.inputs) {
    out << "  " << i.name << " (onnx " << i.onnx_name << "): dtype " << i.dtype << ", rank " << ranks_text(i.ranks);
    if (i.optional) out << ", optional";
    if (i.storage) out << ", storage " << dtype_name(*i.storage);
    if (i.checked_narrowing) out << " (checked narrowing)";
    if (i.value_min || i.value_max) {
      out << ", valueRange [" << (i.value_min ? i.value_min->text() : "-inf") << ", "
          << (i.value_max ? i.value_max->text() : "inf") << "]";
    }
    out << "\n";
  }
  out << "outputs:\n";
  for (const Output& o : c.outputs) {
    out << "  " << o.name << " (onnx " << o.onnx_name << "): dtype " << o.dtype << ", rank " << o.rank.text()
        << ", shape " << o.shape.text() << "\n";
  }
  out << "attributes:\n";
  for (const Attribute& a : c.attributes) {
    out << "  " << a.name << ": " << attribute_type_name(a.type) << ", " << (a.default_value ? "default " + a.default_value->repr() : "no default");
    if (!a.allowed_values.empty()) {
      out << ", allowed";
      for (const expr::Value& v : a.allowed_values) out << " " << v.repr();
    }
    out << "\n";
  }
  out << "type constraints:\n";
  for (const TypeConstraint& t : c.type_constraints) {
    out << "  " << t.name << ":";
    for (DType d : t.allowed) out << " " << dtype_name(d);
    out << "\n";
  }
  out << "tunables:\n";
  for (const Tunable& t : c.tunables) out << "  " << t.name << " = " << t.default_value.repr() << "\n";
  out << "derive (evaluation order):\n";
  for (const Derive& d : c.derive) out << "  " << d.name << " = " << d.expression.text() << "\n";
  if (!c.checks.empty()) {
    out << "checks:\n";
    for (const Check& k : c.checks) out << "  " << k.when.text() << "  -> \"" << k.message << "\"\n";
  }
  out << "variants (" << c.variants.size() << "):\n";
  for (const Variant& v : c.variants) {
    out << "  " << v.id << "  priority " << v.priority << "\n";
    for (const expr::Expression& w : v.when) out << "    when " << w.text() << "\n";
    if (!v.derive.empty()) out << "    derive: " << join_derive(v.derive) << "\n";
    for (const Pass& p : v.passes) {
      out << "    pass " << p.id << " (" << p.name << "): shader " << p.shader << "\n";
      if (!p.derive.empty()) out << "      derive: " << join_derive(p.derive) << "\n";
      for (std::size_t k = 0; k < p.bindings.size(); ++k) {
        const Binding& b = c.bindings[p.bindings[k]];
        out << "      @binding(" << k << ") " << b.name << " [" << b.id << "]: " << binding_kind_name(b.kind);
        if (b.kind == BindingKind::kUniform) {
          out << " " << b.struct_name << " {";
          for (std::size_t f = 0; f < b.fields.size(); ++f) {
            out << (f ? ", " : " ") << b.fields[f].name << ": " << b.fields[f].type << " = " << b.fields[f].value.text();
          }
          out << " }\n";
        } else {
          out << " " << b.arg << ", array<" << b.element_type << ">\n";
        }
      }
      out << "      dispatch: x = " << p.dispatch.x.text() << "; y = " << p.dispatch.y.text()
          << "; z = " << p.dispatch.z.text() << "\n";
    }
  }
}

}  // namespace wgk::contract
