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
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expression.h"

namespace wgk::tmpl {

struct TemplateNode;  // defined in template.cpp

/// A parsed template; render many times. Cheap to copy.
class Template {
 public:
  /// Parses `text`; `name` (the file name) prefixes errors with line and column.
  /// Throws wgk::Error (kContract) on malformed tags, unclosed blocks, bad expressions.
  static Template parse(std::string_view text, std::string name);
  /// Renders over `scope` (the whole call scope plus derive values). `{% set %}` names live in a
  /// layer above `scope`. Output larger than `max_output_bytes` or a loop longer than
  /// `max_iterations` in total is an error (a template is untrusted input).
  std::string render(const expr::Scope& scope, std::size_t max_output_bytes = 1 << 22,
                     std::size_t max_iterations = 1 << 16) const;
  /// Top-level scope names the template reads (excluding its own `set`/`for` names).
  const std::vector<std::string>& names() const;
  const std::string& name() const;

 private:
  std::shared_ptr<const TemplateNode> root_;
  std::shared_ptr<const std::string> name_;
  std::shared_ptr<const std::vector<std::string>> names_;
};

}  // namespace wgk::tmpl
