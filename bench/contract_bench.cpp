// Planner costs on seed 004 (docs/design.md "One call, as data"):
//   BM_SelectRank4: boundary + scope + every manifest derive + variant selection for one rank-4
//                   signature, uncached (what a cache miss costs before rendering);
//   BM_PlanCacheHit: a repeat signature served from the plan cache (what every kernel call costs).
// Run: build-<dir>/bench/contract_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include "plan/plan.h"

namespace {

using namespace wgk;
using namespace wgk::contract;
using namespace wgk::plan;

std::shared_ptr<const Contract> seed004() {
  const std::string path = std::string(WGK_SHARED_DIR) + "/seeds/004_ded27aa6d1102877.manifest.json";
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return std::make_shared<const Contract>(load_contract(ss.str(), path));
}

// x (batch 2, heads 32, seq 128, head 128), cos/sin (4096, 64), positionIds (2, 128):
// rank4_cache2_pos_quad.
CallSignature rank4_call() {
  CallSignature c;
  c.inputs["x"] = {DType::kFloat32, {2, 32, 128, 128}};
  c.inputs["cos"] = {DType::kFloat32, {4096, 64}};
  c.inputs["sin"] = {DType::kFloat32, {4096, 64}};
  c.inputs["positionIds"] = {DType::kInt64, {2, 128}};
  c.attrs["interleaved"] = 0;
  return c;
}

// A template source with one trivial template for every shader name (rendering is not measured here).
Planner::TemplateSource trivial_templates() {
  return [](const std::string&) { return std::string("// {{ dtypes.T }}\n"); };
}

void BM_SelectRank4(benchmark::State& state) {
  Planner planner(seed004(), DeviceCaps::lavapipe(), trivial_templates());
  const CallSignature call = rank4_call();
  for (auto _ : state) {
    Selection s = planner.select(call, {.derive_values = true});
    benchmark::DoNotOptimize(s.variant);
  }
  const Selection s = planner.select(call);
  state.SetLabel(s.variant ? s.variant->id : "no variant");
}
BENCHMARK(BM_SelectRank4);

void BM_SelectRank4NoDerivePrint(benchmark::State& state) {
  Planner planner(seed004(), DeviceCaps::lavapipe(), trivial_templates());
  const CallSignature call = rank4_call();
  for (auto _ : state) {
    Selection s = planner.select(call);
    benchmark::DoNotOptimize(s.variant);
  }
}
BENCHMARK(BM_SelectRank4NoDerivePrint);

void BM_PlanCacheHit(benchmark::State& state) {
  Planner planner(seed004(), DeviceCaps::lavapipe(), trivial_templates());
  const CallSignature call = rank4_call();
  planner.plan(call);
  for (auto _ : state) {
    auto plan = planner.plan(call);
    benchmark::DoNotOptimize(plan.get());
  }
}
BENCHMARK(BM_PlanCacheHit)->Threads(1)->Threads(2);

}  // namespace

BENCHMARK_MAIN();
