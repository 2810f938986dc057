# Eighth session's first H200 call: bench_host (with dispatches_per_submit) pinned twice; wgk test of the four
# packages; exp16 (run16.sh: RMS packed f16 kernel shapes). Staging: scripts/h200_stage.sh .h200x
# build/tools/wgk/wgk build/bench/bench_host; python3 docs/perf/h200_2026-12-02b/scripts/mkexp16.py; carry .gl .h200x.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
step start
ARGS=(--benchmark_filter='BM_Record|BM_BatchedCall|BM_Flush/' --benchmark_min_time=0.1 --benchmark_repetitions=5
      --benchmark_report_aggregates_only=true)
for round in 1 2; do step host$round; timeout 60 taskset -c 3 $B/bench_host "${ARGS[@]}" > $R/bench_host_$round.txt 2>&1; done
step exp16; bash docs/perf/h200_2026-12-02b/scripts/run16.sh
step tests; timeout 200 $W test > $R/wgk_test.txt 2>&1; echo "rc=$?" >> $R/wgk_test.txt
step end
tar czf $OUT/run_a.tgz -C /tmp r
for f in $R/bench_host_?.txt; do echo "== $f"; grep -E 'median' $f | awk '{print $1, $4, $NF}'; done
tail -5 $R/wgk_test.txt; cat $R/steps.txt
