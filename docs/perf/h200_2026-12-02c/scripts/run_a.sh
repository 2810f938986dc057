# Ninth session's first H200 call: fused calls with small per-call inputs bound as uniforms (29b9843) against
# the tree before (e25afb3, in $B/base). The device's uniform limits, the fusion tests on the H200, the decode
# cases with --batch 64 (GPU time against the kernel-only sum) of both trees, and bench_host pinned, old and new
# in turn, twice. Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk build/bench/bench_host
# build/tests/runtime/test_runtime, then the e25afb3 build's wgk and bench_host stripped into .h200x/base/;
# carry .gl .h200x.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
$W devices --json > $R/devices.json 2>&1
grep -E '"max(Uniform|Storage)Buffer' $R/devices.json
timeout 240 $B/test_runtime --gtest_filter='FusedCalls.*:Batch.*' > $R/fusion_tests.txt 2>&1; echo "tests rc=$?"
grep -E '^\[  (PASSED|FAILED) ' $R/fusion_tests.txt
for tree in new base; do
  w=$W; [ $tree = base ] && w=$B/base/wgk
  timeout 150 $w bench --filter decode --rounds 2 --spin-up-ms 200 --batch 64 > $R/decode_$tree.txt 2>&1
  echo "decode $tree rc=$?"
done
for round in 1 2; do
  for tree in base new; do
    h=$B/bench_host; [ $tree = base ] && h=$B/base/bench_host
    timeout 80 taskset -c 3 $h --benchmark_filter='BM_Record|BM_BatchedCall|BM_Flush/' --benchmark_min_time=0.1 \
      --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $R/bench_host_${tree}_$round.txt 2>&1
    echo "== bench_host $tree round $round"; grep -E 'median' $R/bench_host_${tree}_$round.txt | awk '{print $1, $4, $NF}'
  done
done
tar czf $OUT/run_a.tgz -C /tmp r
for tree in new base; do echo "== decode $tree"; sed -n "/^batched calls/,/ran,/p" $R/decode_$tree.txt | cut -c1-60,81-200 | head -60; done
