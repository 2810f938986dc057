#pragma once
// WGSL templates (`*.wgsl.jinja`): the Jinja subset our templates use, on the expression engine:
// `{{ expr }}`, `{% if %}/{% elif %}/{% else %}/{% endif %}`, `{% for x in list %}...{% endfor %}`
// (with `loop.index`, `loop.index0`, `loop.first`, `loop.last`), `{% set name = expr %}`,
// `{# comments #}`, and whitespace control (`{%-`, `-%}`, `{{-`, `-}}`) with Jinja's defaults
// (trim_blocks, lstrip_blocks and keep_trailing_newline off: the newline after a block tag stays,
// one trailing newline of the template is dropped, "\r\n" becomes "\n"). Jinja2 scoping: `set` inside
// a loop body stays in that iteration; `if` shares its scope. Printing uses Python's str() (`True`,
// `4.0`): write WGSL literals out (`{% if b %}true{% else %}false{% endif %}`). Printing or using an
// undefined name is an error (Jinja2 prints nothing). Filters/tests/builtins: see expr/expression.h.
//
// `{% include "file" %}` (Jinja2's include with its default `with context`): the named file is parsed
// with the includer and rendered in place over the current scope; its own `set` names stay inside it.
// The name is one string literal, resolved by the IncludeLoader given to parse() (a package's own
// verified files: docs/kernel-conventions.md "Includes"), never the file system. `import`, `from` and
// `extends` are refused.
//
// A `#param` header (after ONNX Runtime's `.wgsl.template` files): lines `#param name [name ...]`
// inside a `{# #}` comment of the top-level file declare the scope names the template reads; the
// package load compares them with names() (plan::check_templates).
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expression.h"

namespace wgk::tmpl {

struct TemplateNode;  // defined in template.cpp

/// Returns the text of the file `name` names in `{% include name %}` (already checked: relative, no
/// `.` or `..` component, no backslash); throws wgk::Error when there is no such file.
using IncludeLoader = std::function<std::string(const std::string& name)>;

/// Bounds on includes (a template is untrusted input): chain depth and included files per parse.
inline constexpr int kMaxIncludeDepth = 8;
inline constexpr int kMaxIncludes = 64;

/// A parsed template; render many times. Cheap to copy.
class Template {
 public:
  /// Parses `text`; `name` (the file name) prefixes errors with line and column. `includes` resolves
  /// `{% include %}` (without one, an include is an error). Throws wgk::Error (kContract) on malformed
  /// tags, unclosed blocks, bad expressions; on an include that is not one string literal, names an
  /// absolute path, a `.`/`..` component or a backslash, forms a cycle (the message lists the chain),
  /// nests deeper than kMaxIncludeDepth or exceeds kMaxIncludes files; on a `#param` line that is
  /// malformed, repeats a name, or stands in an included file; and passes on the loader's errors
  /// (prefixed with the including file, line and column).
  static Template parse(std::string_view text, std::string name, const IncludeLoader& includes = nullptr);
  /// Renders over `scope` (the whole call scope plus derive values). `{% set %}` names live in a
  /// layer above `scope`. Output larger than `max_output_bytes` or a loop longer than
  /// `max_iterations` in total is an error (a template is untrusted input).
  std::string render(const expr::Scope& scope, std::size_t max_output_bytes = 1 << 22,
                     std::size_t max_iterations = 1 << 16) const;
  /// Top-level scope names the template reads (excluding its own `set`/`for` names).
  const std::vector<std::string>& names() const;
  /// Whether the top-level file has a `#param` header, and the names it declares, in header order.
  bool has_param_header() const;
  const std::vector<std::string>& params() const;
  /// The files `{% include %}` pulled in, each once, in order of first appearance.
  const std::vector<std::string>& included() const;
  const std::string& name() const;

 private:
  std::shared_ptr<const TemplateNode> root_;
  std::shared_ptr<const std::string> name_;
  std::shared_ptr<const std::vector<std::string>> names_;
  std::shared_ptr<const std::vector<std::string>> params_;  // null: no header
  std::shared_ptr<const std::vector<std::string>> included_;
};

}  // namespace wgk::tmpl
