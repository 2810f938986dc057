set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp HF_HUB_OFFLINE=1
export LD_LIBRARY_PATH=$PWD/.h200f PYTHONUNBUFFERED=1
python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" .h200f/libwebgpu_wrapper.so.xz .h200f/libwebgpu_wrapper.so
R=/tmp/r; mkdir -p $R; W=.h200f/wgk
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv -lms 250 > $R/clocks.csv &
logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
step tests
for p in kernels/*/; do [ -f "$p/build/webgpu/manifest.json" ] || continue; timeout 60 $W test "$p"; timeout 60 $W validate "$p"; done > $R/tests.txt 2>&1
grep -E "passed|validate:|FAIL" $R/tests.txt | grep -v "^PASS" | tail -20
step norm
timeout 200 $W bench webgpu-kernels/ai.onnx.RMSNormalization webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/norm.json > $R/norm.txt 2>&1
step rope_before
timeout 150 $W bench .h200f/kb/kernels/ai.onnx.RotaryEmbedding .h200f/kb/kernels/com.microsoft.RotaryEmbedding \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --json $R/rope_before.json > $R/rope_before.txt 2>&1
step rope_after
timeout 150 $W bench webgpu-kernels/ai.onnx.RotaryEmbedding webgpu-kernels/com.microsoft.RotaryEmbedding \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/rope_after.json > $R/rope_after.txt 2>&1
step bench_host
timeout 120 .h200f/bench_host --benchmark_min_time=0.3 > $R/bench_host.txt 2>&1
step torch_rope
python3 bench/peers/make_models.py /tmp/models --filter 'ai.onnx.RotaryEmbedding/prefill_r4_b1_s4096_h32x128_f32$|ai.onnx.RotaryEmbedding/prefill_r4_b4_s8192_h32x128_f32$|ai.onnx.RotaryEmbedding/prefill_r4_b1_s65536_h32x128_f32$|ai.onnx.RotaryEmbedding/prefill_r4_b1_s65536_h32x128_f16$|ai.onnx.RotaryEmbedding/decode_r4_b1_h32x128_f32$' > /dev/null 2>&1
timeout 120 python3 bench/peers/torch_rope.py /tmp/models/cases.json --json $R/torch_rope.json > $R/torch_rope.txt 2>&1
step end
kill $logger
tar czf $OUT/final.tgz -C /tmp r
tail -3 $R/norm.txt $R/rope_after.txt; cat $R/steps.txt; tail -15 $R/bench_host.txt
