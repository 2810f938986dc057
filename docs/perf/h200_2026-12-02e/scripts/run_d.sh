# Eleventh session's fifth H200 call (issue 17): RoPE (1, 32, 65536, 128) f32, the bench case: mkphase.py's token
# order in blocks of TB tokens with the head groups in P phases (P:TB = 2:1024 2:4096 4:256 4:1024 4:4096), against
# the shipped token order first and last; a process a setting.
# Staging: as run_a.sh, then mkphase.py .h200x/ph 2:1024 2:4096 4:256 4:1024 4:4096 (wgk metadata on each).
set -uo pipefail
R=/tmp/rd; source docs/perf/h200_2026-12-02e/scripts/common.sh
c=prefill_r4_b1_s65536_h32x128_f32; P=ai.onnx.RotaryEmbedding
one token_1 webgpu-kernels/$P $c
for run in 1 2; do for v in p2_tb1024 p2_tb4096 p4_tb256 p4_tb1024 p4_tb4096; do
  one ${v}_$run $B/ph/$v/$P $c --tunable ROW_ORDER=token
done; done
one token_2 webgpu-kernels/$P $c
step end
tar czf $OUT/run_d.tgz -C /tmp rd
