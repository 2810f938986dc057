# Sixth session's final H200 call (2026-12-01e): run from the repository root on the device machine with .gl and
# .h200f2 carried (.h200f2: stripped wgk and bench_host of the merged tree, their libraries,
# libwebgpu_wrapper.so.xz). Every package's test.json and validate, then both RoPE packages' bench.json (one pass
# of 20, --batch 64) and CUDA's copy in the same call. Writes $OUT/final6.tgz.
set -uo pipefail
B=.h200f2; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem --format=csv -lms 500 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
step tests
for p in kernels/*/; do [ -f "$p/build/webgpu/manifest.json" ] || continue; timeout 120 $W test "$p"; timeout 90 $W validate "$p"; done > $R/tests.txt 2>&1
grep -E "passed|validate:|FAIL|OK" $R/tests.txt | grep -v "^PASS" | tail -12
step rope
timeout 300 $W bench webgpu-kernels/ai.onnx.RotaryEmbedding webgpu-kernels/com.microsoft.RotaryEmbedding \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/rope.json > $R/rope.txt 2>&1
step torch
timeout 60 python3 bench/peers/torch_copy.py --mib 64,512,1024 > $R/torch_copy.txt 2>&1
step end
kill $logger
tar czf $OUT/final6.tgz -C /tmp r
cat $R/steps.txt; tail -4 $R/torch_copy.txt
sed -n "/^one pass/,/ran,/p" $R/rope.txt | grep prefill | cut -c1-32,33-140
