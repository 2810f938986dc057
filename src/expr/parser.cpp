// Lexer and parser of the expression language; see parser.h for the grammar.
#include "expr/parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <utility>

namespace wgk::expr::detail {

namespace {

enum class Tok : std::uint8_t { kName, kInt, kFloat, kString, kOp, kEnd };

struct Token {
  Tok type;
  std::string_view text;  // the source text (for kString: including the quotes)
  std::uint32_t pos;
  Value value;  // kInt, kFloat, kString
};

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

std::string describe(const Token& t) {
  if (t.type == Tok::kEnd) return "end of expression";
  return "'" + std::string(t.text.substr(0, 40)) + "'";
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (true) {
      while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
      if (i_ >= s_.size()) break;
      out.push_back(next());
    }
    out.push_back(Token{Tok::kEnd, {}, static_cast<std::uint32_t>(s_.size()), {}});
    return out;
  }

 private:
  [[noreturn]] void fail(std::size_t at, std::string message) {
    throw SyntaxError{static_cast<std::uint32_t>(at), std::move(message)};
  }

  // Digits with Jinja's optional single underscores between them ("1_000"), appended to `out`.
  void digits(std::string& out) {
    if (i_ >= s_.size() || !is_digit(s_[i_])) fail(i_, "expected a digit");
    while (i_ < s_.size()) {
      if (is_digit(s_[i_])) {
        out += s_[i_++];
      } else if (s_[i_] == '_' && i_ + 1 < s_.size() && is_digit(s_[i_ + 1])) {
        ++i_;
      } else {
        break;
      }
    }
  }

