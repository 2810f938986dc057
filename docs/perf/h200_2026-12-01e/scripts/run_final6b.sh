set -uo pipefail
B=.h200f2; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
ARGS=(--benchmark_filter='BM_BatchedCall' --benchmark_min_time=0.2 --benchmark_repetitions=5 --benchmark_report_aggregates_only=true)
for round in 1 2; do for b in bench_host_before bench_host; do timeout 60 taskset -c 3 $B/$b "${ARGS[@]}" > $R/${b}_$round.txt 2>&1; done; done
timeout 150 $W bench webgpu-kernels/ai.onnx.RMSNormalization webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization --filter decode --rounds 2 --spin-up-ms 300 --batch 64 > $R/norm_decode.txt 2>&1
tar czf $OUT/final6b.tgz -C /tmp r
for f in $R/bench_host*_?.txt; do echo "== $f"; grep -E 'median' $f | awk '{print $1, $4, $5}'; done
sed -n "/^batched calls/,/ran,/p" $R/norm_decode.txt | cut -c1-32,33-80,81-200
