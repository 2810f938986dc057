// libFuzzer target: parse and render arbitrary template text with small output/iteration limits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "template/template.h"
#include "wgk/error.h"

using namespace wgk;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const expr::ObjectScope scope(expr::Object{
      {"rank", 4}, {"interleaved", true}, {"vector", "vec4<f32>"}, {"rotaryOutputWg", 256},
      {"shape", expr::List{2, 4, 3, 8}}, {"dtypes", expr::Object{{"T", "f32"}}}});
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto t = tmpl::Template::parse(text, "fuzz.wgsl.jinja");
    (void)t.render(scope, 1 << 16, 1 << 12);
  } catch (const Error&) {
  }
  return 0;
}
