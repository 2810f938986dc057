# Eleventh session's third H200 call (issue 17): RoPE (1, 32, 65536, 128) f32 without cos/sin (mkfloor.py none/),
# the vec4 kernel (read/ with KERNEL=vec4), blocks of 1,024 tokens with the positions in [0, 8191]; case R65536_p8192
# (positions over 8,192 rows of the 16 MiB caches) and R65536_p65536 (the bench case). A process a setting.
# NONE_ONLY=1 runs only the none/ rows (the first run's none/ package lost its cache bindings to the auto layout).
# Staging: as run_a.sh and run_b.sh, then mkblock.py .h200x/kb 1024 and mkfloor.py .h200x/floor (wgk metadata on each).
set -uo pipefail
R=/tmp/rc; source docs/perf/h200_2026-12-02e/scripts/common.sh
F=$B/floor; P=ai.onnx.RotaryEmbedding
[ "${NONE_ONLY:-0}" = 1 ] || one token_shipped webgpu-kernels/$P prefill_r4_b1_s65536_h32x128_f32
for c in R65536_p8192 R65536_p65536; do
  [ "${NONE_ONLY:-0}" = 1 ] || one read_quad_head_$c $F/read/$P place_$c --tunable ROW_ORDER=head
  [ "${NONE_ONLY:-0}" = 1 ] || one read_vec4_$c $F/read/$P place_$c --tunable KERNEL=vec4
  one none_quad_head_$c $F/none/$P place_$c --tunable ROW_ORDER=head
  one none_quad_token_$c $F/none/$P place_$c --tunable ROW_ORDER=token
  one none_vec4_$c $F/none/$P place_$c --tunable KERNEL=vec4
  [ "${NONE_ONLY:-0}" = 1 ] || one tb1024_$c $B/kb/tb1024/$P place_$c --tunable ROW_ORDER=head
done
step end
tar czf $OUT/run_c${NONE_ONLY:+_none}.tgz -C /tmp rc
