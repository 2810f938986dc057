#pragma once
// Tree-walking evaluator of the expression AST (internal): Python/Jinja2 semantics over a Scope.
#include <functional>
#include <string>
#include <string_view>

#include "expr/ast.h"
#include "expr/expression.h"

namespace wgk::expr::detail {

/// Where the evaluated text came from, for error messages.
struct SourceInfo {
  const std::string& text;
  const std::string& path;
  SourceOrigin origin;
};

/// "column C" (or "line L, column C" inside a file) of byte `offset` of the text.
std::string position(const SourceInfo& src, std::uint32_t offset);

/// Largest string or list (bytes of text plus elements) an operator may build: expressions and
/// templates are untrusted input.
inline constexpr std::size_t kMaxValueBytes = std::size_t{1} << 22;

/// Python repr() bounded for messages: longer text is cut with "...".
std::string short_repr(const Value& v, std::size_t max_chars = 200);

Value evaluate(const Node& root, const Scope& scope, const SourceInfo& src);

using Resolver = std::function<const Expression*(std::string_view)>;
std::string explain(const Node& root, const Scope& scope, const SourceInfo& src, const Resolver& resolve,
                    int depth);

}  // namespace wgk::expr::detail
