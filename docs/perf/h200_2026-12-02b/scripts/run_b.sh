# Eighth session's second H200 call: exp17 (run17.sh: RMS rows pipelined in persistent workgroups), then wgk test
# and wgk validate of the four packages (main after the dedupe merge). Staging: scripts/h200_stage.sh .h200x
# build/tools/wgk/wgk build/bench/bench_host; python3 docs/perf/h200_2026-12-02b/scripts/mkexp17.py; carry .gl .h200x.
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
bash docs/perf/h200_2026-12-02b/scripts/run17.sh
echo "$(date -u +%H:%M:%S) tests" >> $R/steps.txt
timeout 60 $W test > $R/wgk_test.txt 2>&1; echo "rc=$?" >> $R/wgk_test.txt
for p in ai.onnx.RotaryEmbedding com.microsoft.RotaryEmbedding ai.onnx.RMSNormalization com.microsoft.SkipSimplifiedLayerNormalization; do
  echo "$(date -u +%H:%M:%S) validate $p" >> $R/steps.txt
  timeout 100 $W validate webgpu-kernels/$p > $R/validate_$p.txt 2>&1; echo "rc=$?" >> $R/validate_$p.txt
done
echo "$(date -u +%H:%M:%S) end" >> $R/steps.txt
tar czf $OUT/run_b.tgz -C /tmp r
tail -2 $R/wgk_test.txt; for f in $R/validate_*.txt; do echo "== $f"; sed -n '/^signatures/p;/^validate:/p;/^rc=/p' $f; done; cat $R/steps.txt
