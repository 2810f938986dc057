# Tenth session's H200 call: the normalization row kernels' workgroup sum in local-index order (b36d713) against
# the arrival-order one (fea294b), same binary: the FusedCalls/Batch tests (their bit-equality of a fused call and
# the same call alone failed 3 times on the H200 with the arrival order) twice, wgk test of the four packages, and
# the prefill and decode_8 cases of both normalization packages from the old package folders ($B/old/, fea294b)
# and the embedded new ones, in turn, twice (--one-pass 20: back to back, against the same-run copy).
# Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk build/tests/runtime/test_runtime; the old packages:
#   git archive fea294b kernels/ai.onnx.RMSNormalization kernels/com.microsoft.SkipSimplifiedLayerNormalization | tar x -C .h200x/old
# carry .gl .h200x; then, on the device: bash docs/perf/h200_2026-12-02d/scripts/run_a.sh (writes $OUT/run_a.tgz).
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/ra; mkdir -p $R; W=$B/wgk
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
$W devices > $R/devices.txt 2>&1
for i in 1 2; do
  step "test_runtime $i"
  timeout 120 $B/test_runtime --gtest_filter='FusedCalls.*:Batch.*' > $R/fused_$i.txt 2>&1
  echo "FusedCalls/Batch run $i rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/fused_$i.txt | tr '\n' ' ')"
done
grep -E '^\[  FAILED  \]' $R/fused_1.txt $R/fused_2.txt | head
for p in ai.onnx.RMSNormalization ai.onnx.RotaryEmbedding com.microsoft.RotaryEmbedding com.microsoft.SkipSimplifiedLayerNormalization; do
  step "test $p"
  timeout 60 $W test webgpu-kernels/$p > $R/test_$p.txt 2>&1; echo "test $p rc=$? $(tail -1 $R/test_$p.txt)"
done
for run in 1 2; do
  for p in ai.onnx.RMSNormalization com.microsoft.SkipSimplifiedLayerNormalization; do
    for tree in old new; do
      src=webgpu-kernels/$p; [ $tree = old ] && src=$B/old/kernels/$p
      for f in prefill decode_8x4096; do
        step "$p $tree $f $run"
        timeout 100 $W bench $src --filter $f --rounds 2 --spin-up-ms 300 --one-pass 20 \
          --json $R/${p}_${tree}_${f}_$run.json > $R/${p}_${tree}_${f}_$run.txt 2>&1
        echo "rc=$?" >> $R/${p}_${tree}_${f}_$run.txt
      done
    done
  done
done
step end
tar czf $OUT/run_a.tgz -C /tmp ra
# one line a case: package, tree, run, case, one-pass us and % copy (wgk bench's one-pass table)
for p in ai.onnx.RMSNormalization com.microsoft.SkipSimplifiedLayerNormalization; do for f in prefill decode_8x4096; do
  for run in 1 2; do for tree in old new; do
    t=$R/${p}_${tree}_${f}_$run.txt; echo "== $p $tree run $run $(grep '^rc=' $t)"
    sed -n "/^one pass/,/ran,/p" $t | grep -v "^kernel\|^one pass\|ran," | cut -c33-150
  done; done
done; done
