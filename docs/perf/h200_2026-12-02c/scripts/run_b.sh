# Ninth session's second H200 call: main with the fused-program key fix (694bcc0) and the cache/defect fixes
# (d310ade): wgk test of the four packages, the decode cases with --batch 64 (every case must run: the first
# call's tree skipped the b8 cases), bench_host pinned once; then the unmerged branch rmspipe's sweep
# (run_pipe.sh, its wgk in $B/pipe/). Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk
# build/bench/bench_host; rmspipe's wgk stripped into .h200x/pipe/; carry .gl .h200x.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
for p in ai.onnx.RMSNormalization ai.onnx.RotaryEmbedding com.microsoft.RotaryEmbedding com.microsoft.SkipSimplifiedLayerNormalization; do
  timeout 60 $W test webgpu-kernels/$p > $R/test_$p.txt 2>&1; echo "test $p rc=$? $(tail -1 $R/test_$p.txt)"
done
timeout 150 $W bench --filter decode --rounds 2 --spin-up-ms 200 --batch 64 > $R/decode.txt 2>&1; echo "decode rc=$?"
grep -E "skipped|ran," $R/decode.txt | head
timeout 80 taskset -c 3 $B/bench_host --benchmark_filter='BM_Record|BM_BatchedCall' --benchmark_min_time=0.1 \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $R/bench_host.txt 2>&1
grep -E 'median' $R/bench_host.txt | awk '{print $1, $4, $NF}'
tar czf $OUT/run_b.tgz -C /tmp r
sed -n "/^batched calls/,/ran,/p" $R/decode.txt | cut -c1-60,81-200 | awk '{print $1, $2, $6, $7}'
WGK_LOCAL=1 WGK_BIN=$B/pipe/wgk WGK_RUN_TIMEOUT_S=12 bash docs/perf/h200_2026-12-02c/scripts/run_pipe.sh
