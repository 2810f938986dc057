// libFuzzer target: parse and evaluate arbitrary expression text over a fixed call scope.
// Anything but wgk::Error escaping, a crash, a hang or an out-of-bounds read is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "expr/expression.h"
#include "wgk/error.h"

using namespace wgk::expr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ObjectScope scope(Object{
      {"shapes", Object{{"x", List{2, 4, 3, 8}}, {"cos", List{50, 4}}}},
      {"ranks", Object{{"x", 4}, {"cos", 2}}},
      {"attrs", Object{{"num_heads", 4}}},
      {"dtypes", Object{{"T", "f16"}}},
      {"present", Object{{"positionIds", true}}},
      {"device", Object{{"limits", Object{{"maxComputeWorkgroupsPerDimension", 65535}}},
                        {"features", Object{{"shader_f16", false}}}}},
      {"s", "ab"}, {"f", 2.5}});
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto e = Expression::parse(text, "fuzz");
    (void)e.names();
    (void)e.member_paths();
    try {
      Value v = e.evaluate(scope);
      (void)v.repr();
    } catch (const wgk::Error&) {
    }
    (void)e.explain(scope);
  } catch (const wgk::Error&) {
  }
  return 0;
}
