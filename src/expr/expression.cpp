// Expression: parse once, evaluate many times (docs/design.md, expression language).
#include "expr/expression.h"

#include "expr/ast.h"
#include "expr/evaluator.h"
#include "expr/parser.h"
#include "wgk/error.h"

namespace wgk::expr {

ObjectScope::ObjectScope(Object names, const Scope* parent) : names_(std::move(names)), parent_(parent) {}

Value ObjectScope::lookup(std::string_view name) const {
  auto it = names_.find(name);
  if (it != names_.end()) return it->second;
  return parent_ ? parent_->lookup(name) : Value();
}

void ObjectScope::set(std::string name, Value value) { names_.insert_or_assign(std::move(name), std::move(value)); }

namespace {
const std::shared_ptr<const std::string>& empty_string() {
  static const auto s = std::make_shared<const std::string>();
  return s;
}
// Nesting of explain() through resolved derive names (a guard against cycles the loader missed).
thread_local int explain_depth = 0;
}  // namespace

Expression::Expression()
    : text_(empty_string()),
      path_(empty_string()),
      names_(std::make_shared<const std::vector<std::string>>()),
      member_paths_(std::make_shared<const std::vector<std::vector<std::string>>>()) {}

Expression Expression::parse(std::string_view text, std::string path) { return parse(text, std::move(path), SourceOrigin{}); }

Expression Expression::parse(std::string_view text, std::string path, SourceOrigin origin) {
  Expression e;
  e.text_ = std::make_shared<const std::string>(text);
  e.path_ = std::make_shared<const std::string>(std::move(path));
  e.origin_ = origin;
  try {
    detail::Parsed parsed = detail::parse(*e.text_);
    e.root_ = std::shared_ptr<const Node>(std::move(parsed.root));
    e.names_ = std::make_shared<const std::vector<std::string>>(std::move(parsed.names));
    e.member_paths_ = std::make_shared<const std::vector<std::vector<std::string>>>(std::move(parsed.member_paths));
  } catch (const detail::SyntaxError& err) {
    detail::SourceInfo src{*e.text_, *e.path_, origin};
    std::string near = e.text_->substr(std::min<std::size_t>(err.offset, e.text_->size()), 30);
    throw Error(ErrorKind::kContract, *e.path_ + ": " + detail::position(src, err.offset) + ": syntax error: " + err.message +
                                          (near.empty() ? std::string(" (at the end of \"") + e.text_->substr(0, 60) + "\")"
                                                        : " (near \"" + near + "\")"));
  }
  return e;
}

Value Expression::evaluate(const Scope& scope) const {
  if (!root_) throw Error(ErrorKind::kInternal, "evaluate() of an expression that was never parsed");
  detail::SourceInfo src{*text_, *path_, origin_};
  return detail::evaluate(*root_, scope, src);
}

const std::vector<std::string>& Expression::names() const { return *names_; }
const std::vector<std::vector<std::string>>& Expression::member_paths() const { return *member_paths_; }
const std::string& Expression::text() const { return *text_; }
const std::string& Expression::path() const { return *path_; }

std::string Expression::explain(const Scope& scope,
                                const std::function<const Expression*(std::string_view)>& resolve) const {
  if (!root_) return "(empty expression)";
  if (explain_depth > 16) return *text_ + " (explanation nested too deeply)";
  ++explain_depth;
  struct Restore {
    ~Restore() { --explain_depth; }
  } restore;
  detail::SourceInfo src{*text_, *path_, origin_};
  return detail::explain(*root_, scope, src, resolve, explain_depth);
}

}  // namespace wgk::expr
