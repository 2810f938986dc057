#pragma once
// Lexer and recursive-descent parser of the expression language (internal). Precedence follows
// Jinja2's parser (lowest first): `x if c else y`; `or`; `and`; `not`; comparisons (chained, `in`,
// `not in`); `+ -`; `~`; `* / // %`; `**`; unary `- +`; postfix `.name`, `[i]`, `(args)`,
// `| filter`, `is test`. Note Jinja2 binds `~` tighter than `+`, and `-2 ** 2` is 4.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "expr/ast.h"

namespace wgk::expr::detail {

/// A syntax error at byte `offset` of the text.
struct SyntaxError {
  std::uint32_t offset;
  std::string message;
};

/// Deepest AST the parser accepts (the evaluator recurses once per level).
inline constexpr std::uint32_t kMaxDepth = 200;

struct Parsed {
  std::unique_ptr<Node> root;
  std::vector<std::string> names;                     // top-level names, first appearance order
  std::vector<std::vector<std::string>> member_paths;  // static member chains, deduplicated
};

/// Parses a whole expression. Throws SyntaxError.
Parsed parse(std::string_view text);

}  // namespace wgk::expr::detail