  Token next() {
    std::size_t start = i_;
    char c = s_[i_];
    auto tok = [&](Tok type, Value v = {}) {
      return Token{type, s_.substr(start, i_ - start), static_cast<std::uint32_t>(start), std::move(v)};
    };
    if (is_name_start(c)) {
      while (i_ < s_.size() && is_name_char(s_[i_])) ++i_;
      return tok(Tok::kName);
    }
    if (is_digit(c)) {
      std::string num;
      digits(num);
      bool is_float = false;
      if (i_ + 1 < s_.size() && s_[i_] == '.' && is_digit(s_[i_ + 1])) {
        is_float = true;
        num += s_[i_++];
        digits(num);
      }
      if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
        std::size_t save = i_;
        std::string exp = "e";
        ++i_;
        if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) exp += s_[i_++];
        if (i_ < s_.size() && is_digit(s_[i_])) {
          digits(exp);
          num += exp;
          is_float = true;
        } else {
          i_ = save;  // "1e" is the int 1 followed by the name e
        }
      }
      if (i_ < s_.size() && is_name_start(s_[i_])) fail(i_, "invalid number literal '" + std::string(s_.substr(start, i_ - start + 1)) + "'");
      if (is_float) {
        double d = std::strtod(num.c_str(), nullptr);
        return tok(Tok::kFloat, Value(d));
      }
      std::int64_t v = 0;
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
      if (ec != std::errc()) fail(start, "integer literal " + num + " does not fit int64");
      return tok(Tok::kInt, Value(v));
    }
    if (c == '\'' || c == '"') {
      ++i_;
      std::string value;
      while (true) {
        if (i_ >= s_.size()) fail(start, "unterminated string literal");
        char d = s_[i_++];
        if (d == c) break;
        if (d != '\\') {
          value += d;
          continue;
        }
        if (i_ >= s_.size()) fail(start, "unterminated string literal");
        char e = s_[i_++];
        switch (e) {
          case 'n': value += '\n'; break;
          case 't': value += '\t'; break;
          case 'r': value += '\r'; break;
          case '0': value += '\0'; break;
          case '\\': value += '\\'; break;
          case '\'': value += '\''; break;
          case '"': value += '"'; break;
          case '\n': break;  // line continuation, as Python
          default:
            value += '\\';  // Python keeps unknown escapes as written
            value += e;
        }
      }
      return tok(Tok::kString, Value(std::move(value)));
    }
    static constexpr std::array<std::string_view, 6> kTwo = {"**", "//", "==", "!=", "<=", ">="};
    for (auto op : kTwo) {
      if (s_.substr(i_, 2) == op) {
        i_ += 2;
        return tok(Tok::kOp);
      }
    }
    static constexpr std::string_view kOne = "+-*/%~<>()[]{},.:|=";
    if (kOne.find(c) != std::string_view::npos) {
      ++i_;
      return tok(Tok::kOp);
    }
    fail(i_, "unexpected character '" + std::string(1, c) + "'");
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

std::optional<Builtin> builtin_named(std::string_view n) {
  if (n == "ceilDiv") return Builtin::kCeilDiv;
  if (n == "numel") return Builtin::kNumel;
  if (n == "dim") return Builtin::kDim;
  if (n == "sameShape") return Builtin::kSameShape;
  if (n == "broadcastable") return Builtin::kBroadcastable;
  if (n == "f16Ok") return Builtin::kF16Ok;
  if (n == "min") return Builtin::kMin;
  if (n == "max") return Builtin::kMax;
  if (n == "range") return Builtin::kRange;
  return std::nullopt;
}

// Allowed argument counts of each builtin: [min, max].
std::pair<std::size_t, std::size_t> builtin_arity(Builtin b) {
  switch (b) {
    case Builtin::kCeilDiv: return {2, 2};
    case Builtin::kNumel: return {1, 2};
    case Builtin::kDim: return {2, 2};
    case Builtin::kSameShape:
    case Builtin::kBroadcastable: return {2, 2};
    case Builtin::kF16Ok: return {1, 1};
    case Builtin::kMin:
    case Builtin::kMax: return {1, 64};
    case Builtin::kRange: return {1, 3};
  }
  return {0, 0};
}

std::optional<FilterFn> filter_named(std::string_view n) {
  if (n == "abs") return FilterFn::kAbs;
  if (n == "int") return FilterFn::kInt;
  if (n == "float") return FilterFn::kFloat;
  if (n == "string") return FilterFn::kString;
  if (n == "length" || n == "count") return FilterFn::kLength;
  return std::nullopt;
}

std::optional<TestFn> test_named(std::string_view n) {
  if (n == "defined") return TestFn::kDefined;
  if (n == "undefined") return TestFn::kUndefined;
  if (n == "none") return TestFn::kNone;
  if (n == "number") return TestFn::kNumber;
  if (n == "integer") return TestFn::kInteger;
  if (n == "float") return TestFn::kFloat;
  if (n == "string") return TestFn::kString;
  if (n == "even") return TestFn::kEven;
  if (n == "odd") return TestFn::kOdd;
  return std::nullopt;
}

using NodePtr = std::unique_ptr<Node>;

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens) : text_(text), t_(std::move(tokens)) {}

  NodePtr parse_all() {
    NodePtr root = parse_expression();
    if (cur().type != Tok::kEnd) fail(cur(), "unexpected " + describe(cur()) + " after a complete expression");
    return root;
  }

 private:
  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p(p) {
      if (++p.nesting_ > kMaxDepth) p.fail(p.cur(), "expression nested too deeply");
    }
    ~DepthGuard() { --p.nesting_; }
    Parser& p;
  };

  const Token& cur() const { return t_[i_]; }
  const Token& peek() const { return t_[std::min(i_ + 1, t_.size() - 1)]; }
  bool is_op(std::string_view op) const { return cur().type == Tok::kOp && cur().text == op; }
  bool is_name(std::string_view n) const { return cur().type == Tok::kName && cur().text == n; }
  bool accept_op(std::string_view op) {
    if (!is_op(op)) return false;
    ++i_;
    return true;
  }
  bool accept_name(std::string_view n) {
    if (!is_name(n)) return false;
    ++i_;
    return true;
  }
  void expect_op(std::string_view op, std::string_view context) {
    if (!accept_op(op)) fail(cur(), "expected '" + std::string(op) + "' " + std::string(context) + ", found " + describe(cur()));
  }
  [[noreturn]] void fail(const Token& at, std::string message) { throw SyntaxError{at.pos, std::move(message)}; }

  NodePtr make(NodeKind kind, std::uint32_t begin, std::uint32_t op_pos, std::vector<NodePtr> kids) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->begin = begin;
    n->op_pos = op_pos;
    n->end = begin;
    for (const auto& k : kids) {
      n->depth = std::max(n->depth, k->depth + 1);
      n->end = std::max(n->end, k->end);
    }
    n->kids = std::move(kids);
    if (n->depth > kMaxDepth) throw SyntaxError{op_pos, "expression nested too deeply"};
    return n;
  }
  std::uint32_t prev_end() const { return t_[i_ - 1].pos + static_cast<std::uint32_t>(t_[i_ - 1].text.size()); }

  static std::vector<NodePtr> two(NodePtr a, NodePtr b) {
    std::vector<NodePtr> v;
    v.push_back(std::move(a));
    v.push_back(std::move(b));
    return v;
  }
  static std::vector<NodePtr> one(NodePtr a) {
    std::vector<NodePtr> v;
    v.push_back(std::move(a));
    return v;
  }

  NodePtr parse_expression() {
    DepthGuard guard(*this);
    NodePtr e = parse_or();
    while (is_name("if")) {
      std::uint32_t op_pos = cur().pos;
      ++i_;
      NodePtr cond = parse_or();
      std::vector<NodePtr> kids = two(std::move(e), std::move(cond));
      if (accept_name("else")) kids.push_back(parse_expression());
      std::uint32_t begin = kids[0]->begin;
      e = make(NodeKind::kCond, begin, op_pos, std::move(kids));
    }
    return e;
  }

  NodePtr parse_or() {
    NodePtr left = parse_and();
    while (is_name("or")) {
      std::uint32_t op_pos = cur().pos;
      ++i_;
      NodePtr right = parse_and();
      std::uint32_t begin = left->begin;
      left = make(NodeKind::kOr, begin, op_pos, two(std::move(left), std::move(right)));
    }
    return left;
  }

  NodePtr parse_and() {
    NodePtr left = parse_not();
    while (is_name("and")) {
      std::uint32_t op_pos = cur().pos;
      ++i_;
      NodePtr right = parse_not();
      std::uint32_t begin = left->begin;
      left = make(NodeKind::kAnd, begin, op_pos, two(std::move(left), std::move(right)));
    }
    return left;
  }

  NodePtr parse_not() {
    if (is_name("not")) {
      DepthGuard guard(*this);
      std::uint32_t pos = cur().pos;
      ++i_;
      return make(NodeKind::kNot, pos, pos, one(parse_not()));
    }
    return parse_compare();
  }

  NodePtr parse_compare() {
    NodePtr first = parse_math1();
    std::vector<NodePtr> kids;
    std::vector<Op> ops;
    std::uint32_t op_pos = 0;
    while (true) {
      std::optional<Op> op;
      std::uint32_t pos = cur().pos;
      if (cur().type == Tok::kOp) {
        auto s = cur().text;
        if (s == "==") op = Op::kEq;
        else if (s == "!=") op = Op::kNe;
        else if (s == "<") op = Op::kLt;
        else if (s == "<=") op = Op::kLe;
        else if (s == ">") op = Op::kGt;
        else if (s == ">=") op = Op::kGe;
        if (op) ++i_;
      } else if (is_name("in")) {
        op = Op::kIn;
        ++i_;
      } else if (is_name("not") && peek().type == Tok::kName && peek().text == "in") {
        op = Op::kNotIn;
        i_ += 2;
      }
      if (!op) break;
      if (ops.empty()) {
        op_pos = pos;
        kids.push_back(std::move(first));
      }
      ops.push_back(*op);
      kids.push_back(parse_math1());
    }
    if (ops.empty()) return first;
    std::uint32_t begin = kids[0]->begin;
    NodePtr n = make(NodeKind::kCompare, begin, op_pos, std::move(kids));
    n->ops = std::move(ops);
    return n;
  }

  // One left-associative binary level: `next` parses the operands, `ops` maps token text to Op.
  template <typename Next>
  NodePtr binary_level(Next next, std::initializer_list<std::pair<std::string_view, Op>> ops) {
    NodePtr left = (this->*next)();
    while (cur().type == Tok::kOp) {
      std::optional<Op> op;
      for (const auto& [text, o] : ops) {
        if (cur().text == text) op = o;
      }
      if (!op) break;
      std::uint32_t op_pos = cur().pos;
      ++i_;
      NodePtr right = (this->*next)();
      std::uint32_t begin = left->begin;
      left = make(NodeKind::kBinary, begin, op_pos, two(std::move(left), std::move(right)));
      left->op = *op;
    }
    return left;
  }

  NodePtr parse_math1() { return binary_level(&Parser::parse_concat, {{"+", Op::kAdd}, {"-", Op::kSub}}); }
  NodePtr parse_concat() { return binary_level(&Parser::parse_math2, {{"~", Op::kConcat}}); }
  NodePtr parse_math2() {
    return binary_level(&Parser::parse_pow,
                        {{"*", Op::kMul}, {"/", Op::kDiv}, {"//", Op::kFloorDiv}, {"%", Op::kMod}});
  }
  // Jinja2: `**` is left-associative and binds looser than unary minus (`-2 ** 2` is 4).
  NodePtr parse_pow() { return binary_level(&Parser::parse_unary_filtered, {{"**", Op::kPow}}); }
  NodePtr parse_unary_filtered() { return parse_unary(true); }

  NodePtr parse_unary(bool with_filter) {
    DepthGuard guard(*this);
    NodePtr node;
    if (is_op("-") || is_op("+")) {
      std::uint32_t pos = cur().pos;
      Op op = cur().text == "-" ? Op::kNeg : Op::kPos;
      ++i_;
      node = make(NodeKind::kUnary, pos, pos, one(parse_unary(false)));
      node->op = op;
    } else {
      node = parse_primary();
    }
    node = parse_postfix(std::move(node));
    if (with_filter) node = parse_filter_expr(std::move(node));
    return node;
  }

  NodePtr literal(const Token& t, Value v) {
    auto n = make(NodeKind::kLiteral, t.pos, t.pos, {});
    n->end = t.pos + static_cast<std::uint32_t>(t.text.size());
    n->literal = std::move(v);
    return n;
  }

  NodePtr parse_primary() {
    const Token& t = cur();
    switch (t.type) {
      case Tok::kName: {
        ++i_;
        if (t.text == "true" || t.text == "True") return literal(t, Value(true));
        if (t.text == "false" || t.text == "False") return literal(t, Value(false));
        if (t.text == "none" || t.text == "None") return literal(t, Value(None{}));
        static constexpr std::array<std::string_view, 8> kReserved = {"and", "or", "not", "if", "else", "in", "is", "elif"};
        if (std::find(kReserved.begin(), kReserved.end(), t.text) != kReserved.end()) {
          fail(t, "unexpected keyword '" + std::string(t.text) + "'");
        }
        if (is_op("(")) return parse_call(t);
        auto n = make(NodeKind::kName, t.pos, t.pos, {});
        n->end = prev_end();
        n->name = std::string(t.text);
        return n;
      }
      case Tok::kInt:
      case Tok::kFloat:
      case Tok::kString: {
        ++i_;
        return literal(t, t.value);
      }
      case Tok::kEnd: fail(t, "unexpected end of expression");
      case Tok::kOp: break;
    }
    if (is_op("(")) {
      std::uint32_t pos = cur().pos;
      ++i_;
      if (accept_op(")")) {  // () is an empty tuple
        auto n = make(NodeKind::kList, pos, pos, {});
        n->end = prev_end();
        return n;
      }
      NodePtr first = parse_expression();
      if (!is_op(",")) {
        expect_op(")", "to close '('");
        first->begin = pos;  // quote "(a + b)" with its parentheses in messages
        first->end = prev_end();
        return first;
      }
      std::vector<NodePtr> items = one(std::move(first));
      while (accept_op(",")) {
        if (is_op(")")) break;
        items.push_back(parse_expression());
      }
      expect_op(")", "to close the tuple");
      auto n = make(NodeKind::kList, pos, pos, std::move(items));
      n->end = prev_end();
      return n;
    }
    if (is_op("[")) {
      std::uint32_t pos = cur().pos;
      ++i_;
      std::vector<NodePtr> items;
      while (!is_op("]")) {
        items.push_back(parse_expression());
        if (!accept_op(",")) break;
      }
      expect_op("]", "to close the list");
      auto n = make(NodeKind::kList, pos, pos, std::move(items));
      n->end = prev_end();
      return n;
    }
    if (is_op("{")) {
      std::uint32_t pos = cur().pos;
      ++i_;
      std::vector<NodePtr> items;
      while (!is_op("}")) {
        items.push_back(parse_expression());
        expect_op(":", "between a dict key and its value");
        items.push_back(parse_expression());
        if (!accept_op(",")) break;
      }
      expect_op("}", "to close the dict");
      auto n = make(NodeKind::kDict, pos, pos, std::move(items));
      n->end = prev_end();
      return n;
    }
    fail(t, "unexpected " + describe(t));
  }

  NodePtr parse_call(const Token& name) {
    auto builtin = builtin_named(name.text);
    if (!builtin) {
      fail(name, "unknown function '" + std::string(name.text) +
                     "' (known: ceilDiv, numel, dim, sameShape, f16Ok, min, max, range)");
    }
    ++i_;  // (
    std::vector<NodePtr> args;
    while (!is_op(")")) {
      args.push_back(parse_expression());
      if (!accept_op(",")) break;
    }
    expect_op(")", "to close the call of " + std::string(name.text));
    auto [lo, hi] = builtin_arity(*builtin);
    if (args.size() < lo || args.size() > hi) {
      fail(name, std::string(name.text) + "() takes " +
                     (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                     " arguments, got " + std::to_string(args.size()));
    }
    auto n = make(NodeKind::kCall, name.pos, name.pos, std::move(args));
    n->end = prev_end();
    n->builtin = *builtin;
    n->name = std::string(name.text);
    return n;
  }

  NodePtr parse_postfix(NodePtr node) {
    while (true) {
      if (is_op(".")) {
        std::uint32_t pos = cur().pos;
        ++i_;
        if (cur().type != Tok::kName) fail(cur(), "expected a member name after '.', found " + describe(cur()));
        std::string member(cur().text);
        ++i_;
        std::uint32_t begin = node->begin;
        node = make(NodeKind::kMember, begin, pos, one(std::move(node)));
        node->name = std::move(member);
        node->end = prev_end();
      } else if (is_op("[")) {
        std::uint32_t pos = cur().pos;
        ++i_;
        NodePtr index = parse_expression();
        expect_op("]", "to close the subscript");
        std::uint32_t begin = node->begin;
        node = make(NodeKind::kIndex, begin, pos, two(std::move(node), std::move(index)));
        node->end = prev_end();
      } else if (is_op("(")) {
        fail(cur(), "only the builtin functions can be called");
      } else {
        return node;
      }
    }
  }

  NodePtr parse_filter_expr(NodePtr node) {
    while (true) {
      if (is_op("|")) {
        std::uint32_t pos = cur().pos;
        ++i_;
        if (cur().type != Tok::kName) fail(cur(), "expected a filter name after '|'");
        auto filter = filter_named(cur().text);
        if (!filter) fail(cur(), "unknown filter '" + std::string(cur().text) + "' (known: abs, int, float, string, length)");
        ++i_;
        std::uint32_t begin = node->begin;
        node = make(NodeKind::kFilter, begin, pos, one(std::move(node)));
        node->filter = *filter;
        node->end = prev_end();
      } else if (is_name("is")) {
        std::uint32_t pos = cur().pos;
        ++i_;
        bool negated = accept_name("not");
        if (cur().type != Tok::kName) fail(cur(), "expected a test name after 'is'");
        auto test = test_named(cur().text);
        if (!test) {
          // `none`, `true`, `false` are names here, not literals.
          fail(cur(), "unknown test '" + std::string(cur().text) +
                          "' (known: defined, undefined, none, number, integer, float, string, even, odd)");
        }
        ++i_;
        std::uint32_t begin = node->begin;
        node = make(NodeKind::kTest, begin, pos, one(std::move(node)));
        node->test = *test;
        node->negated = negated;
        node->end = prev_end();
      } else {
        return node;
      }
    }
  }

  std::string_view text_;
  std::vector<Token> t_;
  std::size_t i_ = 0;
  std::uint32_t nesting_ = 0;
};

