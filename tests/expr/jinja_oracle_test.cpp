// Differential test of the expression language against @huggingface/jinja (tests/oracles/jinja_eval.mjs):
// every seed expression over a grid of calls, and generated arithmetic / comparison / boolean /
// conditional / concatenation expressions. One node run for the whole batch.
//
// Where Python's Jinja2 (which we follow, docs/design.md) and @huggingface/jinja disagree, the
// generator stays out of the way and the KnownDivergences test pins both sides:
//   - `%` with a negative operand: Python's modulo takes the divisor's sign (-7 % 2 == 1); JS's
//     remainder the dividend's (-1). Generated `%` operands are non-negative.
//   - division or modulo by zero: an error for us (Python's ZeroDivisionError); Infinity/NaN there.
//   - `str + int`: a TypeError in Python; string concatenation there ("a1" + 2 == "a12").
//   - `~` of a float or bool: Python's str() ("16.0", "True"); JS's toString ("16", "true").
//     Generated `~` operands are ints and strings.
//   - int64 overflow: an error for us; JS doubles silently lose precision. Generated values stay small.
//   - chained comparisons: `1 < 2 < 3` is `1 < 2 and 2 < 3` in Python and Jinja2; @huggingface/jinja
//     compares the bool `1 < 2` with 3 and fails. The seeds never chain.
#include <gtest/gtest.h>

#include <random>

#include "expr/expression.h"
#include "jinja_oracle.h"
#include "seed_manifests.h"
#include "wgk/error.h"

