# Tenth session's second H200 call. (1) main after cbc82ba (the normalization sums back in arrival order; FusedCalls
# compares fused and alone within an ulp where that order may vary): the FusedCalls/Batch tests twice, wgk test of
# the four packages, and the RMS/Skip decode_8x4096 and 1x512x4096 cases from the fea294b package folders ($B/old/)
# and the embedded ones, in turn. (2) RoPE in blocks of TB tokens (mkblock.py's scratch packages in $B/kb/tb<TB>/,
# run with ROW_ORDER=head) against the shipped token order and head order, at (1, 32, 65536, 128) f32 and f16,
# twice in turn; (4, 32, 8192, 128) f32 once as a control. --one-pass 20 against the same-run copy.
# Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk build/tests/runtime/test_runtime; .h200x/old as in
# run_a.sh; python3 docs/perf/h200_2026-12-02d/scripts/mkblock.py .h200x/kb 1024 4096 8192 and wgk metadata on each;
# carry .gl .h200x. On the device: bash docs/perf/h200_2026-12-02d/scripts/run_b.sh (writes $OUT/run_b.tgz).
set -uo pipefail
B=.h200x; source scripts/h200_env.sh
R=/tmp/rb; mkdir -p $R; W=$B/wgk
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
for i in 1 2; do
  step "test_runtime $i"
  timeout 120 $B/test_runtime --gtest_filter='FusedCalls.*:Batch.*' > $R/fused_$i.txt 2>&1
  echo "FusedCalls/Batch run $i rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/fused_$i.txt | tr '\n' ' ')"
done
for p in ai.onnx.RMSNormalization ai.onnx.RotaryEmbedding com.microsoft.RotaryEmbedding com.microsoft.SkipSimplifiedLayerNormalization; do
  timeout 60 $W test webgpu-kernels/$p > $R/test_$p.txt 2>&1; echo "test $p rc=$? $(tail -1 $R/test_$p.txt)"
done
one() {  # name package-or-folder filter [tunables...]
  local n=$1 p=$2 f=$3; shift 3
  step "$n"
  timeout 60 $W bench $p --filter $f "$@" --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/$n.json > $R/$n.txt 2>&1
  echo "rc=$?" >> $R/$n.txt
  echo "== $n $(grep '^rc=' $R/$n.txt)"; sed -n "/^one pass/,/ran,/p" $R/$n.txt | grep -v "^kernel\|^one pass\|ran," | cut -c33-150
}
for p in ai.onnx.RMSNormalization com.microsoft.SkipSimplifiedLayerNormalization; do
  for f in decode_8x4096_f prefill_1x512x4096; do
    one ${p}_old_$f $B/old/kernels/$p $f; one ${p}_new_$f webgpu-kernels/$p $f
  done
done
R4=webgpu-kernels/ai.onnx.RotaryEmbedding
for run in 1 2; do for t in f32 f16; do
  c=prefill_r4_b1_s65536_h32x128_$t
  one rope_token_${t}_$run $R4 $c
  one rope_head_${t}_$run $R4 $c --tunable ROW_ORDER=head
  for tb in 1024 4096 8192; do one rope_tb${tb}_${t}_$run $B/kb/tb$tb/ai.onnx.RotaryEmbedding $c --tunable ROW_ORDER=head; done
done; done
c=prefill_r4_b4_s8192_h32x128_f32
one rope_b4_auto $R4 $c; one rope_b4_token $R4 $c --tunable ROW_ORDER=token; one rope_b4_tb4096 $B/kb/tb4096/ai.onnx.RotaryEmbedding $c --tunable ROW_ORDER=head
step end
tar czf $OUT/run_b.tgz -C /tmp rb
