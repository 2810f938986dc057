#pragma once
// The manifest expression language (docs/design.md): parse once to an AST with source positions,
// evaluate many times over a Scope. Used by `derive`, `when`, struct field `value`, `dispatch`,
// output `shape`/`rank`, and by the template renderer for `{{ }}` and `{% %}` expressions.
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "expr/value.h"

namespace wgk::expr {

/// Where names come from during evaluation. Top-level names (`shapes`, `attrs`, `device`, derive
/// names, template `{% set %}` locals) are looked up here; member access (`shapes.x`) is then an
/// Object lookup. A Scope may compute values lazily (derive values are evaluated on first use).
class Scope {
 public:
  virtual ~Scope() = default;
  /// The value bound to `name`, or Undefined when the name is unbound.
  virtual Value lookup(std::string_view name) const = 0;
  /// The same value without a copy, when the scope holds it where it stays for the whole evaluation;
  /// nullptr otherwise (then lookup() is used). Member access reads through it (`shapes.x`).
  virtual const Value* lookup_ref(std::string_view) const { return nullptr; }
};

/// A Scope over a plain Object, optionally layered over a parent (inner names shadow outer ones).
class ObjectScope : public Scope {
 public:
  explicit ObjectScope(Object names, const Scope* parent = nullptr);
  Value lookup(std::string_view name) const override;
  void set(std::string name, Value value);

 private:
  Object names_;
  const Scope* parent_;
};

struct Node;  // AST node, defined in expr/ast.h

/// Where an expression's text starts inside a larger file (a template tag): errors then say
/// "line L, column C" of that file. line 0: the text stands alone and errors say "column C".
struct SourceOrigin {
  int line = 0;
  int column = 1;
};

/// A parsed expression. Cheap to copy (shares the AST).
///
/// Grammar and semantics are Jinja2's expression subset: literals (int, float, 'str', "str",
/// true/false/True/False, none/None, [lists]); names; `a.b` member access; calls of the builtin
/// functions; unary `- + not`; `* / // %` (`/` true division, `//` floor, `%` Python modulo);
/// `+ -`; `~` (string concatenation of str()); comparisons `== != < <= > >=`; `in`, `not in`;
/// `is defined`, `is not defined`; `and`, `or` (short-circuit, returning an operand as Python);
/// `x if c else y` (Jinja: `else` optional, giving Undefined).
///
/// Builtins (resolved at parse time; an unknown function is a syntax error): ceilDiv(a, b) (the
/// ceiling of a / b as an int, also for float operands such as `numel(shapes.x) / 2`), numel(shape)
/// (product of a list of ints; numel(shape, start): of dims start..rank-1, a negative start from the end),
/// dim(shape, i) (negative i counts from the end; out of range is an error), sameShape(a, b),
/// broadcastable(a, b) (ONNX unidirectional broadcasting: a's dims, aligned from the last, are 1 or b's), f16Ok(dtypeName) (false only for "f16" on a device without shader-f16:
/// reads `device.features.shader_f16` from the scope; an absent `device` counts as without),
/// min(a, ...), max(a, ...) (or of one list, as Python), range(stop | start, stop[, step]) (Jinja's
/// global, at most 65536 items).
/// Also from Jinja2: subscripts `a[i]` (negative i from the end; out of range gives Undefined, as
/// Jinja), dict literals, filters `| abs, int, float, string, length`, tests `is [not] defined,
/// undefined, none, number, integer, float, string, even, odd`. Precedence is Jinja2's, which differs
/// from Python in two places: `~` binds tighter than `+ -`, and `**` is left-associative and looser
/// than unary minus (`-2 ** 2 == 4`, `2 ** 3 ** 2 == 64`).
///
/// Errors (wgk::Error, kContract): a parse error names `path`, the column (1-based) and the text
/// near it; an evaluation error names `path`, the column of the failing node and its operands
/// (e.g. "derive.rank3HeadSize: column 17: division by zero: 32 / 0"). Using an Undefined value in
/// anything but `is defined`, `and`/`or`/`not`/`if` truthiness is an error naming the undefined name.
/// Integer arithmetic past int64 is an error, not a wrap.
class Expression {
 public:
  Expression();
  /// Parses `text`. `path` is where the text lives (e.g. "manifest.json: derive.rank3HeadSize")
  /// and prefixes every error message. Throws wgk::Error (kContract) on a syntax error.
  static Expression parse(std::string_view text, std::string path);
  /// As above, for text that starts at `origin` of a file (template tags).
  static Expression parse(std::string_view text, std::string path, SourceOrigin origin);
  /// Evaluates over `scope`. Throws wgk::Error (kContract) as described above.
  Value evaluate(const Scope& scope) const;
  /// Top-level names the expression reads (`shapes`, `attrs`, derive names, ...), without builtin
  /// function names, each once, in order of first appearance.
  const std::vector<std::string>& names() const;
  /// Member paths read from the scope, e.g. {"shapes","x"} for `shapes.x`, {"attrs","num_heads"}:
  /// each maximal chain of `.name` rooted at a top-level name, deduplicated, in order of first
  /// appearance; a bare name is a one-element path ({"rank3HeadSize"}); f16Ok adds
  /// {"device","features","shader_f16"}. Used by the contract loader to resolve references at load time.
  const std::vector<std::vector<std::string>>& member_paths() const;
  /// Why a falsy result is falsy, for error messages: descends through `and` chains (and `not`,
  /// `x if c else y`) to the first failing conjunct and prints its source text with the evaluated
  /// operands, e.g. "dim(shapes.x, 2) % attrs.num_heads == 0 is false: dim(shapes.x, 2) % attrs.num_heads = 2".
  /// A bare name that `resolve` maps to another expression (a derive) is explained recursively, its
  /// name leading ("rank3PosContract: ranks.cos == 2 is false: ranks.cos = 3"). A membership test,
  /// `x == a or x == b or ...` against literals or `x in [a, b]`, states the value and the allowed values
  /// once ("tunables.WORKGROUP_SIZE = 3, not one of 1, 2, 4"). An evaluation error
  /// inside is reported as the reason instead of thrown.
  std::string explain(const Scope& scope,
                      const std::function<const Expression*(std::string_view)>& resolve = {}) const;
  const std::string& text() const;
  const std::string& path() const;

 private:
  std::shared_ptr<const Node> root_;
  std::shared_ptr<const std::string> text_;
  std::shared_ptr<const std::string> path_;
  std::shared_ptr<const std::vector<std::string>> names_;
  std::shared_ptr<const std::vector<std::vector<std::string>>> member_paths_;
  SourceOrigin origin_;
};

}  // namespace wgk::expr
