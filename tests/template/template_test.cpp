// Template renderer: Jinja2 semantics worked out by hand (default options: trim_blocks and
// lstrip_blocks off, one trailing newline dropped), and a differential test against
// @huggingface/jinja (tokenized with the same defaults) over our kernels' templates and constructs.
#include "template/template.h"

#include <set>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../expr/jinja_oracle.h"
#include "wgk/error.h"

namespace wgk::tmpl {
namespace {

using expr::List;
using expr::Object;
using expr::ObjectScope;
using ::testing::HasSubstr;

std::string render(const std::string& text, Object context = {}) {
  ObjectScope scope(std::move(context));
  return Template::parse(text, "t.wgsl.jinja").render(scope);
}

TEST(Template, OutputsAndPythonPrinting) {
  EXPECT_EQ(render("a {{ 1 + 2 }} b"), "a 3 b");
  EXPECT_EQ(render("{{ 8 / 2 }}"), "4.0");  // true division prints as a float
  EXPECT_EQ(render("{{ v }}", {{"v", "vec4<f32>"}}), "vec4<f32>");
  EXPECT_EQ(render("{{ true }}"), "True");  // Python's str(True); WGSL wants 'true': write it out
  EXPECT_EQ(render("{{ '}}' }}"), "}}");    // a delimiter inside a string literal
  EXPECT_EQ(render("{{ {'a': 1}.a }}"), "1");
}

TEST(Template, WhitespaceControlAsJinja2) {
  // Without '-', the newline after a block tag stays (trim_blocks off).
  EXPECT_EQ(render("{% if 1 %}\nx\n{% endif %}\ny"), "\nx\n\ny");
  // '{%-' strips all whitespace, newlines included, before the tag; '-%}' after it.
  EXPECT_EQ(render("a  \n  {%- if 1 -%}  \n  x  \n{%- endif %}"), "ax");
  EXPECT_EQ(render("a \n{{- 1 -}}\n b"), "a1b");
  EXPECT_EQ(render("a {#- comment -#} b"), "ab");
  EXPECT_EQ(render("a {# comment #} b"), "a  b");
  // Leading spaces before a tag stay (lstrip_blocks off).
  EXPECT_EQ(render("  {% if 1 %}x{% endif %}"), "  x");
  // One trailing newline is dropped (keep_trailing_newline off); a second one stays.
  EXPECT_EQ(render("x\n"), "x");
  EXPECT_EQ(render("x\n\n"), "x\n");
  EXPECT_EQ(render("x\r\ny\r\n"), "x\ny");  // newlines normalized to \n
}

TEST(Template, IfElifElse) {
  const std::string t = "{% if r == 3 %}three{% elif r == 4 %}four{% else %}other{% endif %}";
  EXPECT_EQ(render(t, {{"r", 3}}), "three");
  EXPECT_EQ(render(t, {{"r", 4}}), "four");
  EXPECT_EQ(render(t, {{"r", 5}}), "other");
  EXPECT_EQ(render("{% if m is defined %}d{% else %}u{% endif %}"), "u");
}

TEST(Template, ForWithLoopVariables) {
  EXPECT_EQ(render("{% for i in range(3) %}{{ loop.index }}{{ loop.index0 }}{{ i }}"
                   "{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %},{% endfor %}"),
            "100F,211,322L,");  // index (1-based), index0, item
  EXPECT_EQ(render("{% for d in shape %}{{ d }}{% if not loop.last %}x{% endif %}{% endfor %}", {{"shape", List{2, 4, 8}}}),
            "2x4x8");
  EXPECT_EQ(render("{% for i in [] %}x{% endfor %}"), "");
  EXPECT_EQ(render("{% for a in [1, 2] %}{% for b in [3, 4] %}{{ a * b }} {% endfor %}{% endfor %}"), "3 4 6 8 ");
}

TEST(Template, SetAndScoping) {
  EXPECT_EQ(render("{% set v = 'vec4<' ~ T ~ '>' %}{{ v }}", {{"T", "f16"}}), "vec4<f16>");
  EXPECT_EQ(render("{% set x = 1 %}{% if 1 %}{% set x = 2 %}{% endif %}{{ x }}"), "2");  // if shares scope
  // Jinja2: a set inside a loop body does not leak out of the loop.
  EXPECT_EQ(render("{% set x = 1 %}{% for i in [5] %}{% set x = i %}{{ x }}{% endfor %}{{ x }}"), "51");
  auto t = Template::parse("{% set v = a %}{% for i in b %}{{ v }}{{ i }}{{ loop.index }}{% endfor %}{{ c }}", "t");
  EXPECT_EQ(t.names(), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Template, ErrorsNameTemplateLineAndColumn) {
  auto message = [](const std::string& text, Object ctx = {}) -> std::string {
    try {
      render(text, std::move(ctx));
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kContract);
      return e.what();
    }
    return "no error";
  };
  EXPECT_THAT(message("a\n  {% if 1 %}x"), HasSubstr("t.wgsl.jinja: line 2, column 3: '{% if %}' without '{% endif %}'"));
  EXPECT_THAT(message("{% endfor %}"), HasSubstr("t.wgsl.jinja: line 1, column 1: unexpected '{% endfor %}'"));
  EXPECT_THAT(message("ab {{ 1 +"), HasSubstr("line 1, column 4: unclosed tag: no '}}'"));
  EXPECT_THAT(message("x\n{{ 1 + }}"), HasSubstr("t.wgsl.jinja: line 2, column 8: syntax error"));  // at '}}' after '+'
  EXPECT_THAT(message("\n\n   {{ a.b }}"), HasSubstr("t.wgsl.jinja: line 3, column 7: a is undefined"));
  EXPECT_THAT(message("{{ nope }}"), HasSubstr("line 1, column 1: {{ nope }} is undefined"));
  EXPECT_THAT(message("{% macro m() %}{% endmacro %}"), HasSubstr("unknown statement 'macro'"));
  EXPECT_THAT(message("{% for i in 3 %}{% endfor %}"), HasSubstr("cannot loop over 3"));
  EXPECT_THAT(message("{# open"), HasSubstr("unclosed comment"));
}

// `{% include %}` as Jinja2 does it (with context): the included file renders over the current scope,
// its own `set` names stay inside it, its trailing newline is dropped like any template's.
TEST(Template, IncludeAsJinja2) {
  std::map<std::string, std::string> files{{"i.wgsl.jinja", "[{{ n }}{% set n = 5 %}{{ n }}]\n"},
                                           {"j.wgsl.jinja", "{{ b }}{% set d = c %}{{ d }}{% include 'i.wgsl.jinja' %}"},
                                           {"bad.wgsl.jinja", "\n  {{ nope }}"}};
  IncludeLoader loader = [&](const std::string& name) -> std::string {
    auto it = files.find(name);
    if (it == files.end()) throw Error(ErrorKind::kNotFound, "no file " + name);
    return it->second;
  };
  auto with = [&](const std::string& text, Object ctx = {}) {
    ObjectScope scope(std::move(ctx));
    return Template::parse(text, "t.wgsl.jinja", loader).render(scope);
  };
  EXPECT_EQ(with("{% set n = 2 %}a{% include \"i.wgsl.jinja\" %}b{{ n }}"), "a[25]b2");  // set stays inside
  EXPECT_EQ(with("{% for n in [7, 8] %}{% include 'i.wgsl.jinja' %}{% endfor %}"), "[75][85]");  // sees loop names
  EXPECT_EQ(with("x\n  {%- include 'i.wgsl.jinja' -%}  \ny", {{"n", 1}}), "x[15]y");
  auto t = Template::parse("{{ a }}{% include 'j.wgsl.jinja' %}{{ a }}", "t.wgsl.jinja", loader);
  // j's own d and i's own n are bound inside those files (a name a file sets anywhere is its own).
  EXPECT_EQ(t.names(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(t.included(), (std::vector<std::string>{"j.wgsl.jinja", "i.wgsl.jinja"}));
  auto message = [&](const std::string& text, const IncludeLoader& l) -> std::string {
    try {
      ObjectScope scope(Object{});
      Template::parse(text, "t.wgsl.jinja", l).render(scope);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kContract);
      return e.what();
    }
    return "no error";
  };
  // Errors inside an included file name that file, line and column.
  EXPECT_THAT(message("x\n{% include 'bad.wgsl.jinja' %}", loader), HasSubstr("bad.wgsl.jinja: line 2, column 3: {{ nope }} is undefined"));
  EXPECT_THAT(message("\n {% include 'none.wgsl.jinja' %}", loader),
              HasSubstr("t.wgsl.jinja: line 2, column 2: include \"none.wgsl.jinja\": no file none.wgsl.jinja"));
  EXPECT_THAT(message("{% include 'i.wgsl.jinja' %}", nullptr), HasSubstr("no include loader"));
  EXPECT_THAT(message("{% include '/i.wgsl.jinja' %}", loader), HasSubstr("an absolute path"));
  EXPECT_THAT(message("{% include 'a/../i.wgsl.jinja' %}", loader), HasSubstr("path component '..'"));
  EXPECT_THAT(message("{% include name %}", loader), HasSubstr("one string literal"));
  EXPECT_THAT(message("{% import 'i.wgsl.jinja' as m %}", loader), HasSubstr("unknown statement 'import'"));
  EXPECT_THAT(message("{% from 'i.wgsl.jinja' import m %}", loader), HasSubstr("unknown statement 'from'"));
}

TEST(Template, ParamHeader) {
  auto t = Template::parse("{#- Kernel.\n    #param rank interleaved\n    #param vector -#}\n{{ rank }}", "t");
  EXPECT_TRUE(t.has_param_header());
  EXPECT_EQ(t.params(), (std::vector<std::string>{"rank", "interleaved", "vector"}));
  ObjectScope scope(Object{{"rank", 3}});
  EXPECT_EQ(t.render(scope), "3");  // a comment: renders nothing
  EXPECT_FALSE(Template::parse("{# #parameters are not a header #}{# see #param #}", "t").has_param_header());
  EXPECT_THROW(Template::parse("{# #param #}", "t"), Error);  // no name
  EXPECT_THROW(Template::parse("{# #param a a #}", "t"), Error);
  EXPECT_THROW(Template::parse("{# #param a-b #}", "t"), Error);
}

TEST(Template, LimitsBoundUntrustedTemplates) {
  ObjectScope scope(Object{});
  auto big = Template::parse("{% for i in range(1000) %}{% for j in range(1000) %}x{% endfor %}{% endfor %}", "t");
  EXPECT_THROW(big.render(scope), Error);  // 10^6 iterations > 65536
  auto wide = Template::parse("{% for i in range(60000) %}0123456789{% endfor %}", "t");
  try {
    wide.render(scope, 1000);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("output larger than 1000 bytes"));
  }
  auto doubling = Template::parse("{% set s = 'ab' %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}", "t");
  EXPECT_NO_THROW(doubling.render(scope));  // each iteration's set stays in its own frame
  auto deep = std::string(100, '[');
  EXPECT_THROW(Template::parse("{{ " + deep + " }}", "t"), Error);
  std::string nested;
  for (int i = 0; i < 100; ++i) nested += "{% if 1 %}";
  EXPECT_THROW(Template::parse(nested, "t"), Error);
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The render context of one RotaryEmbedding call (kernel-conventions.md "Render context"): the names the
// packages' templates read. The vec4 geometry is that of a head of 64 (16 vec4) with full (`partial`
// false) or half rotation, 8 heads.
Object kernel_context(int rank, bool positions, bool interleaved, const char* T, int wg) {
  const bool partial = interleaved;  // vary the vec4 templates' partial-rotation branch with the grid
  Object c{{"rank", rank},
           {"interleaved", interleaved},
           {"vector", std::string("vec4<") + T + ">"},
           {"scalar", T},
           {"rotaryOutputWg", wg},
           {"vecHead", 16},
           {"vecRotary", partial ? 8 : 16},
           {"vecHalfRotary", partial ? 4 : 8},
           {"vecHeads", 8},
           {"tunables", Object{{"WORKGROUP_SIZE", wg}}},
           {"dtypes", Object{{"T", T}, {"M", "u32"}}}};
  if (positions) c["hasPositionIds"] = true;
  c["positionMode"] = positions ? "table" : "cache3";  // the packages' derive (cache-row.wgsl.jinja)
  // The normalization templates' names, varied with the same grid: width 4 or 8 (rank), the scale and skip
  // modes, odd rows and the optional bias and outputs.
  c["rowWg"] = wg;
  c["width"] = rank == 3 ? 4 : 8;
  c["scaleMode"] = positions ? "repeat" : (interleaved ? "one" : "full");
  c["skipMode"] = positions ? "repeat" : "full";
  c["oddRow"] = interleaved;
  c["rowCache"] = interleaved ? 2 : 0;
  c["fixedRowVecs"] = interleaved ? 300 : 0;
  c["lanes"] = positions ? wg / 4 : wg;  // several rows a workgroup, or one
  c["rowPair"] = interleaved && !positions;
  c["reduction"] = positions ? "subgroup" : "workgroup";
  c["fvector"] = "vec4<f32>";
  c["words"] = "u32";
  c["present"] = Object{{"bias", positions}, {"invStdVar", interleaved}, {"inputSkipBiasSum", !interleaved}};
  // rms-normalization-general.wgsl.jinja: packed or native storage, each stash type across the grid.
  c["packed"] = interleaved;
  c["stashType"] = rank == 3 ? (positions ? 10 : 1) : (positions ? 16 : 1);
  // A fused pass's calls a dispatch (docs/kernel-conventions.md "Fused calls"): one, and three.
  c["fusedCalls"] = rank == 3 ? 1 : 3;
  return c;
}

TEST(JinjaOracle, TemplatesRenderAsHuggingfaceJinja) {
  std::vector<std::pair<std::string, std::string>> templates;  // (name, text)
  std::string dir = std::string(WGK_SOURCE_DIR) + "/kernels";
  if (std::filesystem::exists(dir)) {
    // Files another template of the same folder includes render only inside their includer (cache-row.wgsl.jinja,
    // a fused `main` such as call-entry.wgsl.jinja, which reads the includer's loop names).
    std::set<std::string> included;
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
      if (f.path().extension() != ".jinja") continue;
      const std::string text = read(f.path());
      for (std::size_t at = text.find("include \""); at != std::string::npos; at = text.find("include \"", at + 1)) {
        const std::size_t begin = at + 9, end = text.find('"', begin);
        if (end != std::string::npos) included.insert((f.path().parent_path() / text.substr(begin, end - begin)).string());
      }
    }
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir)) {
      // A pass's shader (an include-only file renders inside the shaders that include it).
      if (f.path().extension() == ".jinja" && !included.count(f.path().string()) &&
          read(f.path()).find("@compute") != std::string::npos)
        templates.emplace_back(f.path().string(), read(f.path()));
    }
  }
  for (const char* t : {
           "{% if rank == 3 %}\n  let h = {{ rank }}u;\n{% else %}\n  let h = 4u;\n{% endif %}\n",
           "a  \n  {%- if interleaved -%}  \n  i  \n{%- else -%}\n  n\n{%- endif %}\nb",
           "{#- c -#}\n{{- vector -}}\n  x {{ scalar }} {# c #}\n",
           "{% for i in range(rank) %}{{ loop.index }}:{{ i }}{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %}\n{% endfor %}",
           "{% set mode = positionMode if positionMode is defined else ('table' if hasPositionIds is defined and hasPositionIds else 'cache3') %}{{ mode }}",
           "{%- for i in [1, 2, 3] -%}\n  {{ i * rotaryOutputWg }}u,\n{%- endfor %}",
           "@workgroup_size({{ rotaryOutputWg }})\n{% if dtypes.T == 'f16' %}enable f16;{% endif %}\n\n",
           "{% set n = rank * 2 %}{% for i in range(n) %}{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}",
       }) {
    templates.emplace_back("inline", t);
  }
  std::vector<nlohmann::json> requests;
  std::vector<std::pair<std::size_t, Object>> cases;
  // Includes resolve in the template's own folder (the package); the oracle gets those files and
  // expands `{% include %}` itself (@huggingface/jinja 0.5.11 has no include: jinja_eval.mjs).
  auto folder_of = [&](std::size_t i) {
    std::filesystem::path p(templates[i].first);
    return p.has_parent_path() ? p.parent_path() : std::filesystem::path();
  };
  auto files_of = [&](std::size_t i) {
    nlohmann::json files = nlohmann::json::object();
    if (folder_of(i).empty()) return files;
    for (const auto& f : std::filesystem::directory_iterator(folder_of(i)))
      if (f.path().extension() == ".jinja") files[f.path().filename().string()] = read(f.path());
    return files;
  };
  for (std::size_t i = 0; i < templates.size(); ++i) {
    const nlohmann::json files = files_of(i);
    for (int rank : {3, 4}) {
      for (bool positions : {false, true}) {
        for (bool interleaved : {false, true}) {
          for (const char* T : {"f32", "f16"}) {
            Object ctx = kernel_context(rank, positions, interleaved, T, interleaved ? 64 : 256);
            requests.push_back({{"kind", "template"}, {"text", templates[i].second}, {"files", files},
                                {"context", expr::testing::plain(expr::Value(ctx))}});
            cases.emplace_back(i, ctx);
          }
        }
      }
    }
  }
  auto answers = expr::testing::run_jinja_oracle(requests);
  if (!answers) GTEST_SKIP() << "node or tests/oracles/node_modules missing";
  ASSERT_EQ(answers->size(), cases.size());
  for (std::size_t k = 0; k < cases.size(); ++k) {
    const auto& [i, ctx] = cases[k];
    ASSERT_FALSE((*answers)[k].contains("error")) << templates[i].first << ": " << (*answers)[k].dump();
    ObjectScope scope(ctx);
    IncludeLoader loader = [&, i = i](const std::string& name) { return read(folder_of(i) / name); };
    std::string ours = Template::parse(templates[i].second, templates[i].first, loader).render(scope);
    EXPECT_EQ(ours, (*answers)[k]["output"].get<std::string>()) << templates[i].first << "\n" << templates[i].second;
  }
  std::printf("%zu template renders compared (%zu templates)\n", cases.size(), templates.size());
}

}  // namespace
}  // namespace wgk::tmpl
