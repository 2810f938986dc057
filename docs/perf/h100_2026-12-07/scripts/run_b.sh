# Seventeenth session's second device call: the same-call picture of issues 16 and 17 on the card this call gets.
# CUDA's bounds (bounds.cu rows and rope); every bench.json case of the four packages (one pass of 20, decode with
# --batch 64); RMS at 512 rows with workgroups of 256; bench_host's batched call
# pinned; CUDA's copy of the bench sizes. Staging: as run_a.sh, plus build/bench/bench_host in
# scripts/h200_stage.sh's list. On the device: bash this file.
set -uo pipefail
R=/tmp/rb; source docs/perf/h200_2026-12-02e/scripts/common.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv -lms 250 > $R/clocks.csv & logger=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
step bounds; timeout 120 $B/bounds > $R/bounds.txt 2>&1; echo "bounds rc=$?"
step norm
timeout 200 $W bench webgpu-kernels/ai.onnx.RMSNormalization webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/norm.json > $R/norm.txt 2>&1; echo "norm rc=$?"
one wg256_512_f16 webgpu-kernels/ai.onnx.RMSNormalization prefill_1x512x4096_f16 --tunable WORKGROUP_SIZE=256
one wg256_512_f32 webgpu-kernels/ai.onnx.RMSNormalization prefill_1x512x4096_f32 --tunable WORKGROUP_SIZE=256
step rope
timeout 220 $W bench webgpu-kernels/ai.onnx.RotaryEmbedding webgpu-kernels/com.microsoft.RotaryEmbedding \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/rope.json > $R/rope.txt 2>&1; echo "rope rc=$?"
step bench_host
timeout 80 taskset -c 3 $B/bench_host --benchmark_filter='BM_Record|BM_BatchedCall' --benchmark_min_time=0.1 \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true > $R/bench_host.txt 2>&1
grep -E 'median' $R/bench_host.txt | awk '{print $1, $4, $NF}'
step torch_copy; timeout 120 python3 bench/peers/torch_copy.py --mib 4,8,64,512,1024 > $R/torch_copy.txt 2>&1
step end; kill $logger
tar czf $OUT/run_b.tgz -C /tmp rb
cat $R/bounds.txt $R/torch_copy.txt
sed -n "/^one pass/,/ran,/p" $R/norm.txt $R/rope.txt | cut -c1-140