namespace wgk::expr {
namespace {

using nlohmann::json;

struct Probe {
  std::string text;
  Object context;
  std::vector<std::pair<std::string, std::string>> derive;  // evaluated first, in order
};

// Our answer in the oracle's format.
json ours(const Probe& p) {
  try {
    ObjectScope base(p.context);
    ObjectScope scope(Object{}, &base);
    for (const auto& [name, text] : p.derive) scope.set(name, Expression::parse(text, name).evaluate(scope));
    return testing::typed(Expression::parse(p.text, "probe").evaluate(scope));
  } catch (const Error& e) {
    return {{"error", e.what()}};
  }
}

bool is_zero_division(const json& mine) {
  if (!mine.contains("error")) return false;
  std::string m = mine["error"];
  return m.find("division by zero") != std::string::npos || m.find("modulo by zero") != std::string::npos;
}

// Compares every probe with the oracle; returns the number of known divergences skipped.
void compare_all(const std::vector<Probe>& probes, std::size_t& agreed, std::size_t& known) {
  std::vector<json> requests;
  for (const auto& p : probes) {
    json d = json::array();
    for (const auto& [n, t] : p.derive) d.push_back({n, t});
    requests.push_back({{"kind", "expr"}, {"text", p.text}, {"context", testing::plain(Value(p.context))}, {"derive", d}});
  }
  auto answers = testing::run_jinja_oracle(requests);
  if (!answers) GTEST_SKIP() << "node or tests/oracles/node_modules missing (scripts/setup.sh installs them)";
  ASSERT_EQ(answers->size(), probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i) {
    json mine = ours(probes[i]);
    const json& theirs = (*answers)[i];
    if (is_zero_division(mine)) {
      ++known;  // JS gives Infinity or NaN (null in JSON) or an error
      continue;
    }
    if (mine.contains("error") || theirs.contains("error")) {
      EXPECT_EQ(mine.contains("error"), theirs.contains("error"))
          << probes[i].text << "\n ours: " << mine.dump() << "\n @huggingface/jinja: " << theirs.dump();
    } else {
      EXPECT_EQ(mine, theirs) << probes[i].text << "\n ours: " << mine.dump() << "\n @huggingface/jinja: " << theirs.dump();
    }
    ++agreed;
  }
}

std::vector<testing::Call> call_grid() {
  using V = std::vector<std::int64_t>;
  std::vector<testing::Call> calls;
  for (const char* T : {"f32", "f16"}) {
    for (bool f16 : {true, false}) {
      // rank 4 + position ids; partial rotation; rank 4 cache3; rank 3 num_heads 4; rank 3 cache2
      // + position ids; rank 3 without num_heads; odd head size; a large tensor past 65535 groups.
      calls.push_back({.x = {2, 4, 3, 8}, .cos = {50, 4}, .sin = {50, 4}, .position_ids = V{2, 3}, .T = T, .shader_f16 = f16});
      calls.push_back({.x = {2, 4, 3, 8}, .cos = {50, 2}, .sin = {50, 2}, .position_ids = V{2, 3}, .T = T, .shader_f16 = f16,
                       .rotary_embedding_dim = 4});
      calls.push_back({.x = {2, 4, 3, 8}, .cos = {2, 3, 4}, .sin = {2, 3, 4}, .T = T, .shader_f16 = f16, .interleaved = 1});
      calls.push_back({.x = {2, 3, 32}, .cos = {2, 3, 4}, .sin = {2, 3, 4}, .T = T, .shader_f16 = f16, .num_heads = 4});
      calls.push_back({.x = {1, 5, 24}, .cos = {16, 6}, .sin = {16, 6}, .position_ids = V{1, 5}, .T = T, .shader_f16 = f16,
                       .num_heads = 2});
      calls.push_back({.x = {2, 3, 32}, .cos = {2, 3, 4}, .sin = {2, 3, 4}, .T = T, .shader_f16 = f16});
      calls.push_back({.x = {1, 2, 3, 6}, .cos = {1, 3, 3}, .sin = {1, 3, 3}, .T = T, .shader_f16 = f16});
      calls.push_back({.x = {64, 32, 512, 128}, .cos = {4096, 64}, .sin = {4096, 64}, .position_ids = V{64, 512}, .T = T,
                       .shader_f16 = f16});
    }
  }
  // Mismatched shapes and a small device.
  calls.push_back({.x = {2, 4, 3, 8}, .cos = {50, 3}, .sin = {50, 4}, .position_ids = V{2, 4}});
  calls.push_back({.x = {2, 4, 3, 8}, .cos = {2, 3, 4}, .sin = {2, 3, 4}, .workgroup_size = 64,
                   .max_workgroups_per_dimension = 16, .max_invocations = 128, .max_workgroup_size_x = 128});
  return calls;
}

TEST(JinjaOracle, SeedExpressionsOverACallGrid) {
  std::vector<Probe> probes;
  for (const char* seed : {"004", "000"}) {
    auto m = testing::load_seed(seed);
    std::vector<std::pair<std::string, std::string>> derive;
    for (const auto& [k, v] : m["derive"].items()) derive.emplace_back(k, v.get<std::string>());
    // nlohmann::json orders object keys alphabetically; the oracle needs file (dependency) order.
    std::vector<std::pair<std::string, std::string>> ordered;
    while (ordered.size() < derive.size()) {
      for (const auto& d : derive) {
        if (std::find(ordered.begin(), ordered.end(), d) != ordered.end()) continue;
        auto e = Expression::parse(d.second, d.first);
        bool ready = std::all_of(e.names().begin(), e.names().end(), [&](const std::string& n) {
          return !m["derive"].contains(n) ||
                 std::any_of(ordered.begin(), ordered.end(), [&](const auto& o) { return o.first == n; });
        });
        if (ready) ordered.push_back(d);
      }
    }
    for (const auto& call : call_grid()) {
      Object context = testing::call_scope(call);
      for (const auto& [path, text] : testing::seed_expressions(m)) probes.push_back({text, context, ordered});
    }
  }
  std::size_t agreed = 0, known = 0;
  compare_all(probes, agreed, known);
  EXPECT_GT(agreed, 5000u);
  std::printf("seed expressions: %zu agree with @huggingface/jinja, %zu known divergences\n", agreed, known);
}

// Random expressions from a small grammar whose semantics both engines share (see the header).
class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  std::string arith(int depth, bool nonneg) {
    if (depth == 0 || pick(4) == 0) return leaf(nonneg);
    switch (pick(nonneg ? 8 : 10)) {
      case 0: return "(" + arith(depth - 1, nonneg) + " + " + arith(depth - 1, nonneg) + ")";
      case 1: return "(" + arith(depth - 1, nonneg) + " * " + arith(depth - 1, nonneg) + ")";
      case 2: return "(" + arith(depth - 1, nonneg) + " / " + arith(depth - 1, nonneg) + ")";
      case 3: return "(" + arith(depth - 1, nonneg) + " // " + arith(depth - 1, nonneg) + ")";
      case 4: return "(" + arith(depth - 1, true) + " % " + arith(depth - 1, true) + ")";
      case 5: return "(" + std::to_string(pick(6)) + " ** " + std::to_string(pick(4)) + ")";
      case 6: return "(" + arith(depth - 1, nonneg) + " if " + boolean(depth - 1) + " else " + arith(depth - 1, nonneg) + ")";
      case 7: return arith(depth - 1, nonneg) + " + " + arith(depth - 1, nonneg) + " * " + arith(depth - 1, nonneg);
      case 8: return "(" + arith(depth - 1, false) + " - " + arith(depth - 1, false) + ")";
      default: return "-" + leaf(false);
    }
  }

  std::string boolean(int depth) {
    static const char* kCmp[] = {"==", "!=", "<", "<=", ">", ">="};
    if (depth == 0 || pick(3) == 0) return arith(1, false) + " " + kCmp[pick(6)] + " " + arith(1, false);
    switch (pick(7)) {
      case 0: return "(" + boolean(depth - 1) + " and " + boolean(depth - 1) + ")";
      case 1: return "(" + boolean(depth - 1) + " or " + boolean(depth - 1) + ")";
      case 2: return "not " + boolean(depth - 1);
      case 3: return "(" + arith(depth - 1, false) + " and " + arith(depth - 1, false) + ")";  // Python returns an operand
      case 4: return std::string(pick(2) ? "attrs.k" : "attrs.missing") + (pick(2) ? " is defined" : " is not defined");
      case 5: return arith(depth - 1, false) + " " + kCmp[pick(6)] + " " + arith(depth - 1, false);
      default: return "(" + boolean(depth - 1) + " if " + boolean(depth - 1) + " else " + boolean(depth - 1) + ")";
    }
  }

