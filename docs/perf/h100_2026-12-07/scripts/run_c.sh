# Seventeenth session's third device call: the PyTorch peers in the same call as ours. torch.compile (and eager) of
# rms_norm and the skip-add form (bench/peers/torch_norm.py, in a CUDA graph) beside the RMS cases issue 16 leaves
# open; torch.compile RoPE (bench/peers/torch_rope.py) beside ours at the prefill sizes of issue 17. Staging: as
# run_b.sh. On the device: bash this file.
set -uo pipefail
R=/tmp/rc; source docs/perf/h200_2026-12-02e/scripts/common.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv -lms 250 > $R/clocks.csv & logger=$!
nvidia-smi --query-gpu=name,driver_version --format=csv > $R/gpu.txt 2>&1; cat $R/gpu.txt
P=ai.onnx.RMSNormalization
for c in prefill_1x512x4096_f prefill_4096x4096_f long_rows_64x16384_f; do one rms_$c webgpu-kernels/$P $c; done
for c in prefill_r4_b1_s4096_h32x128_f prefill_r4_b4_s8192_h32x128_f prefill_r4_b1_s65536_h32x128_f; do
  one rope_$c webgpu-kernels/ai.onnx.RotaryEmbedding $c
done
step torch_norm; timeout 200 python3 bench/peers/torch_norm.py > $R/torch_norm.txt 2>&1; echo "torch_norm rc=$?"
step torch_rope
F='ai.onnx.RotaryEmbedding/prefill_r4_b1_s4096_h32x128_f32$|ai.onnx.RotaryEmbedding/prefill_r4_b4_s8192_h32x128_f32$|ai.onnx.RotaryEmbedding/prefill_r4_b1_s65536_h32x128_f32$|ai.onnx.RotaryEmbedding/prefill_r4_b1_s4096_h32x128_f16$|ai.onnx.RotaryEmbedding/prefill_r4_b4_s8192_h32x128_f16$|ai.onnx.RotaryEmbedding/prefill_r4_b1_s65536_h32x128_f16$'
python3 bench/peers/make_models.py /tmp/models --filter "$F" > /dev/null 2>&1
timeout 240 python3 bench/peers/torch_rope.py /tmp/models/cases.json --json $R/torch_rope.json > $R/torch_rope.txt 2>&1
echo "torch_rope rc=$?"
step torch_copy; timeout 60 python3 bench/peers/torch_copy.py --mib 4,8,32,64,256,512,1024 > $R/torch_copy.txt 2>&1
step end; kill $logger
tar czf $OUT/run_c.tgz -C /tmp rc
cat $R/torch_norm.txt $R/torch_rope.txt $R/torch_copy.txt
