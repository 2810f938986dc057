# exp14: what fusing K decode calls into one dispatch would save on the H200's host (bench_host BM_FlushFused),
# next to today's batched call, pinned to one core, twice. .gl and .h200x carried (as run13.sh).
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R
for round in 1 2; do
  timeout 100 taskset -c 3 $B/bench_host --benchmark_filter='BM_FlushFused|BM_Flush/onnx_f32|BM_BatchedCall/onnx_f32|BM_Record/onnx_f32' \
    --benchmark_min_time=0.2 --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $R/fused_$round.txt 2>&1
done
tar czf $OUT/exp14.tgz -C /tmp r
grep -h median $R/fused_*.txt | cut -c1-160