// Collects top-level names and static member chains, in source order.
class Collector {
 public:
  explicit Collector(Parsed& out) : out_(out) {}

  void visit(const Node& n) {
    if (n.kind == NodeKind::kMember || n.kind == NodeKind::kName) {
      std::vector<std::string> path;
      const Node* cur = &n;
      while (cur->kind == NodeKind::kMember) {
        path.push_back(cur->name);
        cur = cur->kids[0].get();
      }
      if (cur->kind == NodeKind::kName) {
        path.push_back(cur->name);
        std::reverse(path.begin(), path.end());
        add_name(cur->name);
        add_path(std::move(path));
      } else {
        visit(*cur);
      }
      return;
    }
    if (n.kind == NodeKind::kCall && n.builtin == Builtin::kF16Ok) {
      for (const auto& k : n.kids) visit(*k);
      add_name("device");
      add_path({"device", "features", "shader_f16"});
      return;
    }
    for (const auto& k : n.kids) visit(*k);
  }

 private:
  void add_name(const std::string& name) {
    if (std::find(out_.names.begin(), out_.names.end(), name) == out_.names.end()) out_.names.push_back(name);
  }
  void add_path(std::vector<std::string> path) {
    if (std::find(out_.member_paths.begin(), out_.member_paths.end(), path) == out_.member_paths.end()) {
      out_.member_paths.push_back(std::move(path));
    }
  }
  Parsed& out_;
};

}  // namespace

Parsed parse(std::string_view text) {
  if (text.size() > (1u << 24)) throw SyntaxError{0, "expression longer than 16 MiB"};
  Lexer lexer(text);
  Parser parser(text, lexer.run());
  Parsed out;
  out.root = parser.parse_all();
  Collector(out).visit(*out.root);
  return out;
}

}  // namespace wgk::expr::detail
