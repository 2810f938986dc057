# Seventh session's second final call (run_final7.sh ran past the device tool's 580 s: wgk validate now compiles
# every fused program 2..K of every signature). bench_host before/after, pinned, in turn, twice; the decode cases
# of every package with --batch 64. Same staging as run_final7.sh. Writes $OUT/final7b.tgz.
set -uo pipefail
B=.h200f2; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
ARGS=(--benchmark_filter='BM_Record|BM_BatchedCall' --benchmark_min_time=0.1 --benchmark_repetitions=5
      --benchmark_report_aggregates_only=true)
for round in 1 2; do for b in bench_host_before bench_host; do timeout 60 taskset -c 3 $B/$b "${ARGS[@]}" > $R/${b}_$round.txt 2>&1; done; done
timeout 150 $W bench --filter decode --rounds 2 --spin-up-ms 200 --batch 64 > $R/decode.txt 2>&1
tar czf $OUT/final7b.tgz -C /tmp r
for f in $R/bench_host*_?.txt; do echo "== $f"; grep -E 'median' $f | awk '{print $1, $4}'; done
sed -n "/^batched calls/,/ran,/p" $R/decode.txt | cut -c1-60,81-200
