# The session's final H200 call (2026-12-01c): run from the repository root on the device machine with
# B = the staging folder (stripped wgk and bench_host of the merged tree, their libraries, libwebgpu_wrapper.so.xz)
# and .gl (Debian's Vulkan loader .debs; docs/h200.md). Writes $OUT/final.tgz.
set -uo pipefail
B=${B:-.h200f2}; source scripts/h200_env.sh
R=/tmp/r; mkdir -p $R; W=$B/wgk
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu --format=csv -lms 250 > $R/clocks.csv & logger=$!
step() { echo "$(date -u +%H:%M:%S) $1" >> $R/steps.txt; }
step tests
for p in kernels/*/; do [ -f "$p/build/webgpu/manifest.json" ] || continue; timeout 90 $W test "$p"; timeout 90 $W validate "$p"; done > $R/tests.txt 2>&1
grep -E "passed|validate:|FAIL" $R/tests.txt | grep -v "^PASS" | tail -20
step norm
timeout 200 $W bench webgpu-kernels/ai.onnx.RMSNormalization webgpu-kernels/com.microsoft.SkipSimplifiedLayerNormalization \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/norm.json > $R/norm.txt 2>&1
step rope
timeout 200 $W bench webgpu-kernels/ai.onnx.RotaryEmbedding webgpu-kernels/com.microsoft.RotaryEmbedding \
  --rounds 2 --spin-up-ms 300 --one-pass 20 --batch 64 --json $R/rope.json > $R/rope.txt 2>&1
step bench_host
F='BM_Record|BM_BatchedCall|BM_Flush|BM_Call|BM_Submit|BM_Plan'
ARGS=(--benchmark_min_time=0.3 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true)
timeout 150 $B/bench_host --benchmark_filter="$F" "${ARGS[@]}" > $R/bench_host.txt 2>&1
# the allocator (Debian's libtcmalloc-minimal4 2.10, libjemalloc2 5.3.0 preloaded instead of glibc's malloc)
for a in libtcmalloc_minimal.so.4 libjemalloc.so.2; do
  LD_PRELOAD=$PWD/$B/$a timeout 120 $B/bench_host --benchmark_filter='BM_Record|BM_BatchedCall|BM_Flush' "${ARGS[@]}" \
    > $R/bench_host_$a.txt 2>&1
done
step torch
timeout 60 python3 bench/peers/torch_copy.py --mib 8,64,256,512,1024 > $R/torch_copy.txt 2>&1
timeout 120 python3 bench/peers/torch_norm.py > $R/torch_norm.txt 2>&1
timeout 60 python3 bench/peers/torch_copy_streams.py > $R/torch_copy_streams.txt 2>&1
step end
kill $logger
tar czf $OUT/final.tgz -C /tmp r
cat $R/steps.txt; grep -h median $R/bench_host*.txt | cut -c1-120; cat $R/torch_copy.txt
