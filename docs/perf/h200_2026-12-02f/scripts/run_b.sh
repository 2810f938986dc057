# Twelfth session's second H200 call (issue 17): RoPE (1, 32, 65536, 128) f32, the bench case, token order with the
# group's x loads hoisted before its stores (mkhoist.py; head groups 4 / 8 / 16, and 8 / 16 without cos/sin), the
# shipped package first and last. A process a setting.
# Staging: as run_a.sh, then python3 docs/perf/h200_2026-12-02f/scripts/mkhoist.py .h200x/ho 4 8 16 8:none 16:none
# (wgk metadata on each); carry .gl .h200x. On the device: bash this file.
set -uo pipefail
R=/tmp/rb; source docs/perf/h200_2026-12-02f/scripts/common.sh
c=prefill_r4_b1_s65536_h32x128_f32; P=ai.onnx.RotaryEmbedding
one shipped_1 webgpu-kernels/$P $c
for run in 1 2; do for v in g8 g4 g16 g8_none g16_none; do
  one ${v}_$run $B/ho/$v/$P $c --tunable ROW_ORDER=token
done; done
one shipped_2 webgpu-kernels/$P $c
step end
tar czf $OUT/run_b.tgz -C /tmp rb
