# Seventeenth session's device call (issues 16 and 17): what CUDA reaches at the open shapes (bounds.cu, built here
# and carried as .h200x/bounds; rebuilt there if it does not start), the shipped WGSL kernels at the same shapes, and
# the RMS row kernels without their sum (mkbound.py: `none`, and `barrier` = a workgroupBarrier() and no sum).
# Staging: scripts/h200_stage.sh .h200x build/tools/wgk/wgk; nvcc -O3 -std=c++17 -arch=sm_90a -o .h200x/bounds
# docs/perf/h100_2026-12-07/scripts/bounds.cu; python3 docs/perf/h100_2026-12-07/scripts/mkbound.py .h200x/kb and
# `wgk metadata` on both folders; carry .gl .h200x. On the device: bash this file.
set -uo pipefail
R=/tmp/ra; source docs/perf/h200_2026-12-02e/scripts/common.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
step bounds
( $B/bounds || { nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/bounds docs/perf/h100_2026-12-07/scripts/bounds.cu && /tmp/bounds; } ) > $R/bounds.txt 2>&1
echo "bounds rc=$?"; cat $R/bounds.txt
P=ai.onnx.RMSNormalization
for c in prefill_1x512x4096_f16 prefill_1x512x4096_f32 long_rows_64x16384_f32 long_rows_64x16384_f16; do
  one ship_$c webgpu-kernels/$P $c
  one none_$c $B/kb/none/$P $c
  one barrier_$c $B/kb/barrier/$P $c
done
one ship_4096 webgpu-kernels/$P prefill_4096x4096_f
one rope_ship webgpu-kernels/ai.onnx.RotaryEmbedding prefill_r4_b1_s65536_h32x128_f32
step torch_copy; timeout 120 python3 bench/peers/torch_copy.py --mib 4,8,64,1024 > $R/torch_copy.txt 2>&1; cat $R/torch_copy.txt
step end
tar czf $OUT/run_a.tgz -C /tmp ra
