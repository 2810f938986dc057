#include "reference/op.h"

#include <cstdlib>
#include <iostream>

#include "plan/boundary.h"
#include "wgk/error.h"

namespace wgk::reference {
namespace {

// Function-local: registration runs during static initialization of other translation units.
std::map<std::string, OpPlugin, std::less<>>& registry() {
  static std::map<std::string, OpPlugin, std::less<>> ops;
  return ops;
}

std::string key(std::string_view domain, std::string_view op) { return std::string(domain) + "::" + std::string(op); }

[[noreturn]] void wrong_kind(std::string_view name, const AttributeValue& v, const char* want) {
  const expr::Value value = plan::attribute_value(v);
  throw Error(ErrorKind::kInvalidArgument, "reference: attribute '" + std::string(name) + "': value " + value.repr() +
                                               " (" + value.type_name() + ") is not " + want);
}

}  // namespace

bool register_op(OpPlugin plugin) {
  const std::string k = key(plugin.domain, plugin.op);
  if (!registry().emplace(k, std::move(plugin)).second) {
    std::cerr << "wgk reference: two plug-ins register " << k << "\n";
    std::abort();
  }
  return true;
}

const OpPlugin* find_op(std::string_view domain, std::string_view op) {
  auto it = registry().find(key(domain, op));
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<const OpPlugin*> all_ops() {
  std::vector<const OpPlugin*> out;
  for (const auto& [k, p] : registry()) out.push_back(&p);
  return out;
}

Results run_reference(std::string_view domain, std::string_view op, const Tensors& inputs, const Attributes& attrs,
                      const std::vector<std::string>& outputs) {
  const OpPlugin* p = find_op(domain, op);
  if (!p || !p->reference)
    throw Error(ErrorKind::kNotFound, "no CPU reference for " + key(domain, op) +
                                          " (src/reference/ops/; give the case expected outputs instead)");
  return p->reference(inputs, attrs, outputs);
}

std::int64_t int_attr(const Attributes& attrs, std::string_view name, std::int64_t fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return *i;
  wrong_kind(name, it->second, "an integer (ONNX INT; a float is refused even when integral, as the contract refuses it)");
}

double float_attr(const Attributes& attrs, std::string_view name, double fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  if (const auto* d = std::get_if<double>(&it->second)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&it->second)) return static_cast<double>(*i);
  wrong_kind(name, it->second, "a number (ONNX FLOAT)");
}

std::string string_attr(const Attributes& attrs, std::string_view name, std::string_view fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return std::string(fallback);
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  wrong_kind(name, it->second, "a string (ONNX STRING)");
}

const HostTensor& required_input(const Tensors& inputs, std::string_view name, std::string_view op) {
  auto it = inputs.find(name);
  if (it == inputs.end())
    throw Error(ErrorKind::kInvalidArgument, "reference of " + std::string(op) + ": missing input " + std::string(name));
  return it->second;
}

}  // namespace wgk::reference
