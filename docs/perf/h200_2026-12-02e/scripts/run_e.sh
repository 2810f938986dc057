# Eleventh session's last H200 call: the final tree's `wgk test` of the four packages and the FusedCalls/Batch
# tests. Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk build/tests/runtime/test_runtime; carry .gl .h200x.
set -uo pipefail
R=/tmp/re; source docs/perf/h200_2026-12-02e/scripts/common.sh
for p in ai.onnx.RMSNormalization ai.onnx.RotaryEmbedding com.microsoft.RotaryEmbedding com.microsoft.SkipSimplifiedLayerNormalization; do
  step "test $p"; timeout 90 $W test webgpu-kernels/$p > $R/test_$p.txt 2>&1; echo "test $p rc=$? $(tail -1 $R/test_$p.txt)"
done
step fused; timeout 150 $B/test_runtime --gtest_filter='FusedCalls.*:Batch.*' > $R/fused.txt 2>&1
echo "FusedCalls/Batch rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/fused.txt | tr '\n' ' ')"
step end
tar czf $OUT/run_e.tgz -C /tmp re
