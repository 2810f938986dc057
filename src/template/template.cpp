// The WGSL template renderer: Jinja2's syntax and whitespace control over the expression engine.
#include "template/template.h"

#include <algorithm>
#include <utility>

#include "expr/value.h"
#include "wgk/error.h"

namespace wgk::tmpl {

struct TemplateNode {
  enum class Kind { kText, kOutput, kIf, kFor, kSet, kBody, kInclude } kind = Kind::kBody;
  int line = 1, column = 1;     // where the tag starts
  std::string text;             // kText; kInclude: the included file's name
  expr::Expression expression;  // kOutput; kSet value; kFor iterable
  std::string target;           // kSet, kFor: the bound name
  // kIf: (condition, body) for `if` and each `elif`; `else_body` for `else`.
  std::vector<std::pair<expr::Expression, std::vector<TemplateNode>>> branches;
  std::vector<TemplateNode> body;  // kFor, kBody, kInclude (the included file); kIf: the else branch
};

namespace {

using expr::Expression;
using expr::Value;

std::string where(const std::string& name, int line, int column) {
  return name + ": line " + std::to_string(line) + ", column " + std::to_string(column);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// One piece of the template source: literal text or a tag with its trimmed content.
struct Piece {
  enum class Kind { kText, kOutput, kStatement } kind;
  std::string_view content;  // text, or the tag's inside without delimiters and '-' markers
  std::size_t content_offset = 0;
  std::size_t offset = 0;  // of the tag's first character
};

// What the files of one parse share: the loader and the include budget.
struct IncludeState {
  const IncludeLoader* loader = nullptr;
  int count = 0;
  std::vector<std::string> included;
};

class Parser {
 public:
  // `chain`: the files from the top-level one to this one (this one last).
  Parser(std::string_view text, const std::string& name, IncludeState& includes, std::vector<std::string> chain)
      : name_(name), includes_(includes), chain_(std::move(chain)) {
    // Jinja2 normalizes newlines to "\n" and, without keep_trailing_newline, drops one trailing
    // newline (@huggingface/jinja does the same).
    src_.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\r') {
        src_ += '\n';
        if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
      } else {
        src_ += text[i];
      }
    }
    if (!src_.empty() && src_.back() == '\n') src_.pop_back();
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < src_.size(); ++i) {
      if (src_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  TemplateNode parse() {
    split();
    TemplateNode root;
    root.kind = TemplateNode::Kind::kBody;
    std::size_t i = 0;
    std::string_view end_tag = parse_body(i, root.body, {});
    if (!end_tag.empty()) fail(pieces_[i - 1].offset, "unexpected '{% " + std::string(end_tag) + " %}'");
    return root;
  }

  std::vector<std::string> names;  // read from the scope
  std::vector<std::string> bound;  // bound by set/for
  bool has_params = false;         // a `#param` line was seen (top-level file only)
  std::vector<std::string> params;

 private:
  std::pair<int, int> line_col(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
    return {static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
  }
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    auto [line, column] = line_col(offset);
    throw Error(ErrorKind::kContract, where(name_, line, column) + ": " + message);
  }

  // Finds the end delimiter of a tag opened at `start` (content from `from`), skipping string
  // literals and nested brackets as Jinja's lexer does. Returns the offset of the delimiter.
  std::size_t find_close(std::size_t start, std::size_t from, std::string_view close) const {
    int depth = 0;
    for (std::size_t i = from; i < src_.size(); ++i) {
      char c = src_[i];
      if (c == '\'' || c == '"') {
        for (++i; i < src_.size() && src_[i] != c; ++i) {
          if (src_[i] == '\\') ++i;
        }
        if (i >= src_.size()) break;
        continue;
      }
      if (depth == 0 && src_.compare(i, close.size(), close) == 0) return i;
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    }
    fail(start, "unclosed tag: no '" + std::string(close) + "'");
  }

  void split() {
    std::size_t i = 0;
    bool strip_next = false;  // the previous tag ended with '-'
    while (i <= src_.size()) {
      std::size_t open = src_.find('{', i);
      while (open != std::string::npos && open + 1 < src_.size() && src_[open + 1] != '{' && src_[open + 1] != '%' &&
             src_[open + 1] != '#') {
        open = src_.find('{', open + 1);
      }
      if (open + 1 >= src_.size()) open = std::string::npos;
      std::string_view text = std::string_view(src_).substr(i, open == std::string::npos ? std::string::npos : open - i);
      std::size_t text_offset = i;
      if (strip_next) {
        while (!text.empty() && is_space(text.front())) {
          text.remove_prefix(1);
          ++text_offset;
        }
      }
      if (open == std::string::npos) {
        if (!text.empty()) pieces_.push_back({Piece::Kind::kText, text, text_offset, text_offset});
        break;
      }
      char kind = src_[open + 1];
      std::size_t content = open + 2;
      if (content < src_.size() && src_[content] == '-') {
        while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
        ++content;
      } else if (content < src_.size() && src_[content] == '+') {
        ++content;  // `{%+`: disables lstrip_blocks, which is off anyway
      }
      if (!text.empty()) pieces_.push_back({Piece::Kind::kText, text, text_offset, text_offset});
      std::string_view close = kind == '{' ? "}}" : (kind == '%' ? "%}" : "#}");
      std::size_t end;
      if (kind == '#') {
        end = src_.find("#}", content);
        if (end == std::string::npos) fail(open, "unclosed comment: no '#}'");
      } else {
        end = find_close(open, content, close);
      }
      std::size_t content_end = end;
      strip_next = false;
      if (content_end > content && src_[content_end - 1] == '-') {
        strip_next = true;
        --content_end;
      } else if (content_end > content && src_[content_end - 1] == '+') {
        --content_end;
      }
      if (kind == '#') {
        param_lines(std::string_view(src_).substr(content, content_end - content), content);
      } else {
        pieces_.push_back({kind == '{' ? Piece::Kind::kOutput : Piece::Kind::kStatement,
                           std::string_view(src_).substr(content, content_end - content), content, open});
      }
      i = end + 2;
      if (i > src_.size()) break;
    }
  }

  // `#param name [name ...]` lines of a comment (content starts at `offset`).
  void param_lines(std::string_view comment, std::size_t offset) {
    std::size_t at = 0;
    while (at <= comment.size()) {
      std::size_t end = comment.find('\n', at);
      if (end == std::string_view::npos) end = comment.size();
      std::string_view line = comment.substr(at, end - at);
      std::size_t lead = 0;
      while (lead < line.size() && is_space(line[lead])) ++lead;
      std::string_view body = line.substr(lead);
      const std::size_t line_offset = offset + at + lead;
      at = end + 1;
      if (body.substr(0, 6) != "#param" || (body.size() > 6 && !is_space(body[6]))) continue;
      if (chain_.size() > 1)
        fail(line_offset, "a #param header belongs in the template a pass names, not in an included file");
      has_params = true;
      std::size_t i = 6, count = 0;
      while (true) {
        while (i < body.size() && is_space(body[i])) ++i;
        if (i >= body.size()) break;
        std::size_t k = i;
        while (k < body.size() && !is_space(body[k])) ++k;
        std::string_view param = body.substr(i, k - i);
        if (!is_identifier(param)) fail(line_offset + i, "#param: '" + std::string(param) + "' is not a name");
        if (std::find(params.begin(), params.end(), param) != params.end())
          fail(line_offset + i, "#param: '" + std::string(param) + "' is declared twice");
        params.emplace_back(param);
        ++count;
        i = k;
      }
      if (count == 0) fail(line_offset, "#param without a name (expected '#param name [name ...]')");
    }
  }

  static std::string chain_text(const std::vector<std::string>& chain, const std::string& last) {
    std::string s;
    for (const auto& c : chain) s += c + " -> ";
    return s + last;
  }

  // `{% include "file" %}`: checks the name, loads and parses the file into `n`.
  void include(const Piece& p, std::string_view rest, TemplateNode& n) {
    std::string_view r = trim(rest);
    const bool quoted = r.size() >= 2 && (r.front() == '"' || r.front() == '\'') && r.back() == r.front();
    std::string_view file = quoted ? r.substr(1, r.size() - 2) : std::string_view();
    if (!quoted || file.find(r.front()) != std::string_view::npos)
      fail(p.offset, "expected '{% include \"file\" %}' (one string literal naming a file of the package; "
                     "expressions, lists, 'ignore missing' and 'with/without context' are not supported)");
    const std::string name(file);
    const std::string what = "include \"" + name + "\"";
    if (name.empty()) fail(p.offset, what + ": empty file name");
    if (name.front() == '/') fail(p.offset, what + ": an absolute path (only files of the package, by their path in build/webgpu/)");
    if (name.find('\\') != std::string::npos) fail(p.offset, what + ": a backslash in the path");
    for (std::size_t at = 0; at <= name.size();) {
      std::size_t end = std::min(name.find('/', at), name.size());
      std::string_view part = std::string_view(name).substr(at, end - at);
      if (part.empty() || part == "." || part == "..")
        fail(p.offset, what + ": path component '" + std::string(part) + "' (only files of the package, by their path in build/webgpu/)");
      at = end + 1;
    }
    if (std::find(chain_.begin(), chain_.end(), name) != chain_.end())
      fail(p.offset, what + ": include cycle " + chain_text(chain_, name));
    if (static_cast<int>(chain_.size()) > kMaxIncludeDepth)
      fail(p.offset, what + ": includes nested deeper than " + std::to_string(kMaxIncludeDepth) + " (" + chain_text(chain_, name) + ")");
    if (++includes_.count > kMaxIncludes)
      fail(p.offset, what + ": more than " + std::to_string(kMaxIncludes) + " includes in one template");
    if (!includes_.loader || !*includes_.loader)
      fail(p.offset, what + ": no include loader (a template may include only files of its own package)");
    std::string text;
    try {
      text = (*includes_.loader)(name);
    } catch (const Error& e) {
      fail(p.offset, what + ": " + e.what());
    }
    if (std::find(includes_.included.begin(), includes_.included.end(), name) == includes_.included.end())
      includes_.included.push_back(name);
    std::vector<std::string> chain = chain_;
    chain.push_back(name);
    Parser child(text, name, includes_, std::move(chain));
    TemplateNode root = child.parse();
    n.kind = TemplateNode::Kind::kInclude;
    n.text = name;
    n.body = std::move(root.body);
    // What the file reads from the scope it is given (its own set/for names stay inside it).
    for (auto& x : child.names)
      if (std::find(child.bound.begin(), child.bound.end(), x) == child.bound.end() &&
          std::find(names.begin(), names.end(), x) == names.end())
        names.push_back(std::move(x));
  }

  Expression expression(std::string_view text, std::size_t offset) {
    auto [line, column] = line_col(offset);
    if (trim(text).empty()) fail(offset, "empty expression");
    Expression e = Expression::parse(text, name_, expr::SourceOrigin{line, column});
    for (const auto& n : e.names()) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    return e;
  }

  // Statement keyword and the rest of the tag.
  static std::pair<std::string_view, std::string_view> keyword(std::string_view content, std::size_t& rest_offset) {
    std::size_t i = 0;
    while (i < content.size() && is_space(content[i])) ++i;
    std::size_t k = i;
    while (k < content.size() && (std::isalnum(static_cast<unsigned char>(content[k])) || content[k] == '_')) ++k;
    rest_offset = k;
    return {content.substr(i, k - i), content.substr(k)};
  }

  // Parses pieces into `out` until one of `ends` (returned) or the end of the template ("").
  std::string_view parse_body(std::size_t& i, std::vector<TemplateNode>& out, std::initializer_list<std::string_view> ends) {
    if (++depth_ > 64) fail(i < pieces_.size() ? pieces_[i].offset : 0, "blocks nested deeper than 64");
    struct Leave {
      int& d;
      ~Leave() { --d; }
    } leave{depth_};
    while (i < pieces_.size()) {
      const Piece& p = pieces_[i++];
      auto [line, column] = line_col(p.offset);
      if (p.kind == Piece::Kind::kText) {
        TemplateNode n;
        n.kind = TemplateNode::Kind::kText;
        n.text = std::string(p.content);
        out.push_back(std::move(n));
        continue;
      }
      if (p.kind == Piece::Kind::kOutput) {
        TemplateNode n;
        n.kind = TemplateNode::Kind::kOutput;
        n.line = line;
        n.column = column;
        n.expression = expression(p.content, p.content_offset);
        out.push_back(std::move(n));
        continue;
      }
      std::size_t rest_at = 0;
      auto [kw, rest] = keyword(p.content, rest_at);
      std::size_t rest_offset = p.content_offset + rest_at;
      for (auto e : ends) {
        if (kw == e) return kw;
      }
      TemplateNode n;
      n.line = line;
      n.column = column;
      if (kw == "if") {
        n.kind = TemplateNode::Kind::kIf;
        Expression cond = expression(rest, rest_offset);
        while (true) {
          std::vector<TemplateNode> body;
          std::size_t tag = i;
          std::string_view end = parse_body(i, body, {"elif", "else", "endif"});
          n.branches.emplace_back(std::move(cond), std::move(body));
          if (end.empty()) fail(p.offset, "'{% if %}' without '{% endif %}'");
          const Piece& endp = pieces_[i - 1];
          (void)tag;
          std::size_t off = 0;
          auto [ekw, erest] = keyword(endp.content, off);
          if (ekw == "elif") {
            cond = expression(erest, endp.content_offset + off);
            continue;
          }
          if (!trim(erest).empty()) fail(endp.offset, "unexpected text after '" + std::string(ekw) + "'");
          if (ekw == "else") {
            std::string_view end2 = parse_body(i, n.body, {"endif", "elif", "else"});
            if (end2 != "endif") fail(end2.empty() ? p.offset : pieces_[i - 1].offset, "'{% else %}' of '{% if %}' must be followed by '{% endif %}'");
          }
          break;
        }
      } else if (kw == "for") {
        n.kind = TemplateNode::Kind::kFor;
        std::string_view r = trim(rest);
        std::size_t in = r.find(" in ");
        std::string_view target = in == std::string_view::npos ? r : trim(r.substr(0, in));
        if (in == std::string_view::npos || !is_identifier(target)) {
          fail(p.offset, "expected '{% for name in expression %}' (one loop variable)");
        }
        n.target = std::string(target);
        bound.push_back(n.target);
        std::size_t expr_at = static_cast<std::size_t>(r.data() - p.content.data()) + in + 4;
        n.expression = expression(p.content.substr(expr_at), p.content_offset + expr_at);
        std::string_view end = parse_body(i, n.body, {"endfor", "else"});
        if (end != "endfor") fail(end.empty() ? p.offset : pieces_[i - 1].offset, "'{% for %}' without '{% endfor %}' ('{% else %}' in loops is not supported)");
      } else if (kw == "set") {
        n.kind = TemplateNode::Kind::kSet;
        std::size_t eq = rest.find('=');
        std::string_view target = eq == std::string_view::npos ? std::string_view() : trim(rest.substr(0, eq));
        if (!is_identifier(target) || (eq + 1 < rest.size() && rest[eq + 1] == '=')) {
          fail(p.offset, "expected '{% set name = expression %}'");
        }
        n.target = std::string(target);
        bound.push_back(n.target);
        n.expression = expression(rest.substr(eq + 1), rest_offset + eq + 1);
      } else if (kw == "include") {
        include(p, rest, n);
      } else if (kw.empty()) {
        fail(p.offset, "empty statement tag");
      } else if (kw == "elif" || kw == "else" || kw == "endif" || kw == "endfor") {
        fail(p.offset, "unexpected '{% " + std::string(kw) + " %}'");
      } else {
        fail(p.offset, "unknown statement '" + std::string(kw) +
                           "' (supported: if, elif, else, endif, for, endfor, set, include)");
      }
      if (n.kind != TemplateNode::Kind::kIf) {
        // `set`, `for`: nothing; `if`: its end tags were checked above.
      }
      if (kw == "endif" || kw == "endfor") continue;
      out.push_back(std::move(n));
    }
    return {};
  }

  std::string src_;
  const std::string& name_;
  IncludeState& includes_;
  std::vector<std::string> chain_;
  std::vector<std::size_t> line_starts_;
  std::vector<Piece> pieces_;
  int depth_ = 0;
};

// `{% set %}` and loop names, layered over the caller's scope.
class Frame : public expr::Scope {
 public:
  explicit Frame(const expr::Scope& parent) : parent_(parent) {}
  Value lookup(std::string_view name) const override {
    for (auto it = names_.rbegin(); it != names_.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    return parent_.lookup(name);
  }
  void set(const std::string& name, Value v) {
    for (auto& [n, value] : names_) {
      if (n == name) {
        value = std::move(v);
        return;
      }
    }
    names_.emplace_back(name, std::move(v));
  }

 private:
  const expr::Scope& parent_;
  std::vector<std::pair<std::string, Value>> names_;
};

class Renderer {
 public:
  Renderer(const std::string& name, std::size_t max_output, std::size_t max_iterations)
      : name_(&name), max_output_(max_output), max_iterations_(max_iterations) {}

  void render(const std::vector<TemplateNode>& nodes, Frame& frame) {
    for (const auto& n : nodes) {
      switch (n.kind) {
        case TemplateNode::Kind::kText: append(n.text, n); break;
        case TemplateNode::Kind::kOutput: {
          Value v = n.expression.evaluate(frame);
          if (v.is_undefined()) {
            throw Error(ErrorKind::kContract, where(*name_, n.line, n.column) + ": {{ " + std::string(trim(n.expression.text())) + " }} is undefined");
          }
          append(v.str(), n);
          break;
        }
        case TemplateNode::Kind::kSet: frame.set(n.target, n.expression.evaluate(frame)); break;
        case TemplateNode::Kind::kIf: {
          bool taken = false;
          for (const auto& [cond, body] : n.branches) {
            if (cond.evaluate(frame).truthy()) {
              render(body, frame);
              taken = true;
              break;
            }
          }
          if (!taken) render(n.body, frame);
          break;
        }
        case TemplateNode::Kind::kFor: {
          Value seq = n.expression.evaluate(frame);
          expr::List items;
          if (seq.is_list()) {
            items = seq.as_list();
          } else if (seq.is_string()) {
            for (char c : seq.as_string()) items.emplace_back(std::string(1, c));
          } else if (seq.is_object()) {
            for (const auto& [key, value] : seq.as_object()) items.emplace_back(key);
          } else {
            throw Error(ErrorKind::kContract, where(*name_, n.line, n.column) + ": cannot loop over " + n.expression.text() +
                                                  " = " + seq.repr() + " (a " + seq.type_name() + ")");
          }
          auto length = static_cast<std::int64_t>(items.size());
          for (std::int64_t k = 0; k < length; ++k) {
            if (++iterations_ > max_iterations_) {
              throw Error(ErrorKind::kContract, where(*name_, n.line, n.column) + ": more than " +
                                                    std::to_string(max_iterations_) + " loop iterations in one render");
            }
            Frame inner(frame);  // Jinja2: names set inside a loop body stay inside it
            inner.set(n.target, items[static_cast<std::size_t>(k)]);
            inner.set("loop", Value(expr::Object{{"index", k + 1},
                                                  {"index0", k},
                                                  {"revindex", length - k},
                                                  {"revindex0", length - k - 1},
                                                  {"first", k == 0},
                                                  {"last", k == length - 1},
                                                  {"length", length}}));
            render(n.body, inner);
          }
          break;
        }
        case TemplateNode::Kind::kBody: render(n.body, frame); break;
        case TemplateNode::Kind::kInclude: {
          // Jinja2: the included file sees the current scope; its `set` names stay inside it.
          Frame inner(frame);
          const std::string* outer = name_;
          name_ = &n.text;
          render(n.body, inner);
          name_ = outer;
          break;
        }
      }
    }
  }

  std::string out;

 private:
  void append(const std::string& s, const TemplateNode& n) {
    if (out.size() + s.size() > max_output_) {
      throw Error(ErrorKind::kContract, where(*name_, n.line, n.column) + ": output larger than " +
                                            std::to_string(max_output_) + " bytes");
    }
    out += s;
  }

  const std::string* name_;  // the file being rendered (an included one inside kInclude)
  std::size_t max_output_, max_iterations_;
  std::size_t iterations_ = 0;
};

}  // namespace

Template Template::parse(std::string_view text, std::string name, const IncludeLoader& includes) {
  Template t;
  t.name_ = std::make_shared<const std::string>(std::move(name));
  IncludeState state;
  state.loader = &includes;
  Parser parser(text, *t.name_, state, {*t.name_});
  t.root_ = std::make_shared<const TemplateNode>(parser.parse());
  std::vector<std::string> names;
  for (const auto& n : parser.names) {
    if (n != "loop" && std::find(parser.bound.begin(), parser.bound.end(), n) == parser.bound.end()) names.push_back(n);
  }
  t.names_ = std::make_shared<const std::vector<std::string>>(std::move(names));
  if (parser.has_params) t.params_ = std::make_shared<const std::vector<std::string>>(std::move(parser.params));
  t.included_ = std::make_shared<const std::vector<std::string>>(std::move(state.included));
  return t;
}

std::string Template::render(const expr::Scope& scope, std::size_t max_output_bytes, std::size_t max_iterations) const {
  if (!root_) throw Error(ErrorKind::kInternal, "render() of a template that was never parsed");
  Frame top(scope);
  Renderer r(*name_, max_output_bytes, max_iterations);
  r.render(root_->body, top);
  return std::move(r.out);
}

const std::vector<std::string>& Template::names() const { return *names_; }
bool Template::has_param_header() const { return params_ != nullptr; }
const std::vector<std::string>& Template::params() const {
  static const std::vector<std::string> kNone;
  return params_ ? *params_ : kNone;
}
const std::vector<std::string>& Template::included() const {
  static const std::vector<std::string> kNone;
  return included_ ? *included_ : kNone;
}
const std::string& Template::name() const { return *name_; }

}  // namespace wgk::tmpl