  std::string concat() {
    static const char* kParts[] = {"'vec4<'", "dtypes.T", "'>'", "s", "k", "3", "'x'", "attrs.k"};
    std::string out = kParts[pick(8)];
    for (int i = 0, n = 1 + pick(3); i < n; ++i) out += std::string(" ~ ") + kParts[pick(8)];
    return out;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::string leaf(bool nonneg) {
    static const char* kNonneg[] = {"0", "1", "2", "3", "7", "k", "1.5", "0.25", "attrs.k", "dim(shape, 1)", "numel(shape)", "ceilDiv(k, 2)"};
    static const char* kAny[] = {"m", "-3", "-0.5", "dim(shape, -1)"};
    int n = nonneg ? 12 : 16;
    int i = pick(n);
    return i < 12 ? kNonneg[i] : kAny[i - 12];
  }
  std::mt19937 rng_;
};

TEST(JinjaOracle, GeneratedExpressions) {
  Object context{{"k", 5}, {"m", -4}, {"s", "ab"}, {"shape", List{2, 6, 4}},
                 {"attrs", Object{{"k", 3}}}, {"dtypes", Object{{"T", "f16"}}}};
  Generator gen(20240607);
  std::vector<Probe> probes;
  for (int i = 0; i < 1500; ++i) probes.push_back({gen.arith(3, false), context, {}});
  for (int i = 0; i < 1500; ++i) probes.push_back({gen.boolean(3), context, {}});
  for (int i = 0; i < 300; ++i) probes.push_back({gen.concat(), context, {}});
  // Precedence probes both engines agree on (Jinja2's grammar).
  for (const char* t : {"2 ** 3 ** 2", "-2 ** 2", "not 1 == 2", "1 or 0 and 0", "1 if 0 else 2 if 0 else 3",
                        "1 + 2 * 3 - 4 // 3", "'a' ~ 1 ~ 2", "7 // 2 * 2",
                        "attrs.missing is defined and attrs.missing > 0", "[1, 2] + [3]", "2 in [1, 2]",
                        "'b' in s", "x if false", "attrs.missing", "none is none"}) {
    probes.push_back({t, context, {}});
  }
  std::size_t agreed = 0, known = 0;
  compare_all(probes, agreed, known);
  EXPECT_GT(agreed, 2500u);
  std::printf("generated expressions: %zu agree with @huggingface/jinja, %zu known divergences\n", agreed, known);
}

TEST(JinjaOracle, KnownDivergences) {
  // Each row: the expression, what we give (Python's Jinja2), what @huggingface/jinja gives.
  struct Row {
    std::string text;
    json ours, theirs;
  };
  std::vector<Row> rows = {
      {"-7 % 2", {{"type", "int"}, {"value", 1}}, {{"type", "int"}, {"value", -1}}},
      {"'a' ~ 16.0", {{"type", "str"}, {"value", "a16.0"}}, {{"type", "str"}, {"value", "a16"}}},
      {"'a' ~ true", {{"type", "str"}, {"value", "aTrue"}}, {{"type", "str"}, {"value", "atrue"}}},
  };
  rows.push_back({"1 < 2 < 3", {{"type", "bool"}, {"value", true}},
                  {{"error", "Unknown operator \"<\" between BooleanValue and IntegerValue"}}});
  std::vector<json> requests;
  for (const auto& r : rows) requests.push_back({{"kind", "expr"}, {"text", r.text}, {"context", json::object()}});
  requests.push_back({{"kind", "expr"}, {"text", "'a' + 1"}, {"context", json::object()}});
  requests.push_back({{"kind", "expr"}, {"text", "1 / 0"}, {"context", json::object()}});
  auto answers = testing::run_jinja_oracle(requests);
  if (!answers) GTEST_SKIP() << "node or tests/oracles/node_modules missing";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(ours({rows[i].text, {}, {}}), rows[i].ours) << rows[i].text;
    EXPECT_EQ((*answers)[i], rows[i].theirs) << rows[i].text;
  }
  EXPECT_TRUE(ours({"'a' + 1", {}, {}}).contains("error"));      // Python: TypeError
  EXPECT_EQ((*answers)[rows.size()]["value"], "a1");                      // JS: concatenation
  EXPECT_TRUE(ours({"1 / 0", {}, {}}).contains("error"));         // Python: ZeroDivisionError
  EXPECT_EQ((*answers)[rows.size() + 1]["type"], "float");                     // JS: Infinity (null in JSON)
}

}  // namespace
}  // namespace wgk::expr
