// Per-call cost of the expression engine: seed 004's manifest derive (16 values) plus variant
// selection (every variant's `when`, parsed once), over a fresh lazily evaluating derive scope each
// call, as the runtime's plan step does. Target: under 20 us a call.
//   build-expr/tests/expr/bench_expr
#include <benchmark/benchmark.h>

#include "seed_manifests.h"

namespace {

using namespace wgk::expr;

void BM_Seed004DeriveAndSelect(benchmark::State& state) {
  auto m = testing::load_seed("004");
  auto derive = testing::parse_derive(m["derive"], "derive");
  std::vector<std::pair<std::int64_t, std::vector<Expression>>> variants;
  for (const auto& v : m["variants"]) {
    std::vector<Expression> when;
    for (const auto& w : v["when"]) when.push_back(Expression::parse(w.get<std::string>(), "when"));
    variants.emplace_back(v.value("priority", 0), std::move(when));
  }
  testing::Call call{.x = {2, 4, 3, 8}, .cos = {50, 4}, .sin = {50, 4}, .position_ids = std::vector<std::int64_t>{2, 3}};
  ObjectScope base(testing::call_scope(call));
  for (auto _ : state) {
    testing::DeriveScope scope(derive, base);
    for (const auto& [name, e] : derive) benchmark::DoNotOptimize(scope.lookup(name));
    int best = -1;
    std::int64_t best_priority = 0;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      bool ok = true;
      for (const auto& w : variants[i].second) {
        if (!w.evaluate(scope).truthy()) {
          ok = false;
          break;
        }
      }
      if (ok && (best < 0 || variants[i].first > best_priority)) {
        best = static_cast<int>(i);
        best_priority = variants[i].first;
      }
    }
    benchmark::DoNotOptimize(best);
  }
}
BENCHMARK(BM_Seed004DeriveAndSelect)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
