# Twelfth session's first H200 call (issue 17): RoPE (1, 32, 65536, 128) f32, the bench case, token order: mkskew.py's
# head groups skewed in time (SKEW tokens a group), token blocks (TB), head groups of 8 / 4 / 1, and the same without
# cos/sin (_none); the shipped package first and last; CUDA's copy before; RMS packed f16 512 x 4096 at WG 64 (issue
# 16). A process a setting.
# Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk; python3 docs/perf/h200_2026-12-02f/scripts/mkskew.py
# .h200x/sk $SK (SK below) and wgk metadata on each; carry .gl .h200x. On the device: bash this file.
set -uo pipefail
R=/tmp/ra; source docs/perf/h200_2026-12-02f/scripts/common.sh
step torch_copy; timeout 120 python3 bench/peers/torch_copy.py --mib 512,1024 > $R/torch_copy.txt 2>&1; cat $R/torch_copy.txt
c=prefill_r4_b1_s65536_h32x128_f32; P=ai.onnx.RotaryEmbedding
one shipped_1 webgpu-kernels/$P $c
for v in g8_s0_tb1 g8_s1_tb1 g8_s3_tb1 g8_s37_tb1 g8_s1024_tb1 g8_s0_tb16 g8_s0_tb64 g8_s37_tb16 g4_s0_tb1 g4_s37_tb1 \
         g1_s0_tb1 g1_s3_tb1 g1_s37_tb1 g8_s0_tb1_none g8_s37_tb1_none g8_s0_tb16_none; do
  one $v $B/sk/$v/$P $c --tunable ROW_ORDER=token
done
one shipped_2 webgpu-kernels/$P $c
R2=webgpu-kernels/ai.onnx.RMSNormalization
for run in 1 2; do
  one rms_f16_512_wg128_$run $R2 prefill_1x512x4096_f16
  one rms_f16_512_wg64_$run $R2 prefill_1x512x4096_f16 --tunable WORKGROUP_SIZE=64
done
step end
tar czf $OUT/run_a.tgz -C /tmp ra
