# Eighth session's third H200 call: the decode cases of every package with --batch 64 on the final tree (Skip's
# fused programs now include the family's call-entry.wgsl.jinja), and bench_host pinned once. Staging:
# scripts/h200_stage.sh .h200x build/tools/wgk/wgk build/bench/bench_host; carry .gl .h200x.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
timeout 200 $W bench --filter decode --rounds 2 --spin-up-ms 200 --batch 64 > $R/decode.txt 2>&1; echo "rc=$?" >> $R/decode.txt
timeout 60 taskset -c 3 $B/bench_host --benchmark_filter='BM_Record|BM_BatchedCall' --benchmark_min_time=0.1 \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $R/bench_host.txt 2>&1
tar czf $OUT/run_c.tgz -C /tmp r
sed -n "/^batched calls/,/ran,/p" $R/decode.txt | cut -c1-60,81-200; tail -3 $R/decode.txt
grep -E 'median' $R/bench_host.txt | awk '{print $1, $4, $NF}'
